#pragma once
// The CPU's time-stamp counter as a clock: fenced reads, frequency calibrated against
// CLOCK_MONOTONIC_RAW, read overhead measured and reported.

#include <cstdint>
#include <string>

#include "base/result.h"

namespace nf::probes {

// rdtscp waits for earlier instructions to retire; the lfence after it keeps later ones from
// starting before the read (the pattern of prototype-kernel time_bench and Intel's white paper).
inline std::uint64_t readTsc()
{
    std::uint32_t lo = 0;
    std::uint32_t hi = 0;
    std::uint32_t aux = 0;
    asm volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
    return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

struct TscCalibration {
    double hz = 0;                  // ticks per second
    double calibrationSeconds = 0;  // how long calibration measured
    double readOverheadTicks = 0;   // median cost of one readTsc() (back-to-back pair)
    double readOverheadMinTicks = 0;
    bool invariant = false;  // constant_tsc and nonstop_tsc in /proc/cpuinfo
};

class TscClock {
public:
    // Calibrates over about `seconds` (default 0.05 s): pairs of (CLOCK_MONOTONIC_RAW, TSC) taken
    // at the start and the end, each bracketed by two TSC reads with the tightest bracket kept.
    // Fails where the CPU has no usable TSC (not x86-64, or rdtscp missing).
    static Result<TscClock> calibrate(double seconds = 0.05);

    const TscCalibration& calibration() const { return m_cal; }
    double hz() const { return m_cal.hz; }
    double toSeconds(std::uint64_t ticks) const { return static_cast<double>(ticks) / m_cal.hz; }
    double toNanoseconds(std::uint64_t ticks) const { return static_cast<double>(ticks) * 1e9 / m_cal.hz; }
    std::string describe() const;  // "TSC 2445.3 MHz (invariant), read overhead 38 ticks median"

private:
    explicit TscClock(TscCalibration cal) : m_cal(cal) {}
    TscCalibration m_cal;
};

}  // namespace nf::probes
