#pragma once
// Shared fixtures for the data tests: a temporary directory and a hand-built run.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/model/metric.h"
#include "engine/model/run_data.h"
#include "tests/support/temp_dir.h"

namespace nf::data::test {

using nf::test::TempDir;

inline std::string hostName()
{
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    return name;
}

// A copy of a database fixture (tests/data/fixtures/) in `dir`, to open and upgrade.
inline std::string copyOfFixture(const TempDir& dir, const char* fixture, const std::string& name)
{
    std::string path = dir.file(name);
    std::filesystem::copy_file(fixture, path);
    return path;
}

// A pid that belonged to a process which has exited and been reaped.
inline pid_t deadPid()
{
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    int status = 0;
    waitpid(child, &status, 0);
    return child;
}

inline engine::RunStart makeRunStart(const std::string& label = "round trip")
{
    engine::RunStart start;
    start.spec.workload = "spin";
    start.spec.label = label;
    start.spec.params = {{"work", "100"}};
    start.spec.variants = {{"a", {}}, {"b", {{"work", "200"}}}};
    start.spec.repetitions = 2;
    start.spec.seed = 42;
    start.variantParams = {{{"work", 100}}, {{"work", 200}}};
    start.layout.quantities = {engine::quantity::kOps, engine::quantity::kTscTicks, engine::quantity::kElapsedNs};
    start.layout.metrics = engine::callLoopMetrics(start.layout.quantities);
    start.environment = {
        {"system", {{"hostname", hostName()}, {"kernel_release", "6.1.0-test"}, {"cpu_model", "Test CPU @ 3.00GHz"}}},
        {"tsc_hz", 3e9}};
    return start;
}

// Repetition `index`: each variant in turn runs `perVariant` samples, alternating in pairs.
inline engine::RepetitionResult makeRepetition(int index, int perVariant = 3, double t0 = 0.0)
{
    engine::RepetitionResult rep;
    rep.index = index;
    rep.variants = {index % 2, 1 - index % 2};
    rep.start = t0;
    double t = t0;
    for (int i = 0; i < perVariant; ++i) {
        for (int variant : rep.variants) {
            engine::Sample s;
            s.variant = variant;
            s.repetition = index;
            s.index = i;
            s.pair = i;
            s.start = t;
            s.duration = 0.01 + 0.001 * i;
            double ops = 1000.0 + 10.0 * i + 100.0 * variant + index;
            s.values = {ops, ops * (30.5 + variant), ops * (10.25 + variant) + 0.5};
            rep.samples.push_back(s);
            t += s.duration;
        }
    }
    rep.end = t;
    return rep;
}

}  // namespace nf::data::test
