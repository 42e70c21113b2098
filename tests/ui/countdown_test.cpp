// Countdown (ui/countdown.h): the Live tab's "time left" counts down with the clock between the
// engine's estimates and never goes up, whatever the estimates do.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ui/countdown.h"

namespace nf::ui {
namespace {

TEST(Countdown, NothingBeforeAnEstimateThenCountsDownWithTheClock)
{
    Countdown c;
    EXPECT_TRUE(std::isnan(c.at(0)));
    c.update(NAN, 0);
    EXPECT_TRUE(std::isnan(c.at(0)));
    c.update(10, 1);
    EXPECT_DOUBLE_EQ(c.at(1), 10);
    EXPECT_DOUBLE_EQ(c.at(3.5), 7.5);
    EXPECT_DOUBLE_EQ(c.at(20), 0);  // never below 0
}

TEST(Countdown, ALowerEstimateIsTakenAtOnceAHigherOneSlowsTheCountdown)
{
    Countdown c;
    c.update(100, 0);
    c.update(50, 1);  // 99 shown: the run goes faster
    EXPECT_DOUBLE_EQ(c.at(1), 50);
    c.update(80, 2);  // 49 shown; the run is slower than thought
    EXPECT_DOUBLE_EQ(c.at(2), 49);
    EXPECT_DOUBLE_EQ(c.at(6), 49 + 4 * Countdown::kCatchUpPerSecond - 4);
    // It meets the estimate (80 - dt) after 31 / kCatchUpPerSecond = 62 s, then follows it.
    EXPECT_DOUBLE_EQ(c.at(2 + 62), 80 - 62);
    EXPECT_DOUBLE_EQ(c.at(2 + 70), 80 - 70);
}

TEST(Countdown, NeverGoesUpUnderNoisyEstimates)
{
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> jitter(0.8, 1.2);
    Countdown c;
    double previous = INFINITY;
    for (int i = 0; i < 2000; ++i) {
        const double now = i * 0.1;
        if (i % 3 == 0) {
            c.update((200 - now) * jitter(rng), now);  // a true 200 s, estimated within 20%
        }
        const double shown = c.at(now);
        EXPECT_LE(shown, previous + 1e-12) << "at " << now;
        previous = shown;
    }
}

TEST(Countdown, AnEstimateFarAboveTheShownValueIsTakenAsItIs)
{
    Countdown c;
    c.update(1, 0);
    c.update(30, 5);  // "0 s left" for the next minute would be wrong
    EXPECT_DOUBLE_EQ(c.at(5), 30);
}

TEST(Countdown, FollowsAGoodEstimateExactly)
{
    Countdown c;
    for (int i = 0; i < 39; ++i) {
        const double now = i * 0.25;
        c.update(10 - now, now);
        EXPECT_NEAR(c.at(now + 0.1), 10 - now - 0.1, 1e-12);
    }
}

}  // namespace
}  // namespace nf::ui
