#include "engine/analysis/text_input.h"

#include <gtest/gtest.h>

namespace nf::engine {
namespace {

TEST(StatValues, OneNumberPerLineSkippingBlanksAndComments)
{
    auto v = parseStatValues("# ms\n10.5\n\n  \t\n11\r\n# end\n1e1", "a.txt", {});
    ASSERT_TRUE(v.ok()) << v.error().message;
    EXPECT_EQ(*v, (std::vector<double>{10.5, 11, 10}));
}

TEST(StatValues, AColumnSplitAtAnyRunOfDelimiters)
{
    auto v = parseStatValues("1, 10\n2;;11\n3\t12\n", "a.txt", {2, " \t,;"});
    ASSERT_TRUE(v.ok()) << v.error().message;
    EXPECT_EQ(*v, (std::vector<double>{10, 11, 12}));
}

TEST(StatValues, ErrorsNameFileLineAndValue)
{
    auto bad = parseStatValues("1\n2\nx\n", "a.txt", {});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, "a.txt:3: 'x' is not a finite number");
    auto column = parseStatValues("1 2\n3\n", "a.txt", {2, " "});
    ASSERT_FALSE(column.ok());
    EXPECT_EQ(column.error().message, "a.txt:2: no column 2");
    auto few = parseStatValues("1\n", "a.txt", {});
    ASSERT_FALSE(few.ok());
    EXPECT_EQ(few.error().message, "a.txt: 1 value(s); at least 2 are needed");
    for (const char* notFinite : {"1\ninf\n", "1\nnan\n", "1\n1e999\n", "1\n2x\n"}) {
        EXPECT_FALSE(parseStatValues(notFinite, "a.txt", {}).ok()) << notFinite;
    }
}

TEST(RunId, PositiveIdOrLast)
{
    EXPECT_EQ(*parseRunId("last"), 0);
    EXPECT_EQ(*parseRunId("12"), 12);
    for (const char* bad : {"", "0", "-3", "12a", "99999999999999999999", "latest"}) {
        auto r = parseRunId(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_NE(r.error().message.find(std::string("'") + bad + "'"), std::string::npos) << r.error().message;
    }
}

}  // namespace
}  // namespace nf::engine
