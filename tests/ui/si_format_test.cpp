// siNumber / withUnit (ui/si_format.h): the numbers on the GUI's axes and labels.

#include <gtest/gtest.h>

#include <cmath>

#include "ui/si_format.h"

namespace nf::ui {
namespace {

TEST(SiFormat, PrefixesForPowersOfAThousand)
{
    EXPECT_EQ(siNumber(1.05e7), "10.5 M");
    EXPECT_EQ(siNumber(1234), "1.23 k");
    EXPECT_EQ(siNumber(1200, 2), "1.2 k");
    EXPECT_EQ(siNumber(3.4), "3.4");
    EXPECT_EQ(siNumber(950), "950");
    EXPECT_EQ(siNumber(0), "0");
    EXPECT_EQ(siNumber(-2.5e-3), "-2.5 m");
    EXPECT_EQ(siNumber(999.96), "1 k");  // rounds into the next prefix, not "1000"
    EXPECT_EQ(siNumber(2e-15), "2.00e-15");
    EXPECT_EQ(siNumber(NAN), "");
    EXPECT_EQ(siNumber(INFINITY), "inf");
}

TEST(SiFormat, UnitsJoinThePrefixTimesMoveUp)
{
    EXPECT_EQ(withUnit(1.05e7, "pps"), "10.5 Mpps");
    EXPECT_EQ(withUnit(1200, "ops/s", 2), "1.2 k ops/s");
    EXPECT_EQ(withUnit(3.4, "ns", 2), "3.4 ns");
    EXPECT_EQ(withUnit(3400, "ns"), "3.4 us");
    EXPECT_EQ(withUnit(0.25, "s"), "250 ms");
    EXPECT_EQ(withUnit(31.5, "ticks/op"), "31.5 ticks/op");
    EXPECT_EQ(withUnit(2.5e6, ""), "2.5 M");
}

TEST(SiFormat, AnIntervalWithoutABoundSaysUnbounded)
{
    EXPECT_EQ(boundText(-1.25), "-1.25%");
    EXPECT_EQ(boundText(0.002), "+0.0020%");
    EXPECT_EQ(boundText(NAN), "unbounded");
    EXPECT_EQ(boundText(-INFINITY), "unbounded");
}

}  // namespace
}  // namespace nf::ui
