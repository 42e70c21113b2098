#pragma once
// The header, design note and warnings a comparison report carries, taken from stored runs.

#include <string>
#include <vector>

#include "analysis.h"
#include "evidence.h"
#include "run_store.h"

namespace nf::cli {

// The command that made the run, as typed (or rebuilt from the spec for runs that lack it).
std::string runCommandLine(const data::StoredRun& run);

// One run's variants against each other.
engine::EvidenceContext contextForRun(const data::StoredRun& run, const engine::AnalysisInput& input);

// Variants of several runs (e.g. vanilla and patched kernels) against each other.
engine::EvidenceContext contextForRuns(const std::vector<const data::StoredRun*>& runs);

// Shell-quotes one argument where it needs it.
std::string shellQuote(const std::string& arg);

}  // namespace nf::cli
