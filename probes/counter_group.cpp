#include "probes/counter_group.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "base/system_facts.h"

namespace nf::probes {

namespace {

constexpr std::uint64_t kReadFormat =
    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;

int perfEventOpen(perf_event_attr* attr, pid_t pid, int cpu, int groupFd)
{
    return static_cast<int>(syscall(SYS_perf_event_open, attr, pid, cpu, groupFd, PERF_FLAG_FD_CLOEXEC));
}

std::string currentParanoid()
{
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    std::string value;
    return in >> value ? value : std::string("unknown");
}

// A plain explanation of why perf_event_open failed, for the common cases.
std::string explain(int err, const EventSpec& spec, const CounterTarget& target)
{
    const bool cpuTarget = target.kind == CounterTarget::Kind::Cpu;
    switch (err) {
        case ENOENT:
        case EOPNOTSUPP:
            if (spec.hardware) {
                return "no hardware PMU on this machine, e.g. a VM without vPMU; or the PMU lacks this event";
            }
            return "the kernel does not provide this event";
        case EACCES:
        case EPERM:
            return "not permitted: kernel.perf_event_paranoid is " + currentParanoid() +
                   "; lower it (sysctl kernel.perf_event_paranoid=-1) or grant CAP_PERFMON (or CAP_SYS_ADMIN)";
        case ESRCH: return "thread " + std::to_string(target.tid) + " does not exist (it may have exited)";
        case EINVAL:
            if (cpuTarget) {
                return "the kernel rejected the event for cpu " + std::to_string(target.cpu) +
                       " (bad config, or the PMU cannot count it system-wide on that CPU)";
            }
            return "the kernel rejected the event configuration (bad config or modifiers for this PMU)";
        case ENODEV: return "this PMU does not support the event on this CPU";
        case EBUSY:
            return "the counter is held exclusively by another user (e.g. the NMI watchdog or another profiler)";
        case EMFILE:
        case ENFILE: return "too many open files";
        case ENOSPC: return "no free hardware counter for it";
        default: return "perf_event_open failed";
    }
}

UnsupportedEvent unsupportedFor(const EventSpec& spec, const CounterTarget& target, int err)
{
    return UnsupportedEvent{spec.name,
                            "perf_event_open: " + nf::errnoText(err) + " (" + explain(err, spec, target) + ")"};
}

// Groups of hardware events must share a PMU; generic, cache and raw events all go to the core PMU.
std::uint32_t pmuKey(const EventSpec& spec)
{
    const bool core = spec.type == PERF_TYPE_HARDWARE || spec.type == PERF_TYPE_HW_CACHE || spec.type == PERF_TYPE_RAW;
    return core ? static_cast<std::uint32_t>(PERF_TYPE_RAW) : spec.type;
}

Result<void> checkTarget(const CounterTarget& target)
{
    if (target.kind == CounterTarget::Kind::Thread) {
        if (target.tid < 0) {
            return Error{"invalid counter target: thread id " + std::to_string(target.tid), EINVAL};
        }
        const std::string tid = std::to_string(target.tid);
        if (target.tid != 0 && access(("/proc/self/task/" + tid).c_str(), F_OK) != 0 &&
            access(("/proc/" + tid).c_str(), F_OK) != 0) {
            return Error{"invalid counter target: no thread " + tid, ESRCH};
        }
        return {};
    }
    if (target.cpu < 0) {
        return Error{"invalid counter target: cpu " + std::to_string(target.cpu), EINVAL};
    }
    std::ifstream in("/sys/devices/system/cpu/online");
    std::string text;
    std::getline(in, text);
    bool ok = false;
    const std::vector<int> online = base::parseCpuList(text, &ok);
    if (ok && std::find(online.begin(), online.end(), target.cpu) == online.end()) {
        return Error{"invalid counter target: cpu " + std::to_string(target.cpu) +
                         " is not online (online: " + base::formatCpuList(online) + ")",
                     ENODEV};
    }
    if (!ok && target.cpu >= sysconf(_SC_NPROCESSORS_CONF)) {
        return Error{"invalid counter target: no cpu " + std::to_string(target.cpu), ENODEV};
    }
    return {};
}

}  // namespace

std::string CounterTarget::describe() const
{
    if (kind == Kind::Cpu) {
        return "cpu " + std::to_string(cpu);
    }
    return tid == 0 ? std::string("calling thread") : "thread " + std::to_string(tid);
}

ScaledCount scaleDelta(std::uint64_t count0, std::uint64_t enabled0, std::uint64_t running0, std::uint64_t count1,
                       std::uint64_t enabled1, std::uint64_t running1)
{
    const auto count = static_cast<double>(count1 - count0);
    const auto enabled = static_cast<double>(enabled1 - enabled0);
    const auto running = static_cast<double>(running1 - running0);
    if (enabled <= 0) {
        return {count, 1.0};  // no time passed: nothing to scale
    }
    if (running <= 0) {
        return {std::numeric_limits<double>::quiet_NaN(), 0.0};  // enabled, never scheduled
    }
    return {running >= enabled ? count : count * enabled / running, std::min(1.0, running / enabled)};
}

void scaledDeltas(const CounterReading& a, const CounterReading& b, std::vector<ScaledCount>& out)
{
    const std::size_t n = std::min(a.value.size(), b.value.size());
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = scaleDelta(a.value[i], a.enabled[i], a.running[i], b.value[i], b.enabled[i], b.running[i]);
    }
}

