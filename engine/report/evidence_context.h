#pragma once
// The header, design note and warnings a comparison report carries, taken from stored runs.

#include <string>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/model/run_record.h"
#include "engine/report/evidence.h"

namespace nf::engine {

// The command that made the run, as typed (or rebuilt from the spec for runs that lack it).
std::string runCommandLine(const RunRecord& run);

// A live run's design: "live design: side by side in chunks; 0.52% of packets at switches in no
// chunk (N); the variants traded 2 places (pps against place 1: place 2 +0.58%)" or
// "live design: repetitions: <why>"; "" for other runs.
std::string liveDesignLine(const RunRecord& run);

// One run's variants against each other.
EvidenceContext contextForRun(const RunRecord& run, const AnalysisInput& input);

// Variants of several runs (e.g. vanilla and patched kernels) against each other.
EvidenceContext contextForRuns(const std::vector<const RunRecord*>& runs);

// Shell-quotes one argument where it needs it.
std::string shellQuote(const std::string& arg);

}  // namespace nf::engine
