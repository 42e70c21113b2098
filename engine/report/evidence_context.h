#pragma once
// The header, design note and warnings a comparison report carries, taken from stored runs.

#include <string>
#include <vector>

#include "base/shell_quote.h"
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

// Where a live run's harness (its sampler and recorder) ran and, from its samples, how often it
// woke and how much CPU it took between each sample's two readings: "harness on the measured CPUs
// 0-1 (no other CPU allowed): 20.1 wakeups/s, 0.42% of one CPU inside samples"; "" for other runs
// and runs stored before the harness was counted.
std::string harnessLine(const RunRecord& run);

// One run's variants against each other.
EvidenceContext contextForRun(const RunRecord& run, const AnalysisInput& input);

// Variants of several runs (e.g. vanilla and patched kernels) against each other.
EvidenceContext contextForRuns(const std::vector<const RunRecord*>& runs);

// Shell-quotes one argument where it needs it.
using nf::shellQuote;

// A shell command within `width` columns, to be pasted back into a shell: `lead` ("$ ", "run 3
// 'vanilla': $ ") and the command's words, broken between words with " \" at the end of every
// line but the last and the lines after the first indented by four spaces (an option and its value
// kept on one line). A word too long for an indented line starts a line of its own unindented; one
// too long for any line is broken inside it, with "\" at the end and its rest at the start of the
// next line (a single quote closed before the break and opened again after it), so the shell reads
// the same words.
std::vector<std::string> commandLines(const std::string& lead, const std::string& command, std::size_t width);

// A line of a report's header within `width` columns, nothing cut: a command ("$ " and what
// follows) by commandLines, anything else wrapped at its words, the lines after the first
// indented by `indent`.
std::vector<std::string> headerLines(const std::string& line, std::size_t width, const std::string& indent);

// What an in-process workload's results are, the line its reports open with: "user-space model of
// net/core/page_pool.c: page_pool_dma_sync_for_device" (the catalogue's `models`); "" for a
// workload measured on live traffic or by its own process.
std::string modelLine(const std::string& workload);

}  // namespace nf::engine
