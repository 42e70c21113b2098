#pragma once
// noisefloor lava collect: the runs that finished LAVA jobs uploaded, merged into this database
// (app/cli/lava_collect.cpp); the rest of `noisefloor lava` is in lava_command.cpp.

#include <string>

#include "app/cli/cli.h"
#include "engine/model/lab_facts.h"

namespace nf::cli {

using engine::kLabSection;
using engine::LabFacts;

struct CollectArgs {
    std::string dir;
};

// Merges every noisefloor-*.db in `a.dir` that holds a run with lab facts, once: a run already
// here is said and skipped, so collecting the same directory again stores nothing new.
int collectLabRuns(const CollectArgs& a, const Context& ctx);

}  // namespace nf::cli
