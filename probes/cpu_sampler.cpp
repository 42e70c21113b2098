#include "probes/cpu_sampler.h"

#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "base/result.h"
#include "probes/cpu_time.h"
#include "probes/tsc_clock.h"

namespace nf::probes {

namespace {

constexpr int kReadEveryMs = 50;
// A sample with a kernel and a user call chain takes 300 bytes to 1 KiB of the ring; a ring holds
// about a quarter of a second of them at the rate asked for (at least 512 KiB), five times the
// reader's period, so that a reader held off its CPU for a while loses nothing.
constexpr std::size_t kBytesPerSample = 1024;

std::size_t ringPages(int hz)
{
    const auto pageSize = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t want =
        std::max<std::size_t>(std::size_t{512} * 1024, static_cast<std::size_t>(hz) * kBytesPerSample / 4);
    std::size_t pages = 1;
    while (pages * pageSize < want) {
        pages *= 2;  // the kernel wants a power of two
    }
    return pages;
}
constexpr std::uint64_t kSampleType =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;

std::uint64_t rawNow()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

int perfEventOpen(perf_event_attr* attr, int cpu)
{
    return static_cast<int>(syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

perf_event_attr samplingAttr(std::uint32_t type, std::uint64_t config, int hz, std::size_t ringBytes)
{
    perf_event_attr attr{};
    attr.size = sizeof(attr);
    attr.type = type;
    attr.config = config;
    attr.freq = 1;
    attr.sample_freq = static_cast<std::uint64_t>(hz);
    attr.sample_type = kSampleType;
    attr.disabled = 1;
    attr.use_clockid = 1;
    attr.clockid = CLOCK_MONOTONIC_RAW;
    attr.watermark = 1;
    attr.wakeup_watermark = static_cast<std::uint32_t>(ringBytes / 4);
    return attr;
}

std::string explain(int err, int hz, int cpu)
{
    switch (err) {
        case EACCES:
        case EPERM: return "sampling whole CPUs needs root or CAP_PERFMON (perf_event_paranoid)";
        case ENODEV: return "no such CPU";
        case EINVAL: {
            if (cpu >= sysconf(_SC_NPROCESSORS_CONF)) {
                return "no such CPU";
            }
            std::ifstream in("/proc/sys/kernel/perf_event_max_sample_rate");
            long max = 0;
            if (in >> max && hz > max) {
                return "the rate is above kernel.perf_event_max_sample_rate, " + std::to_string(max);
            }
            return "the kernel refused the event";
        }
        default: return "perf_event_open failed";
    }
}

}  // namespace

ClockPair readClockPair()
{
    ClockPair best;
    std::uint64_t tightest = UINT64_MAX;
    for (int i = 0; i < 3; ++i) {
        const auto before = readTsc();
        const auto raw = rawNow();
        const auto after = readTsc();
        if (after - before < tightest) {
            tightest = after - before;
            best = {before + (after - before) / 2, raw};
        }
    }
    return best;
}

struct CpuSampler::Ring {
    int fd = -1;
    int cpu = -1;
    void* base = MAP_FAILED;
    std::size_t length = 0;

    Ring() = default;
    Ring(const Ring&) = delete;
    Ring& operator=(const Ring&) = delete;
    ~Ring()
    {
        if (base != MAP_FAILED) {
            munmap(base, length);
        }
        if (fd >= 0) {
            close(fd);
        }
    }

    perf_event_mmap_page* page() const { return static_cast<perf_event_mmap_page*>(base); }
    const unsigned char* data() const { return static_cast<const unsigned char*>(base) + page()->data_offset; }

    // Copies what the kernel wrote since the last call, record by record.
    void drain(std::vector<ProfileSample>& out, std::uint64_t& lost) const
    {
        auto* meta = page();
        const std::uint64_t size = meta->data_size;
        const std::uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
        std::uint64_t tail = meta->data_tail;
        std::vector<unsigned char> record;
        while (tail + sizeof(perf_event_header) <= head) {
            perf_event_header header{};
            copyOut(tail, sizeof(header), &header, size);
            if (header.size < sizeof(header) || tail + header.size > head) {
                break;
            }
            record.resize(header.size);
            copyOut(tail, header.size, record.data(), size);
            if (header.type == PERF_RECORD_SAMPLE) {
                parseSample(record, out);
            } else if (header.type == PERF_RECORD_LOST && header.size >= sizeof(header) + 16) {
                std::uint64_t n = 0;
                std::memcpy(&n, record.data() + sizeof(header) + 8, sizeof(n));
                lost += n;
            }
            tail += header.size;
        }
        __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
    }

    void copyOut(std::uint64_t at, std::size_t n, void* to, std::uint64_t size) const
    {
        const std::uint64_t offset = at % size;
        const std::size_t first = std::min<std::size_t>(n, static_cast<std::size_t>(size - offset));
        std::memcpy(to, data() + offset, first);
        if (first < n) {
            std::memcpy(static_cast<unsigned char*>(to) + first, data(), n - first);
        }
    }

    // ip, pid/tid, time, cpu/res, nr, ips[nr]: the order of kSampleType's bits.
    static void parseSample(const std::vector<unsigned char>& record, std::vector<ProfileSample>& out)
    {
        std::size_t at = sizeof(perf_event_header);
        auto word = [&](std::uint64_t& value) {
            if (at + 8 > record.size()) {
                return false;
            }
            std::memcpy(&value, record.data() + at, 8);
            at += 8;
            return true;
        };
        std::uint64_t ip = 0;
        std::uint64_t ids = 0;
        std::uint64_t time = 0;
        std::uint64_t cpu = 0;
        std::uint64_t nr = 0;
        if (!word(ip) || !word(ids) || !word(time) || !word(cpu) || !word(nr)) {
            return;
        }
        ProfileSample s;
        s.pid = static_cast<std::uint32_t>(ids & 0xffffffffU);
        s.tid = static_cast<std::uint32_t>(ids >> 32);
        s.timeNs = time;
        s.cpu = static_cast<int>(cpu & 0xffffffffU);
        s.chain.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(nr, 128)));
        for (std::uint64_t i = 0; i < nr; ++i) {
            std::uint64_t frame = 0;
            if (!word(frame)) {
                break;
            }
            if (frame >= PERF_CONTEXT_MAX) {
                continue;  // a context marker
            }
            s.chain.push_back(frame);
        }
        if (s.chain.empty()) {
            s.chain.push_back(ip);
        }
        out.push_back(std::move(s));
    }
};

Result<std::unique_ptr<CpuSampler>> CpuSampler::open(const std::vector<int>& cpus, int hz,
                                                     const std::vector<int>& readerCpus)
{
    std::unique_ptr<CpuSampler> sampler(new CpuSampler());
    sampler->m_hz = hz;
    const std::size_t pages = ringPages(hz);
    const auto pageSize = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    for (const int cpu : cpus) {
        auto ring = std::make_unique<Ring>();
        ring->cpu = cpu;
        // Cycles where a hardware PMU counts them; else the hrtimer-driven cpu-clock.
        bool hardware = sampler->m_event != "cpu-clock";
        if (hardware) {
            auto attr = samplingAttr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, hz, pages * pageSize);
            ring->fd = perfEventOpen(&attr, cpu);
            hardware = ring->fd >= 0;
        }
        if (!hardware) {
            if (sampler->m_event == "cycles") {  // one CPU counts cycles, another not: one event for all
                return Error{"cannot sample cycles on CPU " + std::to_string(cpu) + " as on the others"};
            }
            auto attr = samplingAttr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, hz, pages * pageSize);
            ring->fd = perfEventOpen(&attr, cpu);
        }
        if (ring->fd < 0) {
            const int err = errno;
            return Error{"cannot sample CPU " + std::to_string(cpu) + ": perf_event_open: " + errnoText(err) + " (" +
                         explain(err, hz, cpu) + ")"};
        }
        sampler->m_event = hardware ? "cycles" : "cpu-clock";
        ring->length = (pages + 1) * pageSize;
        ring->base = mmap(nullptr, ring->length, PROT_READ | PROT_WRITE, MAP_SHARED, ring->fd, 0);
        if (ring->base == MAP_FAILED) {
            return Error::fromErrno("cannot map the sample ring of CPU " + std::to_string(cpu));
        }
        sampler->m_rings.push_back(std::move(ring));
    }
    sampler->m_pairs.push_back(readClockPair());
    CpuSampler* self = sampler.get();
    sampler->m_reader =
        std::jthread([self, readerCpus](const std::stop_token& stop) { self->readLoop(stop, readerCpus); });
    return sampler;
}