struct CounterGroup::Impl {
    struct Counter {
        int fd = -1;
        std::uint64_t id = 0;
        std::size_t group = 0;  // index into leaders
        std::size_t event = 0;  // index into the events asked for
        std::size_t slot = 0;   // index into names
    };

    struct Opened {
        int fd = -1;
        bool userOnly = false;
        int err = 0;
    };

    CounterTarget target;
    CounterMode mode = CounterMode::UserAndKernel;
    std::vector<std::string> names;
    std::vector<bool> hardware;
    std::vector<UnsupportedEvent> unsupported;
    std::vector<std::string> userOnly;
    std::vector<Counter> counters;
    std::vector<int> leaders;  // leader fd per group
    std::vector<std::size_t> groupSizes;
    std::optional<SimulatedCounters> simulated;
    std::vector<std::size_t> simulatedEvents;  // event index per simulated counter
    std::size_t maxGroupSize = 0;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl()
    {
        for (const Counter& counter : counters) {
            close(counter.fd);
        }
    }

    pid_t pid() const { return target.kind == CounterTarget::Kind::Cpu ? -1 : target.tid; }
    int cpu() const { return target.kind == CounterTarget::Kind::Cpu ? target.cpu : -1; }

    // Opens one event (disabled), falling back to user-only counting where kernel mode is refused.
    Opened openOne(const EventSpec& spec, int groupFd) const
    {
        perf_event_attr attr{};
        attr.size = sizeof(attr);
        attr.type = spec.type;
        attr.config = spec.config;
        attr.config1 = spec.config1;
        attr.config2 = spec.config2;
        // As perf does: only a leader starts disabled; siblings follow their leader's state. (Siblings
        // opened disabled and enabled through the leader with PERF_IOC_FLAG_GROUP counted nothing in
        // about one process in ten on the development VM's 6.18 kernel.)
        if (groupFd < 0) {
            attr.disabled = 1;
        }
        attr.exclude_hv = spec.hardware ? 1 : 0;  // the msr PMU rejects any exclude bit
        // Software events never: the kernel counts them in kernel code (a context switch with
        // exclude_kernel counts 0).
        const bool userMode = spec.hardware && mode == CounterMode::User;
        attr.exclude_kernel = userMode ? 1 : 0;
        attr.read_format = kReadFormat;
        Opened opened;
        opened.fd = perfEventOpen(&attr, pid(), cpu(), groupFd);
        if (opened.fd >= 0) {
            return opened;
        }
        opened.err = errno;
        if (!userMode && (opened.err == EACCES || opened.err == EPERM)) {
            attr.exclude_kernel = 1;
            const int fd = perfEventOpen(&attr, pid(), cpu(), groupFd);
            if (fd >= 0) {
                return Opened{fd, true, 0};
            }
            // Permitted user-only but absent: the absence is the real reason (no PMU), not permission.
            if (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV) {
                opened.err = errno;
            }
        }
        return opened;
    }

