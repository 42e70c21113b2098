#include "ui/countdown.h"

#include <algorithm>

namespace nf::ui {

void Countdown::update(double secondsLeft, double now)
{
    if (!std::isfinite(secondsLeft)) {
        return;
    }
    const double shown = at(now);
    m_anchorTime = now;
    m_target = std::max(0.0, secondsLeft);
    const bool farOff = m_target > 2 * shown + 1;
    m_anchor = std::isnan(shown) || farOff ? m_target : std::min(shown, m_target);
}

double Countdown::at(double now) const
{
    if (std::isnan(m_anchor)) {
        return NAN;
    }
    const double dt = std::max(0.0, now - m_anchorTime);
    // Counts down at 1 s/s; while below the estimate, at 1 - kCatchUpPerSecond s/s until it meets it.
    const double gap = std::max(0.0, m_target - m_anchor);  // the estimate's lead, shrinking at kCatchUp
    const double catchUp = std::min(gap, kCatchUpPerSecond * dt);
    return std::max(0.0, m_anchor + catchUp - dt);
}

}  // namespace nf::ui
