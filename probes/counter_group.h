#pragma once
// RAII owner of perf_event_open counters for one thread or one CPU.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "probes/event_spec.h"
#include "probes/simulated_pmu.h"

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

// In which modes the hardware events count. Software events (task-clock, context-switches, ...)
// count user and kernel mode in either: the kernel counts them in kernel code, so excluding the
// kernel would make context-switches read 0 and hide every switch from the clean-chunk rule.
enum class CounterMode {
    UserAndKernel,
    User,  // hardware events with exclude_kernel: interrupts and ticks on the thread are not in them
};

// Why an event is not counted.
struct UnsupportedEvent {
    std::string name;
    std::string reason;  // "perf_event_open: No such file or directory (no hardware PMU on this machine)"
};

// One read of every open counter, in names() order: the raw count and its group's time enabled and
// time running (ns; the simulated PMU's are TSC ticks). The storage is the caller's: make it once
// with CounterGroup::reading() and pass it to every read(), which then allocates nothing.
struct CounterReading {
    std::vector<std::uint64_t> value;
    std::vector<std::uint64_t> enabled;
    std::vector<std::uint64_t> running;
    std::vector<std::uint64_t> words;  // the kernel's group read, the largest group's size
};

// One counter over the interval between two reads, scaled as perf scales it: the deltas of the raw
// count, time enabled and time running, then value = delta count * delta enabled / delta running.
// (Scaling the cumulative counts first and subtracting after is biased whenever the share of time
// the counter ran changes between the reads.)
struct ScaledCount {
    double value = 0;    // NaN when the counter was enabled but never ran in the interval
    double counted = 1;  // delta running / delta enabled: 1 = counted the whole interval
};
ScaledCount scaleDelta(std::uint64_t count0, std::uint64_t enabled0, std::uint64_t running0, std::uint64_t count1,
                       std::uint64_t enabled1, std::uint64_t running1);

// scaleDelta per counter from `a` to `b` into `out` (resized to the counters once; reuse it).
void scaledDeltas(const CounterReading& a, const CounterReading& b, std::vector<ScaledCount>& out);

// Counters opened as perf event groups (software events in one group, hardware events in groups of
// at most kMaxHardwarePerGroup so that each group fits the PMU), read with
// PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING. Kernel and user mode are counted,
// but for hardware events in CounterMode::User; where the kernel refuses kernel-mode counting
// (EACCES with perf_event_paranoid >= 2), the counter is opened user-only, keeps its name and is
// listed in userOnly() (a hardware event asked for in user mode is not listed: nothing was refused).
// With a SimulatedPmu, the events it makes up (simulated_pmu.h) come from it instead of the kernel,
// other hardware events are unsupported, and software events and the msr PMU's tsc still count.
// An event that will not open is listed in unsupported() with the reason; the others still count.
// Move-only; closes its fds on destruction.
class CounterGroup {
public:
    static constexpr int kMaxHardwarePerGroup = 4;

    // Opens and enables the counters. Fails only for an invalid target (no such thread or CPU);
    // events that do not open are listed in unsupported() and the rest count.
    static Result<CounterGroup> open(const std::vector<EventSpec>& events, CounterTarget target,
                                     const SimulatedPmu* simulated = nullptr,
                                     CounterMode mode = CounterMode::UserAndKernel);

    CounterGroup(CounterGroup&&) noexcept;
    CounterGroup& operator=(CounterGroup&&) noexcept;
    CounterGroup(const CounterGroup&) = delete;
    CounterGroup& operator=(const CounterGroup&) = delete;
    ~CounterGroup();

    const std::vector<std::string>& names() const;  // counters that opened, in reading order
    const std::vector<UnsupportedEvent>& unsupported() const;
    const std::vector<std::string>& userOnly() const;  // counters the kernel let count user mode only
    const CounterTarget& target() const;
    bool simulated() const;
    CounterMode mode() const;  // as asked for at open()
    // Per counter in names() order: whether it takes a PMU counter and can be multiplexed.
    const std::vector<bool>& hardware() const;

    // Storage for read(), sized for this group.
    CounterReading reading() const;
    // Reads every group into `into` (made by reading()); retries on EINTR; allocates nothing.
    // Values are cumulative since open(). A failed or short read is an error.
    Result<void> read(CounterReading& into) const;

private:
    struct Impl;
    explicit CounterGroup(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace nf::probes
