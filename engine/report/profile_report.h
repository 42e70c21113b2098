#pragma once
// Where the time went, as a reviewer reads it: the profile's summary (how it was taken, what it
// cost) and, per comparison, the symbols whose share of a CPU's samples changed (q below alpha),
// within 72 columns; in JSON every compared symbol with its interval and q-value.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "engine/analysis/profile_diff.h"
#include "engine/model/profile.h"

namespace nf::engine {

// "profile: cpu-clock at 499 Hz on CPU 1 (worker); 12051 samples in chunks, 589 between them
// (left out), 0 lost; the ring reader took 0.008 s of CPU 0" (wrapped to 72 columns).
std::vector<std::string> profileSummaryLines(const ProfileSummary& summary);

void writeProfileText(const ProfileSummary& summary, const std::vector<ProfileComparison>& comparisons, double alpha,
                      std::ostream& out);

nlohmann::json profileSummaryJson(const ProfileSummary& summary);
// One row per compared symbol and CPU: symbol, cpu, role, share_pct {baseline, candidate},
// delta_pp, ci_low_pp, ci_high_pp, q_value, p_value, units, ns_per_op {baseline, candidate}.
nlohmann::json profileRowsJson(const ProfileComparison& comparison);

}  // namespace nf::engine
