#pragma once
// Exports of a stored run. Each writes to a stream and returns an Error when the stream failed
// (the stream is left failed, so a caller can also read its state); it never throws for that.

#include <ostream>

#include "base/result.h"
#include "data/run_store.h"

namespace nf::data {

// One row per sample: run, variant, repetition, sample, pair, start_s, duration_s, then one column
// per metric (value of that sample), then the raw quantities. RFC 4180 quoting. A run stored as
// perf stat -r summaries has instead one row per summary and quantity, marked "summary": run,
// variant, repetition, row, quantity, n, mean, se, stddev.
Result<void> writeCsv(const engine::RunRecord& run, std::ostream& out);

// The whole run: row fields, spec, environment, variants with parameters, layout, and samples
// (each with its quantities and metrics), as one JSON document; a run stored as summaries adds
// "stored_as": "summaries" and its "summaries" rows.
Result<void> writeJson(const engine::RunRecord& run, std::ostream& out);

// A profiled run's call stacks (run --profile), folded as flamegraph.pl and speedscope read them:
// one line per stack, "variant;cpuN-role;frame;...;frame count", root first, summed over the
// repetitions: the variant, then the sampled CPU and what it does ("cpu1-rx"), then the stack.
// Fails for a run without a profile.
Result<void> writeFolded(const engine::RunRecord& run, std::ostream& out);

}  // namespace nf::data
