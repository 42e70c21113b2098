#pragma once
// RAII owner of perf_event_open counters for one thread or one CPU.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "probes/event_spec.h"
#include "probes/result.h"

namespace nf::probes {

// Where the counters count.
struct CounterTarget {
    enum class Kind { Thread, Cpu };
    Kind kind = Kind::Thread;
    pid_t tid = 0;  // Thread: 0 means the calling thread
    int cpu = -1;   // Cpu: the CPU counted system-wide (like `perf stat -C`)

    static CounterTarget callingThread() { return {Kind::Thread, 0, -1}; }
    static CounterTarget thread(pid_t tid) { return {Kind::Thread, tid, -1}; }
    static CounterTarget onCpu(int cpu) { return {Kind::Cpu, -1, cpu}; }
    std::string describe() const;  // "thread 1234", "cpu 3"
};

// Why an event is not counted.
struct UnsupportedEvent {
    std::string name;
    std::string reason;  // "perf_event_open: No such file or directory (no hardware PMU on this machine)"
};

// One read of every open counter.
struct CounterReading {
    std::vector<double> values;        // scaled by enabled/running, same order as CounterGroup::names()
    std::vector<double> runningRatio;  // time_running / time_enabled per counter, 1.0 = never multiplexed
};

// Counters opened as perf event groups (software events in one group, hardware events in groups of
// at most kMaxHardwarePerGroup so that each group fits the PMU), read with
// PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING. Kernel and user mode are counted;
// where the kernel refuses kernel-mode counting (EACCES with perf_event_paranoid >= 2), the counter
// is opened user-only and names() marks it with a ":u" suffix.
// An event that will not open is listed in unsupported() with the reason; the others still count.
// Move-only; closes its fds on destruction.
class CounterGroup {
public:
    static constexpr int kMaxHardwarePerGroup = 4;

    // Opens and enables the counters. Fails only for an invalid target (no such thread or CPU);
    // events that do not open are listed in unsupported() and the rest count.
    static Result<CounterGroup> open(const std::vector<EventSpec>& events, CounterTarget target);

    CounterGroup(CounterGroup&&) noexcept;
    CounterGroup& operator=(CounterGroup&&) noexcept;
    CounterGroup(const CounterGroup&) = delete;
    CounterGroup& operator=(const CounterGroup&) = delete;
    ~CounterGroup();

    const std::vector<std::string>& names() const;  // counters that opened, in reading order
    const std::vector<UnsupportedEvent>& unsupported() const;
    const CounterTarget& target() const;

    // Reads all groups; retries on EINTR. Values are cumulative since open().
    Result<CounterReading> read() const;

private:
    struct Impl;
    explicit CounterGroup(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

// Difference of two cumulative readings (b - a), per counter.
std::vector<double> delta(const CounterReading& a, const CounterReading& b);

}  // namespace nf::probes
