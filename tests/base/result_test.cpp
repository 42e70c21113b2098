#include "base/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace nf {
namespace {

Result<int> doubled(int x)
{
    if (x < 0) {
        return Error{"negative: " + std::to_string(x), 22};
    }
    return 2 * x;
}

Result<void> positive(int x)
{
    if (x <= 0) {
        return Error{"not positive"};
    }
    return {};
}

int g_reached = 0;

Result<std::string> chain(int x)
{
    const int d = NF_TRY(doubled(x));
    NF_TRY(positive(d));
    ++g_reached;
    return std::to_string(d);
}

TEST(Try, GivesTheValueOrReturnsTheErrorUnchanged)
{
    g_reached = 0;
    auto good = chain(4);
    ASSERT_TRUE(good.ok());
    EXPECT_EQ(*good, "8");
    EXPECT_EQ(g_reached, 1);

    auto bad = chain(-3);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, "negative: -3");
    EXPECT_EQ(bad.error().errnum, 22);

    auto zero = chain(0);  // the void step fails after the first succeeded
    ASSERT_FALSE(zero.ok());
    EXPECT_EQ(zero.error().message, "not positive");
    EXPECT_EQ(g_reached, 1);
}

Result<std::unique_ptr<int>> owned(int x)
{
    return std::make_unique<int>(x);
}

Result<int> moveOnly()
{
    auto p = NF_TRY(owned(5));  // a move-only value is moved out of the temporary
    Result<int> kept = 7;
    const int copy = NF_TRY(kept);  // an lvalue Result is copied from, and stays usable
    return *p + copy + *kept;
}

TEST(Try, MovesFromTemporariesAndCopiesFromNamedResults)
{
    EXPECT_EQ(*moveOnly(), 19);
}

TEST(Result, MonadicCallsPassErrorsThrough)
{
    auto ok = doubled(2).andThen(doubled).transform([](int v) { return v + 1; });
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(*ok, 9);
    auto bad = doubled(-1).andThen(doubled).transform([](int v) { return v + 1; });
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, "negative: -1");
    EXPECT_EQ(doubled(-1).valueOr(0), 0);
    EXPECT_EQ(std::move(bad).withContext("counters: ").error().message, "counters: negative: -1");
}

}  // namespace
}  // namespace nf
