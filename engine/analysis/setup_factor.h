#pragma once
// The setups of a live run side by side as a random factor (docs/measurement.md, "Setups as a
// factor"). Each phase of a repetition opens the variants' sockets (or rings) and starts their
// receiver threads anew, on traded places; what a start draws (where buffers, socket structures
// and stacks land) shifts a variant's rate for as long as that setup lives, and the next start draws
// again. Chunk pairs inside one setup share its draw, so they are not independent draws of the
// difference: the setup is the unit. Each setup's median log ratio of its pairs is one value; the
// verdict's interval is Student's t over the setups, so it holds the variance between setups as
// well as the noise of the pairs; the pairs still remove the drift inside a setup.

#include <vector>

#include "engine/analysis/comparison.h"

namespace nf::engine {

// base[i] and cand[i] form pair i, measured side by side in setup setups[i] (-1: none recorded;
// the pair is left out). Fewer than 2 setups give no interval and no spread, and say why.
Comparison compareAcrossSetups(const std::vector<double>& base, const std::vector<double>& cand,
                               const std::vector<int>& setups, const CompareOptions& options);

}  // namespace nf::engine