CpuSampler::~CpuSampler()
{
    for (const auto& ring : m_rings) {
        ioctl(ring->fd, PERF_EVENT_IOC_DISABLE, 0);
    }
    m_reader.request_stop();
    if (m_reader.joinable()) {
        m_reader.join();
    }
}

void CpuSampler::enable()
{
    for (const auto& ring : m_rings) {
        ioctl(ring->fd, PERF_EVENT_IOC_ENABLE, 0);
    }
}

void CpuSampler::disable()
{
    for (const auto& ring : m_rings) {
        ioctl(ring->fd, PERF_EVENT_IOC_DISABLE, 0);
    }
    flush();
}

void CpuSampler::readLoop(const std::stop_token& stop, const std::vector<int>& readerCpus)
{
    m_readerTid.store(static_cast<pid_t>(syscall(SYS_gettid)));
    if (!readerCpus.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (const int cpu : readerCpus) {
            CPU_SET(static_cast<unsigned>(cpu), &set);
        }
        sched_setaffinity(0, sizeof(set), &set);  // else it runs where the system puts it
    }
    std::vector<pollfd> fds;
    for (const auto& ring : m_rings) {
        fds.push_back({ring->fd, POLLIN, 0});
    }
    while (!stop.stop_requested()) {
        ::poll(fds.data(), fds.size(), kReadEveryMs);
        flush();
    }
}

