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

// "1,010.5" (en_US grouping) was read as 1 and "10,5" (a decimal comma) as 10, because comma is a
// default delimiter. With the default delimiters such lines are refused, naming the line.
TEST(StatValues, AmbiguousCommasAreRefusedWithTheirLine)
{
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"1000.5\n1,010.5\n", "a.txt:2: '1,010.5' is ambiguous"}, {"10,5\n11,5\n", "a.txt:1: '10,5' is ambiguous"},
        {"1,234,567\n2\n", "a.txt:1: '1,234,567' is ambiguous"},  {"-1,500e3\n2\n", "a.txt:1: '-1,500e3' is ambiguous"},
        {"7 3,25 x\n", "a.txt:1: '3,25' is ambiguous"},
    };
    for (const auto& [text, message] : cases) {
        auto v = parseStatValues(text, "a.txt", {});
        ASSERT_FALSE(v.ok()) << text;
        EXPECT_EQ(v.error().message.rfind(message, 0), 0u) << v.error().message;
        EXPECT_NE(v.error().message.find("-d"), std::string::npos) << v.error().message;
    }
    // Only two fields can be read here, so the default delimiters read them.
    auto csv = parseStatValues("1,10.0\n2,10.1\n3, 9.9\n4;1,5\n", "a.csv", {2, std::nullopt});
    ASSERT_FALSE(csv.ok());  // "1,5" on the last line could be 1.5
    csv = parseStatValues("1,10.0\n2,10.1\n3, 9.9\n1.5,2.5\n", "a.csv", {2, std::nullopt});
    ASSERT_TRUE(csv.ok()) << csv.error().message;
    EXPECT_EQ(*csv, (std::vector<double>{10.0, 10.1, 9.9, 2.5}));
    // Delimiters given say what a comma is.
    auto columns = parseStatValues("10,5\n11,5\n", "a.txt", {2, ","});
    ASSERT_TRUE(columns.ok()) << columns.error().message;
    EXPECT_EQ(*columns, (std::vector<double>{5, 5}));
    auto grouped = parseStatValues("1,010.5\n2\n", "a.txt", {1, " "});
    ASSERT_FALSE(grouped.ok());
    EXPECT_EQ(grouped.error().message, "a.txt:1: '1,010.5' is not a finite number");
}

// "1 010.5" (a space as the thousands separator, the SI style) was read as 1 from column 1,
// silently, because a space is a default delimiter. Refused as "1,010.5" is.
TEST(StatValues, ASpaceAsThousandsSeparatorIsRefusedLikeAComma)
{
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"1000.5\n1 010.5\n", "a.txt:2: '1 010.5' is ambiguous: a thousands separator or two columns?"},
        {"1 234 567\n2\n", "a.txt:1: '1 234 567' is ambiguous"},
        {"-12 500e3\n2\n", "a.txt:1: '-12 500e3' is ambiguous"},
        {"x 1 010.5\n", "a.txt:1: '1 010.5' is ambiguous"},
    };
    for (const auto& [text, message] : cases) {
        auto v = parseStatValues(text, "a.txt", {});
        ASSERT_FALSE(v.ok()) << text;
        EXPECT_EQ(v.error().message.rfind(message, 0), 0u) << v.error().message;
        EXPECT_NE(v.error().message.find("-d"), std::string::npos) << v.error().message;
    }
    // Fields that cannot be one grouped number are read as columns: not 3 digits after the space,
    // a fraction before it, more than one space or a tab between them.
    auto columns = parseStatValues("1 10.5\n2.5 100\n1  010.5\n1\t010.5\n1234 567\n", "a.txt", {});
    ASSERT_TRUE(columns.ok()) << columns.error().message;
    EXPECT_EQ(*columns, (std::vector<double>{1, 2.5, 1, 1, 1234}));
    // Delimiters given say what a space is.
    auto given = parseStatValues("1 010.5\n2 020.5\n", "a.txt", {2, " "});
    ASSERT_TRUE(given.ok()) << given.error().message;
    EXPECT_EQ(*given, (std::vector<double>{10.5, 20.5}));
}

// A 10 MB line without a delimiter was echoed whole in the error. A message quotes at most 40 bytes
// of what it read, cut where a UTF-8 character begins, with control characters shown as '?'.
TEST(StatValues, ErrorsQuoteABoundedExcerpt)
{
    std::string huge;
    huge.resize(10'000'000, 'x');
    auto bad = parseStatValues("1\n" + huge + "\n", "a.txt", {});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message,
              "a.txt:2: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (10000000 bytes) is not a finite number");
    std::string accents;
    for (int i = 0; i < 30; ++i) {
        accents += "\xc3\xa9";  // e acute, two bytes
    }
    auto cut = parseStatValues("1\n" + accents + "\n", "a.txt", {});
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.error().message, "a.txt:2: '" + accents.substr(0, 32) + "...' (60 bytes) is not a finite number");
    auto control = parseStatValues("1\n\x1b[2Jx\n", "a.txt", {});
    ASSERT_FALSE(control.ok());
    EXPECT_EQ(control.error().message, "a.txt:2: '?[2Jx' is not a finite number");
    auto longGroup = parseStatValues("1,010" + std::string(100, '0') + "\n2\n", "a.txt", {});
    ASSERT_FALSE(longGroup.ok());
    EXPECT_EQ(
        longGroup.error().message.rfind("a.txt:1: '1,010" + std::string(27, '0') + "...' (105 bytes) is ambiguous", 0),
        0u)
        << longGroup.error().message;
}

TEST(StatValues, DelimitersThatCouldSplitANumberAreRefused)
{
    EXPECT_TRUE(checkStatDelimiters(",").ok());
    EXPECT_TRUE(checkStatDelimiters(" \t;|").ok());
    for (const char* bad : {"", "0", ".", "-", "e", ",E", "+"}) {
        auto r = checkStatDelimiters(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().message.rfind(std::string("-d '") + bad + "'", 0), 0u) << r.error().message;
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
