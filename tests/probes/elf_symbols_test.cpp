// The sized symbols of ELF files against what `nm --size-sort` printed for them (tests/data/size,
// made by its make_fixtures.sh with GNU nm 2.40): every symbol, its type letter and its size.

#include "probes/elf_symbols.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <tuple>

#include "tests/support/temp_dir.h"

namespace nf::probes {
namespace {

std::string sample(const std::string& name)
{
    std::string path = NF_SIZE_SAMPLES;  // appended, not added: GCC 12 warns wrongly on + here
    return path.append("/").append(name);
}

using Listed = std::tuple<std::uint64_t, char, std::string>;

std::vector<Listed> nmListing(const std::string& name)
{
    std::ifstream in(sample("elf/" + name + ".nm"));
    std::vector<Listed> out;
    std::string size;
    char type = 0;
    std::string symbol;
    while (in >> size >> type >> symbol) {
        out.emplace_back(std::stoull(size, nullptr, 16), type, symbol);
    }
    std::sort(out.begin(), out.end());
    return out;
}

TEST(ElfSymbols, ListsWhatNmSizeSortListsForEveryFixture)
{
    for (const auto* file :
         {"pool-old.o", "pool-new.o", "pool-old-32.o", "pool-new-32.o", "vmlinux-old", "vmlinux-new"}) {
        auto symbols = readSizedSymbols(sample(std::string("elf/") + file));
        ASSERT_TRUE(symbols.ok()) << symbols.error().message;
        std::vector<Listed> read;
        for (const auto& s : *symbols) {
            read.emplace_back(s.bytes, s.type, s.name);
        }
        std::sort(read.begin(), read.end());
        const auto expected = nmListing(file);
        EXPECT_FALSE(expected.empty()) << file;
        EXPECT_EQ(read, expected) << file;
    }
}

TEST(ElfSymbols, TheFixturesHoldWhatTheScriptTellsApart)
{
    auto symbols = readSizedSymbols(sample("elf/vmlinux-new"));
    ASSERT_TRUE(symbols.ok()) << symbols.error().message;
    auto typeOf = [&](const std::string& name) {
        const auto s =
            std::find_if(symbols->begin(), symbols->end(), [&](const NmSymbol& x) { return x.name == name; });
        return s == symbols->end() ? '\0' : s->type;
    };
    EXPECT_EQ(typeOf("page_order.isra.0"), 't');
    EXPECT_EQ(typeOf("pool_refill.constprop.0"), 't');
    EXPECT_EQ(typeOf("page_pool_alloc_pages.cold"), 't');
    EXPECT_EQ(typeOf("pool_arch_hook"), 'W');
    EXPECT_EQ(typeOf("pool_fast"), 'i');
    EXPECT_EQ(typeOf("pool_tls_hits"), 'B');
    EXPECT_EQ(typeOf("pool_names"), 'r');
    EXPECT_EQ(typeOf("pool_stats_table"), 'D');
    EXPECT_EQ(typeOf("pool:odd"), 'T');
    EXPECT_EQ(typeOf("_start"), '\0');  // none: the entry is pool_init, and nothing undefined is listed
}

TEST(ElfSymbols, FilesItCannotReadAreErrorsSayingWhy)
{
    test::TempDir dir;
    std::ofstream(dir.file("lib.a")) << "!<arch>\n";
    const std::vector<std::tuple<std::string, std::string, int>> cases = {
        {sample("elf/vmlinux-stripped"),
         sample("elf/vmlinux-stripped") + ": no symbol table (stripped); give the build's unstripped vmlinux or .ko",
         0},
        {sample("pool.c"), sample("pool.c") + ": not an ELF file (give vmlinux or a .ko)", 0},
        {dir.file("lib.a"), dir.file("lib.a") + ": an ar archive, not an ELF file (give vmlinux or a .ko)", 0},
        {dir.file("missing"), "cannot read " + dir.file("missing") + ": No such file or directory", ENOENT},
        {dir.path(), dir.path() + ": a directory, not a file", EISDIR},
    };
    for (const auto& [path, message, errnum] : cases) {
        auto symbols = readSizedSymbols(path);
        ASSERT_FALSE(symbols.ok()) << path;
        EXPECT_EQ(symbols.error().message, message);
        EXPECT_EQ(symbols.error().errnum, errnum) << path;
    }
}

TEST(ElfSymbols, AKernelWithoutSectionHeadersHasNoSymbolTable)
{
    // vmlinux-tiny with its section header table cut off, as sstrip leaves a file.
    const std::string path = std::string(NF_KERNEL_IMAGE_DATA).append("/vmlinux-tiny-noshdr");
    auto symbols = readSizedSymbols(path);
    ASSERT_FALSE(symbols.ok());
    EXPECT_EQ(symbols.error().message,
              path + ": no symbol table (stripped); give the build's unstripped vmlinux or .ko");
}

}  // namespace
}  // namespace nf::probes
