#pragma once
// Which chunks measured what they claim to: the one rule that leaves out chunks the measuring
// thread did not run through (switched out, or the whole CPU stalled), and each repetition's value
// over the chunks it keeps. The paired design, the repetition values of every other design
// (independent, across runs, under labels, series, calibrate --across-runs), the per-variant means
// and the until-decided monitor all take their chunks from here, so none can apply another rule.

#include <cstddef>
#include <vector>

#include "engine/model/metric.h"
#include "engine/model/run_data.h"

namespace nf::engine {

// Which chunks of a run are left out, of its pairs (with their partner) and of its repetition values: those the
// measuring thread was switched out of (quantity `contextSwitches` above zero; -1: not measured)
// and those that stalled (over 1.5x their variant's median chunk); none when a variant would lose
// more than 90% of its chunks (`keptAll`). Samples without a round (pair < 0) are not chunks. The
// fixed-n analysis (analysisInput) and the until-decided monitor (engine/run/until_decided.h) both
// take their chunk pairs from it, so the two cannot apply different rules.
struct ChunkCut {
    std::vector<bool> leftOut;  // per sample
    std::size_t chunks = 0;     // samples with a round
    std::size_t hit = 0;        // chunks the rule finds, also when keptAll keeps them
    bool keptAll = false;
    std::vector<std::size_t> chunksOf;  // per variant: its samples with a round
    std::vector<std::size_t> hitOf;     // per variant: its chunks the rule finds
};
ChunkCut preemptedChunks(const RunTable& samples, int contextSwitches, std::size_t variants);

// The cut of a stored run, by the context switches it counted (none when it did not count them).
ChunkCut chunkCut(const RunData& data);

// The metric's value per repetition of `variant`, over the chunks the cut keeps: the total of its
// numerator over the total of its denominator. A repetition with no chunk kept, or whose value is
// undefined, is skipped. Runs measured in fixed intervals rather than chunks keep every sample.
std::vector<double> repetitionValues(const RunData& data, const ChunkCut& cut, int variant, const MetricSpec& metric);

}  // namespace nf::engine
