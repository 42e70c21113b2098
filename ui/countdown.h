#pragma once
// "Time left" as a person reads it (no Qt: tested on its own). Between estimates it counts down
// with the clock; an estimate below the shown value is taken at once, one above it only at
// kCatchUpPerSecond seconds per second of clock, so the shown value does not go up: a run that is
// slower than estimated counts down more slowly instead of jumping back. Only an estimate more than
// twice the shown value plus a second (the plan changed, or the first estimates were far off) is
// taken as it is, rather than show "0 s left" for a long time.

#include <cmath>

namespace nf::ui {

class Countdown {
public:
    static constexpr double kCatchUpPerSecond = 0.5;

    // A new estimate of the seconds left, made at `now` (seconds on a steady clock).
    void update(double secondsLeft, double now);
    // What to show at `now`: NaN before the first finite estimate, never below 0.
    double at(double now) const;
    void reset() { *this = Countdown(); }

private:
    double m_anchor = NAN;  // the value shown at m_anchorTime
    double m_anchorTime = 0;
    double m_target = NAN;  // the latest estimate, as of m_anchorTime
};

}  // namespace nf::ui
