#include "probes/tsc_clock.h"

#include <gtest/gtest.h>

#include <iostream>

namespace nf::probes {
namespace {

TEST(TscClock, ReadTscIsMonotonic)
{
    std::uint64_t previous = readTsc();
    for (int i = 0; i < 100000; ++i) {
        const std::uint64_t now = readTsc();
        ASSERT_GE(now, previous);
        previous = now;
    }
}

TEST(TscClock, CalibratesConsistently)
{
    Result<TscClock> first = TscClock::calibrate(0.05);
    if (!first.ok()) {
        GTEST_SKIP() << first.error().message;
    }
    Result<TscClock> second = TscClock::calibrate(0.1);
    ASSERT_TRUE(second.ok()) << second.error().message;
    // Loose sanity bounds: any TSC runs between 100 MHz and 10 GHz.
    EXPECT_GT(first->hz(), 1e8);
    EXPECT_LT(first->hz(), 1e10);
    EXPECT_NEAR(first->hz(), second->hz(), second->hz() * 0.01);
    EXPECT_GT(first->calibration().calibrationSeconds, 0.04);
}

TEST(TscClock, MeasuresReadOverhead)
{
    Result<TscClock> clock = TscClock::calibrate(0.01);
    if (!clock.ok()) {
        GTEST_SKIP() << clock.error().message;
    }
    const TscCalibration& cal = clock->calibration();
    EXPECT_GT(cal.readOverheadTicks, 0.0);
    EXPECT_GT(cal.readOverheadMinTicks, 0.0);
    EXPECT_LE(cal.readOverheadMinTicks, cal.readOverheadTicks);
}

TEST(TscClock, ConvertsAndDescribes)
{
    Result<TscClock> clock = TscClock::calibrate(0.01);
    if (!clock.ok()) {
        GTEST_SKIP() << clock.error().message;
    }
    const auto ticksPerSecond = static_cast<std::uint64_t>(clock->hz());
    EXPECT_NEAR(clock->toSeconds(ticksPerSecond), 1.0, 1e-6);
    EXPECT_NEAR(clock->toNanoseconds(ticksPerSecond), 1e9, 1e3);
    const std::string text = clock->describe();
    EXPECT_EQ(text.rfind("TSC ", 0), 0U) << text;
    EXPECT_NE(text.find("MHz"), std::string::npos) << text;
    EXPECT_NE(text.find("ticks median"), std::string::npos) << text;
    std::cout << "[ info     ] " << text << '\n';
}

}  // namespace
}  // namespace nf::probes
