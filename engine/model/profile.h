#pragma once
// A run's profile (run --profile): where the sampled CPUs spent their time, per chunk, so that the
// paired design of the run applies to it. What the sampler took, attributed to the chunk (a
// variant's measurement interval) that ran at the sample's time on the measured CPUs; samples taken
// between chunks (warm-up, set-up, the gap between two chunks) are counted as outside and left out.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nf::engine {

// A sampled CPU and what it does in the run: "worker" (the measuring thread of an in-process
// workload), "rx" (a live test's receiving CPU), "tx" (its generator's) or "rx+tx". An imported
// profile pools its CPUs: cpu -1, the role naming them ("all CPUs", "CPU 2,3").
struct ProfileCpu {
    int cpu = -1;
    std::string role;
};

// The samples of one chunk (variant, repetition, sample index) on one CPU.
struct ProfileChunk {
    int variant = 0;
    int repetition = 0;
    int index = 0;
    int cpu = -1;
    int samples = 0;
};

// The samples of one chunk on one CPU whose interrupted instruction was in `symbol` (an index into
// the symbol list it comes with); the symbols beyond the kept ones are summed as kOtherSymbol.
struct ProfileCount {
    int variant = 0;
    int repetition = 0;
    int index = 0;
    int cpu = -1;
    int symbol = 0;
    int samples = 0;
};

// Call stacks, folded (root first, frames joined by ';', as flamegraph.pl reads them), per variant,
// repetition and CPU; the stacks beyond the kept ones are summed as kOtherSymbol.
struct ProfileStack {
    int variant = 0;
    int repetition = 0;
    int cpu = -1;
    std::string stack;
    int samples = 0;
};

inline constexpr const char* kOtherSymbol = "[other]";

// A symbol as a frame of a folded stack: ';' separates frames and a space ends the stack there,
// so they become ':' and '_' ("veth_xdp_rcv [veth]" -> "veth_xdp_rcv_[veth]").
inline std::string foldedFrame(std::string symbol)
{
    for (char& c : symbol) {
        c = c == ';' ? ':' : c == ' ' ? '_' : c;
    }
    return symbol;
}

// --profile's rates: perf_event_max_sample_rate caps them further on a given machine.
inline constexpr int kMinProfileHz = 10;
inline constexpr int kMaxProfileHz = 20000;
// 499 (prime, so that it does not beat with millisecond timers): what it costs is in
// docs/benchmarks.md, "What profiling costs".
inline constexpr int kDefaultProfileHz = 499;

// How the profile was taken.
struct ProfileSummary {
    std::string event;  // "cycles" or "cpu-clock" (an import: what perf recorded, "cycles:u")
    int hz = 0;
    std::vector<ProfileCpu> cpus;
    std::uint64_t samples = 0;      // attributed to a chunk
    std::uint64_t outside = 0;      // taken between chunks, left out
    std::uint64_t lost = 0;         // records the kernel dropped (the ring was full)
    double readerSeconds = 0;       // CPU time of the thread that read the rings
    bool readerOnMeasured = false;  // no CPU but the measured ones to read on
    std::string source{};           // "" for run --profile, else the importer ("perf-script", "perf-report")
};

// One repetition's profile, as the run stores it.
struct RepetitionProfile {
    int repetition = 0;
    std::vector<std::string> symbols;  // ProfileCount::symbol indexes it
    std::vector<ProfileChunk> chunks;
    std::vector<ProfileCount> counts;
    std::vector<ProfileStack> stacks;
    std::uint64_t outside = 0;
    std::uint64_t lost = 0;  // an import's: what perf reported lost in the file this repetition is
};

// A profile complete before it is stored (an import of perf script or perf report): how it was
// taken, and each repetition's, as run --profile stores them repetition by repetition.
struct ProfileRecording {
    ProfileSummary summary;
    std::vector<RepetitionProfile> repetitions;
};

// A stored run's profile.
struct RunProfile {
    ProfileSummary summary;
    std::vector<std::string> symbols;
    std::vector<ProfileChunk> chunks;
    std::vector<ProfileCount> counts;
    std::vector<ProfileStack> stacks;

    // What `cpu` does in the run; "" when it was not sampled.
    std::string roleOf(int cpu) const
    {
        for (const auto& c : summary.cpus) {
            if (c.cpu == cpu) {
                return c.role;
            }
        }
        return "";
    }
    // The folded stacks summed over the repetitions, per variant (by index); with `cpuFrame` the
    // sampled CPU as the stack's first frame ("cpu1-rx"; a pooled profile's role: "all_CPUs").
    std::map<int, std::map<std::string, long long>> foldedByVariant(bool cpuFrame) const;
};

}  // namespace nf::engine