void CpuSampler::flush()
{
    const std::scoped_lock drain(m_drainMutex);
    std::vector<ProfileSample> fresh;
    std::uint64_t lost = 0;
    for (const auto& ring : m_rings) {
        ring->drain(fresh, lost);
    }
    const auto pair = readClockPair();
    const std::scoped_lock lock(m_mutex);
    m_pending.insert(m_pending.end(), std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
    m_lost += lost;
    m_pairs.push_back(pair);
}

SamplerDrain CpuSampler::take(std::uint64_t untilNs)
{
    const std::scoped_lock lock(m_mutex);
    SamplerDrain out;
    auto later = std::stable_partition(m_pending.begin(), m_pending.end(),
                                       [untilNs](const ProfileSample& s) { return s.timeNs <= untilNs; });
    out.samples.assign(std::make_move_iterator(m_pending.begin()), std::make_move_iterator(later));
    m_pending.erase(m_pending.begin(), later);
    out.lost = std::exchange(m_lost, 0);
    return out;
}

std::uint64_t CpuSampler::tscAt(std::uint64_t rawNs) const
{
    const std::scoped_lock lock(m_mutex);
    // The pairs are in time order; extrapolate from the nearest two at either end.
    if (m_pairs.size() < 2) {
        return m_pairs.empty() ? 0 : m_pairs.front().tsc;
    }
    auto upper = std::lower_bound(m_pairs.begin(), m_pairs.end(), rawNs,
                                  [](const ClockPair& p, std::uint64_t t) { return p.rawNs < t; });
    if (upper == m_pairs.begin()) {
        ++upper;
    }
    if (upper == m_pairs.end()) {
        --upper;
    }
    const auto& a = *(upper - 1);
    const auto& b = *upper;
    if (b.rawNs == a.rawNs) {
        return a.tsc;
    }
    const double slope = static_cast<double>(b.tsc - a.tsc) / static_cast<double>(b.rawNs - a.rawNs);
    const double offset = static_cast<double>(static_cast<std::int64_t>(rawNs - a.rawNs)) * slope;
    return static_cast<std::uint64_t>(static_cast<double>(a.tsc) + offset);
}

double CpuSampler::readerSeconds() const
{
    const pid_t tid = m_readerTid.load();
    if (tid == 0) {
        return 0;
    }
    const auto stat = readSchedStat(tid);
    return stat ? static_cast<double>(stat->runNs) * 1e-9 : 0;
}

}  // namespace nf::probes