    // Opens `spec` as a sibling in group *group (when haveGroup) or, failing that or with no group yet,
    // as the leader of a new group. *group becomes the new group when there was none or when adopt.
    bool add(const EventSpec& spec, std::size_t event, std::size_t* group, bool haveGroup, bool adopt)
    {
        Opened opened;
        if (haveGroup) {
            opened = openOne(spec, leaders[*group]);
        }
        const bool alone = !haveGroup || opened.fd < 0;
        if (alone) {
            opened = openOne(spec, -1);  // a sibling failure is retried alone; report the alone error
        }
        if (opened.fd < 0) {
            unsupported.push_back(unsupportedFor(spec, target, opened.err));
            return false;
        }
        std::uint64_t id = 0;
        if (ioctl(opened.fd, PERF_EVENT_IOC_ID, &id) != 0) {
            unsupported.push_back({spec.name, "ioctl(PERF_EVENT_IOC_ID): " + nf::errnoText(errno)});
            close(opened.fd);
            return false;
        }
        std::size_t index = *group;
        if (alone) {
            leaders.push_back(opened.fd);
            groupSizes.push_back(0);
            index = leaders.size() - 1;
            if (!haveGroup || adopt) {
                *group = index;
            }
        }
        ++groupSizes[index];
        if (opened.userOnly) {
            userOnly.push_back(spec.name);
        }
        counters.push_back(Counter{opened.fd, id, index, event, 0});
        return true;
    }

    void openAll(const std::vector<EventSpec>& events, const SimulatedPmu* pmu)
    {
        if (pmu != nullptr) {
            simulated.emplace(*pmu);
        }
        // One group per PMU: the software events together; any other PMU (the msr PMU's tsc) in a group
        // of its own, since a tsc sibling of a software leader reads stale (tick-old or zero) values;
        // hardware PMUs in groups of at most kMaxHardwarePerGroup, a new leader when one is full.
        std::map<std::uint32_t, std::size_t> filling;  // PMU key -> group being filled
        for (std::size_t e = 0; e < events.size(); ++e) {
            const EventSpec& spec = events[e];
            if (simulated && spec.hardware) {
                if (isSimulatedEvent(spec)) {
                    simulated->add(spec, 0);
                    simulatedEvents.push_back(e);
                } else {
                    unsupported.push_back({spec.name,
                                           "not simulated (the simulated PMU makes up cycles, instructions, branches, "
                                           "branch-misses and cache-misses only)"});
                }
                continue;
            }
            const std::uint32_t key = pmuKey(spec);
            const auto it = filling.find(key);
            std::size_t group = it == filling.end() ? 0 : it->second;
            const bool join = it != filling.end() && (!spec.hardware || groupSizes[group] < kMaxHardwarePerGroup);
            if (add(spec, e, &group, join, spec.hardware)) {
                filling[key] = group;
            }
        }
    }

    // Enables every group through its leader; a group that will not enable is dropped.
    void enableAll(const std::vector<EventSpec>& events)
    {
        for (std::size_t group = 0; group < leaders.size(); ++group) {
            if (ioctl(leaders[group], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) == 0) {
                continue;
            }
            const std::string reason = "ioctl(PERF_EVENT_IOC_ENABLE): " + nf::errnoText(errno);
            for (std::size_t i = counters.size(); i-- > 0;) {
                if (counters[i].group == group) {
                    unsupported.push_back({events[counters[i].event].name, reason});
                    close(counters[i].fd);
                    counters.erase(counters.begin() + static_cast<std::ptrdiff_t>(i));
                }
            }
            groupSizes[group] = 0;
        }
    }

    // Names in the order the events were asked for; every counter learns its slot.
    void assignSlots(const std::vector<EventSpec>& events)
    {
        std::vector<std::size_t> opened;
        for (const Counter& c : counters) {
            opened.push_back(c.event);
        }
        opened.insert(opened.end(), simulatedEvents.begin(), simulatedEvents.end());
        std::sort(opened.begin(), opened.end());
        const auto slotOf = [&](std::size_t event) {
            return static_cast<std::size_t>(std::lower_bound(opened.begin(), opened.end(), event) - opened.begin());
        };
        for (std::size_t e : opened) {
            names.push_back(events[e].name);
            hardware.push_back(events[e].hardware);
        }
        for (Counter& c : counters) {
            c.slot = slotOf(c.event);
        }
        for (std::size_t i = 0; i < simulatedEvents.size(); ++i) {
            simulated->setSlot(i, slotOf(simulatedEvents[i]));
        }
        for (std::size_t size : groupSizes) {
            maxGroupSize = std::max(maxGroupSize, size);
        }
    }

