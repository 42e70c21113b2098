#include "probes/tsc_clock.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace nf::probes {

namespace {

#if defined(__x86_64__)

constexpr int kPairTries = 5;
constexpr int kOverheadSamples = 20001;

bool hasRdtscp()
{
    unsigned eax = 0;
    unsigned ebx = 0;
    unsigned ecx = 0;
    unsigned edx = 0;
    if (__get_cpuid(0x80000001U, &eax, &ebx, &ecx, &edx) == 0) {
        return false;  // extended leaf not supported
    }
    return ((edx >> 27) & 1U) != 0;
}

// constant_tsc and nonstop_tsc both in the flags of /proc/cpuinfo.
bool tscInvariant()
{
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("flags", 0) != 0) {
            continue;
        }
        std::istringstream words(line.substr(line.find(':') + 1));
        bool constant = false;
        bool nonstop = false;
        for (std::string word; words >> word;) {
            constant = constant || word == "constant_tsc";
            nonstop = nonstop || word == "nonstop_tsc";
        }
        return constant && nonstop;
    }
    return false;
}

std::int64_t monotonicRawNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct ClockPair {
    std::int64_t ns = 0;
    double tsc = 0;  // midpoint of the bracketing reads
};

// One (CLOCK_MONOTONIC_RAW, TSC) pair: the clock read bracketed by two TSC reads, tightest of a few.
ClockPair samplePair()
{
    ClockPair best;
    std::uint64_t bestWidth = UINT64_MAX;
    for (int i = 0; i < kPairTries; ++i) {
        const std::uint64_t before = readTsc();
        const std::int64_t ns = monotonicRawNs();
        const std::uint64_t after = readTsc();
        const std::uint64_t width = after - before;
        if (after >= before && width < bestWidth) {
            bestWidth = width;
            best.ns = ns;
            best.tsc = static_cast<double>(before) + static_cast<double>(width) / 2.0;
        }
    }
    return best;
}

void sleepSeconds(double seconds)
{
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(seconds);
    ts.tv_nsec = static_cast<long>((seconds - static_cast<double>(ts.tv_sec)) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0) {
        // EINTR: continue with the remaining time
    }
}

void measureReadOverhead(TscCalibration& cal)
{
    std::vector<std::uint64_t> diffs(kOverheadSamples);
    for (auto& diff : diffs) {
        const std::uint64_t a = readTsc();
        const std::uint64_t b = readTsc();
        diff = b - a;
    }
    const auto middle = diffs.begin() + static_cast<std::ptrdiff_t>(diffs.size() / 2);
    std::nth_element(diffs.begin(), middle, diffs.end());
    cal.readOverheadTicks = static_cast<double>(*middle);
    cal.readOverheadMinTicks = static_cast<double>(*std::min_element(diffs.begin(), diffs.end()));
}

#endif  // __x86_64__

}  // namespace

Result<TscClock> TscClock::calibrate(double seconds)
{
#if defined(__x86_64__)
    if (!hasRdtscp()) {
        return Error{"TSC clock: the CPU does not report rdtscp (cpuid 0x80000001 EDX bit 27)", 0};
    }
    if (!(seconds >= 0.001)) {
        seconds = 0.001;  // also catches NaN
    }
    TscCalibration cal;
    cal.invariant = tscInvariant();
    const ClockPair start = samplePair();
    sleepSeconds(seconds);
    const ClockPair end = samplePair();
    const double elapsed = static_cast<double>(end.ns - start.ns) / 1e9;
    const double ticks = end.tsc - start.tsc;
    if (!(elapsed > 0) || !(ticks > 0)) {
        return Error{"TSC clock: calibration failed (TSC or CLOCK_MONOTONIC_RAW did not advance)", 0};
    }
    cal.hz = ticks / elapsed;
    cal.calibrationSeconds = elapsed;
    measureReadOverhead(cal);
    return TscClock(cal);
#else
    (void)seconds;
    return Error{"TSC clock: only available on x86-64", 0};
#endif
}

std::string TscClock::describe() const
{
    char text[160];
    (void)std::snprintf(text, sizeof(text), "TSC %.1f MHz (%s), read overhead %.0f ticks median (%.0f min)",
                        m_cal.hz / 1e6, m_cal.invariant ? "invariant" : "not invariant", m_cal.readOverheadTicks,
                        m_cal.readOverheadMinTicks);
    return text;
}

}  // namespace nf::probes
