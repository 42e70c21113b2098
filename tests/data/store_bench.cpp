// Benchmark, not a test: records a synthetic run through RunRecorder and times loadRun.
//
//   data_store_bench [samples] [database]
//
// samples defaults to 1,000,000: 2 variants alternating, 7 quantities, repetitions of 10,000
// samples. Without a database path the run goes to a temporary file that is removed afterwards;
// a given path is replaced and kept.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "data/run_store.h"
#include "data/schema.h"
#include "tests/data/data_test_support.h"

namespace {

using nf::engine::RepetitionResult;
using nf::engine::Sample;
using Clock = std::chrono::steady_clock;

constexpr int kSamplesPerRepetition = 10000;
constexpr double kChunkSeconds = 0.001;

int fail(const std::string& message)
{
    (void)std::fprintf(stderr, "data_store_bench: %s\n", message.c_str());
    return 1;
}

double seconds(Clock::time_point from, Clock::time_point to)
{
    return std::chrono::duration<double>(to - from).count();
}

nf::engine::RunStart benchStart()
{
    nf::engine::RunStart start = nf::data::test::makeRunStart("store bench");
    start.layout.quantities = {nf::engine::quantity::kOps,
                               nf::engine::quantity::kTscTicks,
                               nf::engine::quantity::kElapsedNs,
                               "cycles",
                               "instructions",
                               "branch-misses",
                               "cache-misses"};
    start.layout.metrics = nf::engine::callLoopMetrics(start.layout.quantities);
    start.variantParams = {{{"work", "100"}}, {{"work", "200"}}};  // as the engine resolves them: strings
    return start;
}

// The values of the run's sample number `n`, of `variant`: plausible magnitudes, variant b 2%
// slower, every 997th cache-misses missing.
std::vector<double> valuesOf(std::int64_t n, int variant)
{
    const double slower = variant == 1 ? 1.02 : 1.0;
    const double ops = 1000.0 + static_cast<double>((n * 7919) % 101);
    const double jitter = static_cast<double>((n * 104729) % 1009) / 1009.0;
    return {ops,
            ops * (30.0 + jitter) * slower,
            ops * (10.0 + jitter / 3.0) * slower,
            ops * (29.0 + jitter) * slower,
            ops * 95.5,
            ops * 0.01 * jitter,
            n % 997 == 0 ? std::nan("") : ops * 0.002 * (1.0 + jitter)};
}

// Repetition `index` of `count` samples, the two variants alternating chunk by chunk.
RepetitionResult makeRepetition(int index, int count, std::int64_t first)
{
    RepetitionResult rep;
    rep.index = index;
    rep.variants = {index % 2, 1 - index % 2};
    rep.start = static_cast<double>(first) * kChunkSeconds;
    rep.samples.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        const std::int64_t n = first + i;
        Sample& s = rep.samples.emplace_back();
        s.variant = rep.variants[static_cast<std::size_t>(i % 2)];
        s.repetition = index;
        s.index = i / 2;
        s.pair = i / 2;
        s.start = static_cast<double>(n) * kChunkSeconds;
        s.duration = kChunkSeconds * 0.95;
        s.values = valuesOf(n, s.variant);
    }
    rep.end = static_cast<double>(first + count) * kChunkSeconds;
    return rep;
}

bool sameValues(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t q = 0; q < a.size(); ++q) {
        if (std::isnan(a[q]) ? !std::isnan(b[q]) : a[q] != b[q]) {
            return false;
        }
    }
    return true;
}

std::uintmax_t fileSize(const std::string& path)
{
    std::error_code ec;
    std::uintmax_t size = std::filesystem::file_size(path, ec);
    return ec ? 0 : size;
}

struct Figures {
    double record = 0;     // seconds
    double firstLoad = 0;  // seconds
    double bestLoad = 0;   // seconds, of 3
};

// Records the run into a new database at `path`, then loads it three times.
nf::Result<Figures> measure(std::int64_t total, const std::string& path)
{
    auto db = NF_TRY(nf::data::openStore(path));
    Figures figures;
    nf::data::RunRecorder recorder(db);
    const auto r0 = Clock::now();
    NF_TRY(recorder.runStarted(benchStart()));
    for (std::int64_t first = 0, rep = 0; first < total; first += kSamplesPerRepetition, ++rep) {
        const auto count = static_cast<int>(std::min<std::int64_t>(kSamplesPerRepetition, total - first));
        NF_TRY(recorder.repetitionFinished(makeRepetition(static_cast<int>(rep), count, first)));
    }
    recorder.runFinished(nf::engine::RunStatus::Complete, "");
    figures.record = seconds(r0, Clock::now());

    for (int attempt = 0; attempt < 3; ++attempt) {
        const auto l0 = Clock::now();
        const auto run = NF_TRY(nf::data::loadRun(db, recorder.runId()));
        const double took = seconds(l0, Clock::now());
        figures.firstLoad = attempt == 0 ? took : figures.firstLoad;
        figures.bestLoad = attempt == 0 ? took : std::min(figures.bestLoad, took);
        const nf::engine::RunTable& samples = run.data.samples;
        if (samples.size() != static_cast<std::size_t>(total)) {
            return nf::Error{"loaded " + std::to_string(samples.size()) + " samples, recorded " +
                             std::to_string(total)};
        }
        for (std::size_t i = 0; i < samples.size(); i += 9973) {
            const Sample sample = samples.sample(i);
            if (!sameValues(sample.values, valuesOf(static_cast<std::int64_t>(i), sample.variant))) {
                return nf::Error{"sample " + std::to_string(i) + " came back with other values"};
            }
        }
    }
    return figures;
}

int runBench(std::int64_t total, const std::string& path)
{
    for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
        std::error_code ec;
        std::filesystem::remove(file, ec);
    }
    auto figures = measure(total, path);  // closing the database checkpoints its WAL into the file
    if (!figures) {
        return fail(figures.error().message);
    }
    const std::uintmax_t bytes = fileSize(path) + fileSize(path + "-wal");
    std::printf("samples:        %lld (2 variants, 7 quantities, %d per repetition)\n", static_cast<long long>(total),
                kSamplesPerRepetition);
    std::printf("database size:  %.1f MB (%.1f bytes/sample)\n", static_cast<double>(bytes) / 1e6,
                static_cast<double>(bytes) / static_cast<double>(std::max<std::int64_t>(total, 1)));
    std::printf("record:         %.3f s\n", figures->record);
    std::printf("load:           %.3f s (first), %.3f s (best of 3)\n", figures->firstLoad, figures->bestLoad);
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    std::int64_t total = 1000000;
    if (argc > 1) {
        char* end = nullptr;
        total = std::strtoll(argv[1], &end, 10);
        if (end == argv[1] || *end != '\0' || total < 0) {
            (void)std::fprintf(stderr, "usage: data_store_bench [samples] [database]\n");
            return 2;
        }
    }
    if (argc > 2) {
        return runBench(total, argv[2]);
    }
    nf::data::test::TempDir dir;
    if (dir.path().empty()) {
        return fail("cannot create a temporary directory");
    }
    return runBench(total, dir.file("bench.db"));
}