    Result<void> readGroup(std::size_t group, CounterReading& reading) const
    {
        const std::size_t words = 3 + 2 * groupSizes[group];
        ssize_t got = -1;
        do {
            got = ::read(leaders[group], reading.words.data(), words * sizeof(std::uint64_t));
        } while (got < 0 && errno == EINTR);
        if (got < 0) {
            return Error::fromErrno("read perf counter group on " + target.describe());
        }
        const std::uint64_t* buffer = reading.words.data();
        if (static_cast<std::size_t>(got) < words * sizeof(std::uint64_t) || buffer[0] != groupSizes[group]) {
            return Error{"read perf counter group on " + target.describe() + ": short read (" + std::to_string(got) +
                             " bytes for " + std::to_string(groupSizes[group]) + " counters)",
                         0};
        }
        std::size_t found = 0;
        for (std::uint64_t k = 0; k < buffer[0]; ++k) {
            const std::uint64_t id = buffer[4 + 2 * k];
            for (const Counter& c : counters) {
                if (c.group == group && c.id == id) {
                    reading.value[c.slot] = buffer[3 + 2 * k];
                    reading.enabled[c.slot] = buffer[1];
                    reading.running[c.slot] = buffer[2];
                    ++found;
                }
            }
        }
        if (found != groupSizes[group]) {
            return Error{"read perf counter group on " + target.describe() + ": " + std::to_string(found) + " of " +
                             std::to_string(groupSizes[group]) + " counters in it",
                         0};
        }
        return {};
    }
};

CounterGroup::CounterGroup(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
CounterGroup::CounterGroup(CounterGroup&&) noexcept = default;
CounterGroup& CounterGroup::operator=(CounterGroup&&) noexcept = default;
CounterGroup::~CounterGroup() = default;

Result<CounterGroup> CounterGroup::open(const std::vector<EventSpec>& events, CounterTarget target,
                                        const SimulatedPmu* simulated, CounterMode mode)
{
    NF_TRY(checkTarget(target));
    auto impl = std::make_unique<Impl>();
    impl->target = target;
    impl->mode = mode;
    impl->openAll(events, simulated);
    impl->enableAll(events);
    impl->assignSlots(events);
    return CounterGroup(std::move(impl));
}

const std::vector<std::string>& CounterGroup::names() const
{
    static const std::vector<std::string> kNone;
    return m_impl ? m_impl->names : kNone;
}

const std::vector<UnsupportedEvent>& CounterGroup::unsupported() const
{
    static const std::vector<UnsupportedEvent> kNone;
    return m_impl ? m_impl->unsupported : kNone;
}

const std::vector<std::string>& CounterGroup::userOnly() const
{
    static const std::vector<std::string> kNone;
    return m_impl ? m_impl->userOnly : kNone;
}

const CounterTarget& CounterGroup::target() const
{
    static const CounterTarget kNone;
    return m_impl ? m_impl->target : kNone;
}

bool CounterGroup::simulated() const
{
    return m_impl && m_impl->simulated.has_value();
}

CounterMode CounterGroup::mode() const
{
    return m_impl ? m_impl->mode : CounterMode::UserAndKernel;
}

const std::vector<bool>& CounterGroup::hardware() const
{
    static const std::vector<bool> kNone;
    return m_impl ? m_impl->hardware : kNone;
}

CounterReading CounterGroup::reading() const
{
    CounterReading r;
    const std::size_t n = names().size();
    r.value.assign(n, 0);
    r.enabled.assign(n, 0);
    r.running.assign(n, 0);
    r.words.assign(3 + 2 * (m_impl ? m_impl->maxGroupSize : 0), 0);
    return r;
}

Result<void> CounterGroup::read(CounterReading& into) const
{
    if (!m_impl) {
        return Error{"read of a moved-from CounterGroup", 0};
    }
    const std::size_t n = m_impl->names.size();
    if (into.value.size() != n || into.enabled.size() != n || into.running.size() != n ||
        into.words.size() < 3 + 2 * m_impl->maxGroupSize) {
        return Error{"read perf counters on " + m_impl->target.describe() + ": a reading not made for this group", 0};
    }
    for (std::size_t group = 0; group < m_impl->leaders.size(); ++group) {
        if (m_impl->groupSizes[group] == 0) {
            continue;
        }
        NF_TRY(m_impl->readGroup(group, into));
    }
    if (m_impl->simulated && !m_impl->simulated->read(into.value, into.enabled, into.running)) {
        return Error{"read simulated counters on " + m_impl->target.describe() +
                         ": Input/output error (the failure --pmu simulated:fail_read asked for)",
                     EIO};
    }
    return {};
}

}  // namespace nf::probes
