#pragma once
// A profile's samples placed in the chunks of a repetition: a sample belongs to the chunk (one
// variant's measuring interval) whose [start, start + duration) holds its time. What run --profile
// does after each repetition (engine/run/profile_stage.h), and what an import of perf script does
// with each file or time slice (engine/import/perf_script_import.cpp), whose one chunk is the file.

#include <string>
#include <vector>

#include "engine/model/profile.h"
#include "engine/model/run_data.h"

namespace nf::engine {

// A sample named and placed in run time: seconds from the run's time 0, its frames leaf first.
struct NamedSample {
    double seconds = 0;
    int cpu = -1;
    std::vector<std::string> frames;
};

// How much of a repetition's profile is kept: the top symbols and the top stacks of each CPU (the
// same for every variant); the rest is summed as kOtherSymbol.
struct ProfileBounds {
    std::size_t symbolsPerCpu = 64;
    std::size_t stacksPerCpu = 512;
};

// The samples of `rep` placed in its chunks (a sample belongs to the chunk whose [start, start +
// duration) holds its time); those in no chunk counted in `outside`.
RepetitionProfile attributeSamples(const RepetitionResult& rep, const std::vector<NamedSample>& samples,
                                   const ProfileBounds& bounds = {});

}  // namespace nf::engine
