// Code size from the ELF symbol table of the running test binary and of a shared library.

#include "probes/code_size.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace nf::probes {

// Two functions of different length, with external linkage so their symbols are easy to name.
__attribute__((noinline)) std::uint64_t nfCodeSizeShort(std::uint64_t x)
{
    asm volatile("" : "+r"(x));
    return x + 1;
}

__attribute__((noinline)) std::uint64_t nfCodeSizeLong(std::uint64_t x)
{
    asm volatile(".rept 8\n\timul %0, %0\n\txor $0x55, %0\n\tadd $0x1234, %0\n\t.endr" : "+r"(x));
    return x;
}

namespace {

TEST(CodeSize, FindsTheSymbolOfAFunctionInThisBinary)
{
    auto shortFn = codeSymbolAt(reinterpret_cast<const void*>(&nfCodeSizeShort));
    ASSERT_TRUE(shortFn.ok()) << shortFn.error().message;
    EXPECT_EQ(shortFn->name, "nfCodeSizeShort");
    EXPECT_NE(shortFn->fullName.find("nf::probes::nfCodeSizeShort(unsigned long)"), std::string::npos)
        << shortFn->fullName;
    EXPECT_EQ(shortFn->file, "/proc/self/exe");
    auto longFn = codeSymbolAt(reinterpret_cast<const void*>(&nfCodeSizeLong));
    ASSERT_TRUE(longFn.ok()) << longFn.error().message;
    EXPECT_EQ(longFn->name, "nfCodeSizeLong");
    // Eight unrolled 3-instruction rounds are at least 8 * 10 bytes more than one add.
    EXPECT_GE(longFn->bytes, shortFn->bytes + 80) << shortFn->bytes << " vs " << longFn->bytes;
    EXPECT_GT(shortFn->bytes, 0u);
}

TEST(CodeSize, AnAddressInsideAFunctionResolvesToIt)
{
    auto whole = codeSymbolAt(reinterpret_cast<const void*>(&nfCodeSizeLong));
    ASSERT_TRUE(whole.ok());
    const auto* inside = reinterpret_cast<const unsigned char*>(&nfCodeSizeLong) + whole->bytes - 1;
    auto same = codeSymbolAt(inside);
    ASSERT_TRUE(same.ok()) << same.error().message;
    EXPECT_EQ(same->name, "nfCodeSizeLong");
}

TEST(CodeSize, ReadsASharedLibrary)
{
    double (*fn)(double) = &std::sqrt;  // libm, a position-independent shared object
    auto symbol = codeSymbolAt(reinterpret_cast<const void*>(fn));
    if (!symbol.ok()) {
        GTEST_SKIP() << "libm symbol not resolvable here: " << symbol.error().message;
    }
    EXPECT_NE(symbol->file.find(".so"), std::string::npos) << symbol->file;
    EXPECT_GT(symbol->bytes, 0u);
}

TEST(CodeSize, ShortNamesDropScopeReturnTypeAndParameters)
{
    EXPECT_EQ(shortFunctionName("void nf::engine::workloads::(anonymous namespace)::pagePoolPutPage<true, false>("
                                "nf::engine::workloads::(anonymous namespace)::PoolState&, unsigned int)"),
              "pagePoolPutPage<true, false>");
    EXPECT_EQ(shortFunctionName("nf::engine::workloads::indirect_call::runDirect(Sock*, unsigned long)"), "runDirect");
    EXPECT_EQ(shortFunctionName("main"), "main");
    EXPECT_EQ(shortFunctionName("std::vector<int, std::allocator<int> >::size() const"), "size");
}

}  // namespace
}  // namespace nf::probes
