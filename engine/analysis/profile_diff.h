#pragma once
// Where the time went: two variants' profiles (run --profile) compared symbol by symbol, on each
// sampled CPU. A symbol's share is the fraction of a CPU's samples whose interrupted instruction
// was in it. The unit is the run's pair: the chunk pair of an alternating run (a variant's chunk
// and the other's of the same round, so what drifts cancels), else the repetition; where the
// verdict rests on code placements or setups, the placement cell or the setup. The estimate is
// the difference of the two shares over the units both variants have samples in (ratios of sums:
// shares of time); its standard error is the ratio estimator's, linearised per unit and paired,
// floored at the multinomial sampling error of the pooled share; the interval is Student's t with
// units - 1 degrees of freedom. The p-values of every (symbol, CPU) row of one comparison are
// adjusted together by Benjamini and Hochberg (q-values: the false discovery rate among the rows
// called changed).
// Profile rows carry q-values, never verdicts: they say where, not whether.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/interval.h"
#include "engine/model/run_data.h"

namespace nf::engine {

struct ProfileRow {
    std::string symbol;
    int cpu = -1;
    std::string role;             // what the CPU does in the run (ProfileCpu::role)
    double baselineSharePct = 0;  // share of the CPU's samples in the baseline's chunks
    double candidateSharePct = 0;
    double deltaPp = 0;  // candidate minus baseline, percentage points
    double lowPp = 0;    // 1 - alpha Student t interval of deltaPp; NaN below two units
    double highPp = 0;
    double p = 1;  // t test of deltaPp against 0; NaN below two units
    double q = 1;  // Benjamini-Hochberg over the comparison's rows
    std::size_t units = 0;
    // Across runs: summed as [other] in some unit (a run that kept fewer symbols, a report cut
    // short), so its count there is unknown: that side's share and the difference NaN, no interval.
    bool partial = false;
    // Time per operation in the symbol (share x the variant's time per operation: ns_per_op, or 1e9
    // / the packet rate of a live test); NaN when the run has neither.
    double baselineNsPerOp = 0;
    double candidateNsPerOp = 0;
};

struct ProfileComparison {
    std::string baseline;
    std::string candidate;
    std::string unit;  // "chunk pair", "repetition", "placement cell", "setup"; across runs "run" or "repetition"
    std::vector<ProfileRow> rows;  // by q, then by the size of the change
};

struct ProfileOptions {
    double alpha = 0.05;
    std::size_t symbolsPerCpu = 30;  // the most sampled of the two variants' symbols on each CPU
    // The design the verdict rests on: where code layout or the setups of a live run are a factor
    // (Design::Layouts, Design::Setups), the chunk pairs of one placement cell or one setup share its
    // draw, and the unit is the cell or the setup instead; unset or another design: the chunk pair.
    std::optional<Design> design;
};

// `baseline` and `candidate` index data.variantNames; data.profile must be set.
ProfileComparison compareProfiles(const RunData& data, int baseline, int candidate, const ProfileOptions& options = {});

// What a sampled CPU does, as runs are matched by: its role ("rx", "worker"), "pooled" for a
// pooled profile (an import), which matches the other side's whichever CPUs each pools.
std::string roleAcrossRuns(const RunProfile& profile, int cpu);

// One variant of a run, on one side of a comparison across runs; data.profile must be set.
struct ProfileRun {
    const RunData* data = nullptr;
    int variant = 0;
};

// Where the time went between runs (labels, boots; imports of perf script, one per boot): the
// sides are independent, so the difference of the shares has the standard error of two
// independent ratio estimators (Welch: each side's linearised variance over its units, Satterthwaite's
// degrees of freedom), floored at the multinomial sampling error as compareProfiles does. The unit
// is the run where both sides have several, else the repetition (an import's file, or slice). CPUs
// are matched by what they do (roleAcrossRuns): a row's cpu is -1 and its role names the CPU; both
// sides must sample the same event. Below two units on a side there is no interval.
ProfileComparison compareProfilesAcross(const std::string& baseline, const std::vector<ProfileRun>& base,
                                        const std::string& candidate, const std::vector<ProfileRun>& cand,
                                        const ProfileOptions& options = {});

}  // namespace nf::engine
