#pragma once
// Statistical profiling of whole CPUs: perf_event_open sampling (cycles where a hardware PMU
// exists, else the cpu-clock software event) with kernel and user call chains, one event and one
// mmap ring per CPU, drained by a reader thread of its own. Every sample carries its CPU, process,
// thread and a CLOCK_MONOTONIC_RAW time stamp; the reader also keeps pairs of (TSC,
// CLOCK_MONOTONIC_RAW) read together, from which a sample's time converts to the TSC that runners
// measure chunks with (CpuSampler::tscAt). What the samples are attributed to is the caller's.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"

namespace nf::probes {

struct ProfileSample {
    int cpu = -1;
    std::uint32_t pid = 0;
    std::uint32_t tid = 0;
    std::uint64_t timeNs = 0;  // CLOCK_MONOTONIC_RAW
    // Return addresses, the interrupted instruction first, kernel frames before user ones; the
    // kernel's context markers are removed (kernel addresses are those of the upper half).
    std::vector<std::uint64_t> chain;
};

// A TSC value and the CLOCK_MONOTONIC_RAW time read between two reads of it.
struct ClockPair {
    std::uint64_t tsc = 0;
    std::uint64_t rawNs = 0;
};
ClockPair readClockPair();

// What a sampler took so far: its samples and the records the kernel lost (a full ring).
struct SamplerDrain {
    std::vector<ProfileSample> samples;
    std::uint64_t lost = 0;
};

class CpuSampler {
public:
    // Opens one sampling event per CPU of `cpus` at `hz` samples a second, disabled. The reader
    // thread starts at once and runs on `readerCpus` (any CPU when empty). Fails with one line when
    // the kernel refuses (not root, perf_event_paranoid, no such CPU).
    static Result<std::unique_ptr<CpuSampler>> open(const std::vector<int>& cpus, int hz,
                                                    const std::vector<int>& readerCpus);
    ~CpuSampler();
    CpuSampler(const CpuSampler&) = delete;
    CpuSampler& operator=(const CpuSampler&) = delete;

    void enable();
    void disable();  // and drains every ring once more
    // Drains every ring now, rather than at the reader's next wakeup.
    void flush();
    // The samples taken since the last call whose time is at or before `untilNs` (all with the
    // default); later ones stay for the next call.
    SamplerDrain take(std::uint64_t untilNs = UINT64_MAX);
    // The TSC at CLOCK_MONOTONIC_RAW time `rawNs`, interpolated between the clock pairs around it.
    std::uint64_t tscAt(std::uint64_t rawNs) const;

    const std::string& event() const { return m_event; }  // "cycles" or "cpu-clock"
    int hz() const { return m_hz; }
    pid_t readerTid() const { return m_readerTid.load(); }
    // The reader thread's CPU time so far (schedstat), seconds.
    double readerSeconds() const;

private:
    struct Ring;
    CpuSampler() = default;
    void readLoop(const std::stop_token& stop, const std::vector<int>& readerCpus);

    std::string m_event;
    int m_hz = 0;
    std::vector<std::unique_ptr<Ring>> m_rings;
    mutable std::mutex m_mutex;  // what the reader collects
    std::vector<ProfileSample> m_pending;
    std::vector<ClockPair> m_pairs;
    std::uint64_t m_lost = 0;
    std::mutex m_drainMutex;  // one drain of the rings at a time
    std::atomic<pid_t> m_readerTid{0};
    std::jthread m_reader;
};

}  // namespace nf::probes
