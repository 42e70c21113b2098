#include "engine/workloads/placement.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/workloads/indirect_call.h"
#include "engine/workloads/page_frag_model.h"
#include "engine/workloads/page_pool.h"
#include "engine/workloads/registry.h"
#include "engine/workloads/spin.h"

#include <gtest/gtest.h>
#include <link.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "probes/code_size.h"

namespace nf::engine::workloads {
namespace {

ParamSet resolved(const std::string& workload, const std::map<std::string, std::string>& layer)
{
    const WorkloadDescriptor* info = findWorkload(workload);
    EXPECT_NE(info, nullptr);
    auto params = ParamSet::resolve(info->params, {&layer}, info->name);
    EXPECT_TRUE(params.ok()) << params.error().message;
    return params.ok() ? *params : ParamSet{};
}

struct Case {
    std::string workload;
    std::map<std::string, std::string> params;
};

const std::vector<Case>& placedCases()
{
    static const std::vector<Case> cases = {
        {"spin", {}},
        {"page-pool", {{"check", "late"}}},
        {"page-pool", {{"check", "early"}}},
        {"indirect-call", {{"call", "direct"}}},
        {"indirect-call", {{"call", "indirect"}}},
        {"page-frag", {{"impl", "monolithic"}, {"align", "0"}}},
        {"page-frag", {{"impl", "split"}, {"align", "64"}}},
    };
    static const std::vector<Case> withRetpoline = [] {
        auto all = cases;
        if (indirect_call::retpolineThunkInUse()) {
            all.push_back({"indirect-call", {{"call", "retpoline"}}});
        }
        return all;
    }();
    return withRetpoline;
}

// Every placement's code of a variant, read from a loop made in placement 0.
std::vector<PlacedCode> placementsOf(const Case& c)
{
    const WorkloadImplementation* impl = findImplementation(implementations(), c.workload);
    EXPECT_NE(impl, nullptr);
    auto loop = impl->make(resolved(c.workload, c.params), 0);
    EXPECT_TRUE(loop.ok()) << loop.error().message;
    return loop.ok() ? (*loop)->placements() : std::vector<PlacedCode>{};
}

// Each copy's function starts where no other copy's does, in its page and (for all but placement
// 0, which the linker places) in its cache line the four ways 16-byte alignment allows.
void expectSpreadOut(const std::vector<const void*>& copies, const std::string& what)
{
    ASSERT_EQ(copies.size(), kPlacements) << what;
    std::set<std::uintptr_t> inPage;
    std::set<std::uintptr_t> inLine;
    std::set<std::uintptr_t> inPageAfter0;
    std::set<std::uintptr_t> sectionOffset;  // from the end of the pad: the same in every section
    for (std::size_t l = 0; l < copies.size(); ++l) {
        const auto address = reinterpret_cast<std::uintptr_t>(copies[l]);
        inPage.insert(address % 4096);
        if (l != 0) {
            inPageAfter0.insert(address % 4096);
            inLine.insert(address % 64);
            sectionOffset.insert((address - placementPad(l)) % 4096);
        }
    }
    EXPECT_GE(inPage.size(), 6u) << what;
    EXPECT_EQ(inPageAfter0.size(), kPlacements - 1) << what;
    EXPECT_EQ(inLine.size(), 4u) << what;
    EXPECT_EQ(sectionOffset.size(), 1u) << what << ": a copy is not in its placement's section";
}

// The geometry of the copies (offsets in page and cache line, the same instructions in each) is
// what GCC builds with -fno-toplevel-reorder -fno-reorder-blocks-and-partition
// (engine/workloads/CMakeLists.txt). Clang, which builds only the sanitizer stages here, has neither
// flag: it emits a section's functions in an order of its own and instruments each copy apart.
#if defined(__clang__)
constexpr bool kGeometryKept = false;
#else
constexpr bool kGeometryKept = true;
#endif
constexpr const char* kGeometryNotKept = "clang builds keep neither the copies' order nor their instructions alike";

TEST(Placement, EachCopyStartsElsewhereInItsPageAndCacheLine)
{
    if (!kGeometryKept) {
        GTEST_SKIP() << kGeometryNotKept;
    }
    for (const Case& c : placedCases()) {
        const auto code = placementsOf(c);
        ASSERT_EQ(code.size(), kPlacements) << c.workload;
        for (std::size_t f = 0; f < code[0].hot.size(); ++f) {
            std::vector<const void*> copies;
            for (const auto& placed : code) {
                ASSERT_EQ(placed.hot.size(), code[0].hot.size());
                copies.push_back(placed.hot[f]);
            }
            expectSpreadOut(copies, c.workload + " hot function " + std::to_string(f));
        }
        std::vector<const void*> loops;
        std::set<std::uint32_t> stacks;
        for (const auto& placed : code) {
            loops.push_back(placed.loop);
            stacks.insert(placed.stackOffset % 4096);
        }
        expectSpreadOut(loops, c.workload + " measuring loop");
        EXPECT_EQ(stacks.size(), kPlacements) << c.workload;
        EXPECT_EQ(code[0].stackOffset, 0u);
    }
}

TEST(Placement, LoopRunsInTheChosenPlacement)
{
    for (const Case& c : placedCases()) {
        const WorkloadImplementation* impl = findImplementation(implementations(), c.workload);
        ASSERT_NE(impl, nullptr);
        EXPECT_EQ(impl->placements, kPlacements);
        for (std::size_t l = 0; l < kPlacements; ++l) {
            auto loop = impl->make(resolved(c.workload, c.params), l);
            ASSERT_TRUE(loop.ok()) << loop.error().message;
            EXPECT_EQ((*loop)->placement(), l);
            EXPECT_EQ((*loop)->hotCode(), (*loop)->placements().at(l).hot);
            (*loop)->run(1000);
        }
        auto beyond = impl->make(resolved(c.workload, c.params), kPlacements);
        ASSERT_FALSE(beyond.ok());
        EXPECT_NE(beyond.error().message.find("layout=8"), std::string::npos) << beyond.error().message;
    }
}

TEST(Placement, EveryCopyComputesWhatPlacementZeroDoes)
{
    const std::uint64_t spin0 = spinSelfCheck(37, 5000, 0);
    for (std::size_t l = 1; l < kPlacements; ++l) {
        EXPECT_EQ(spinSelfCheck(37, 5000, l), spin0) << "placement " << l;
    }
    for (const char* check : {"late", "early"}) {
        const ParamSet params = resolved("page-pool", {{"check", check}, {"zero_size_pct", "10"}});
        auto base = pagePoolSelfCheck(params, 300000, 0);
        ASSERT_TRUE(base.ok()) << base.error().message;
        ASSERT_TRUE(base->consistent) << base->problem;
        for (std::size_t l = 1; l < kPlacements; ++l) {
            auto s = pagePoolSelfCheck(params, 300000, l);
            ASSERT_TRUE(s.ok()) << s.error().message;
            EXPECT_TRUE(s->consistent) << s->problem;
            EXPECT_EQ(s->stateDigest, base->stateDigest) << check << " placement " << l;
            EXPECT_EQ(s->syncCalls, base->syncCalls) << check << " placement " << l;
            EXPECT_EQ(s->cacheRefills, base->cacheRefills) << check << " placement " << l;
            EXPECT_EQ(s->ringRecycles, base->ringRecycles) << check << " placement " << l;
        }
    }
}

TEST(Placement, EveryIndirectCallCopyComputesWhatPlacementZeroDoes)
{
    namespace ic = indirect_call;
    using Loop = void (*)(ic::Sock*, std::uint64_t);
#define NF_TEST_LOOPS(L) \
    std::array<Loop, 3>{&ic::placement##L::runDirect, &ic::placement##L::runIndirect, &ic::placement##L::runRetpoline},
    const std::array<std::array<Loop, 3>, kPlacements> loops = {NF_EACH_PLACEMENT(NF_TEST_LOOPS)};
#undef NF_TEST_LOOPS
#define NF_TEST_CALLEE(L) &ic::placement##L::sockDefReadable,
    const std::array<void (*)(ic::Sock*), kPlacements> callees = {NF_EACH_PLACEMENT(NF_TEST_CALLEE)};
#undef NF_TEST_CALLEE
    auto after = [&](std::size_t l, std::size_t kind) {
        ic::Sock sk;
        sk.dataReady = callees[l];
        sk.work = 13;
        loops[l][kind](&sk, 2000);
        return std::pair{sk.state, sk.readableCalls};
    };
    for (std::size_t kind = 0; kind < 3; ++kind) {
        const auto base = after(0, kind);
        EXPECT_EQ(base.second, 2000u);
        for (std::size_t l = 1; l < kPlacements; ++l) {
            EXPECT_EQ(after(l, kind), base) << "loop " << kind << ", placement " << l;
        }
    }
}

// The allocators single-threaded, as PageFrag.BothShapesHandOutTheSameFragments drives them: every
// placement's copies hand out the same fragments as placement 0's.
TEST(Placement, EveryPageFragCopyHandsOutWhatPlacementZeroDoes)
{
    namespace pf = page_frag;
    using Alloc = void* (*)(pf::FragCache*, std::uint32_t, std::uint32_t);
#define NF_TEST_ALLOC(L)                         \
    std::array<Alloc, 2>{                        \
        &pf::placement##L::allocAlignMonolithic, \
        &pf::allocAlignSplitWith<&pf::placement##L::cachePrepare, &pf::placement##L::cacheCommitNoref>},
    const std::array<std::array<Alloc, 2>, kPlacements> allocs = {NF_EACH_PLACEMENT(NF_TEST_ALLOC)};
#undef NF_TEST_ALLOC
    auto offsets = [&](std::size_t l, std::size_t shape) {
        pf::PageArena arena(4);
        pf::FragCache cache{&arena};
        std::vector<std::uintptr_t> out;
        for (int i = 0; i < 600; ++i) {
            void* va = allocs[l][shape](&cache, 100 + static_cast<std::uint32_t>(i % 7) * 50, -64U);
            out.push_back(va == nullptr ? ~std::uintptr_t{0} : reinterpret_cast<std::uintptr_t>(va) % pf::kMaxSize);
            if (va != nullptr && i % 3 != 0) {
                pf::fragFree(&arena, va);
            }
        }
        out.push_back(cache.refills);
        return out;
    };
    for (std::size_t shape = 0; shape < 2; ++shape) {
        const auto base = offsets(0, shape);
        for (std::size_t l = 1; l < kPlacements; ++l) {
            EXPECT_EQ(offsets(l, shape), base) << "shape " << shape << ", placement " << l;
        }
    }
}

// objdump's disassembly of [from, to) of this test's binary (file addresses), one instruction a
// line by address, with what depends on where a copy sits taken out: branch and call targets'
// addresses, rip-relative displacements and what objdump says they point at (a sanitizer's frame
// description, a constant), and the placement in symbol names.
std::map<std::uintptr_t, std::string> disassemble(std::uintptr_t from, std::uintptr_t to,
                                                  const std::function<bool(std::uintptr_t)>& wanted)
{
    char range[96];
    static_cast<void>(std::snprintf(range, sizeof range, "--start-address=0x%jx --stop-address=0x%jx",
                                    static_cast<std::uintmax_t>(from), static_cast<std::uintmax_t>(to)));
    const std::string command = "objdump -d --no-show-raw-insn " + std::string(range) + " '" +
                                std::filesystem::read_symlink("/proc/self/exe").string() + "' 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), &pclose);
    EXPECT_NE(pipe, nullptr);
    std::map<std::uintptr_t, std::string> out;
    if (!pipe) {
        return out;
    }
    static const std::regex insn(R"(^\s*([0-9a-f]+):\s+(.*)$)");
    static const std::regex target(R"(\b[0-9a-f]+ <)");
    static const std::regex ripRelative(R"(-?0x[0-9a-f]+\(%rip\)(.*?)(\s*#.*)?$)");
    static const std::regex placement(R"(placement[0-9]|nf_placement\.([a-z_]+)\.[0-9])");
    char line[1024];
    while (std::fgets(line, sizeof line, pipe.get()) != nullptr) {
        std::string text(line);
        while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
            text.pop_back();
        }
        char* end = nullptr;
        const auto address = static_cast<std::uintptr_t>(std::strtoull(text.c_str(), &end, 16));
        if (end == text.c_str() || *end != ':' || !wanted(address)) {
            continue;  // a header, or an instruction of none of the functions asked for
        }
        std::smatch m;
        if (!std::regex_match(text, m, insn)) {
            continue;
        }
        std::string i = m[2].str();
        i = std::regex_replace(i, ripRelative, "X(%rip)$1");
        i = std::regex_replace(i, target, "<");
        i = std::regex_replace(i, placement, "placementL");
        out[static_cast<std::uintptr_t>(std::stoull(m[1].str(), nullptr, 16))] = i;
    }
    return out;
}

// The load bias of the main program, which holds the workloads (linked statically).
std::uintptr_t mainProgramBias()
{
    std::uintptr_t bias = 0;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            *static_cast<std::uintptr_t*>(data) = info->dlpi_addr;
            return 1;  // the first entry is the main program
        },
        &bias);
    return bias;
}

// The disassembly of every copy of a variant's hot functions, from one objdump over the range
// they span (each workload's copies are a few pages of its own object's sections).
class Copies {
public:
    explicit Copies(const std::vector<const void*>& functions)
    {
        std::uintptr_t from = ~std::uintptr_t{0};
        std::uintptr_t to = 0;
        for (const void* f : functions) {
            auto symbol = probes::codeSymbolAt(f);
            EXPECT_TRUE(symbol.ok()) << symbol.error().message;
            if (!symbol.ok()) {
                continue;
            }
            const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(f) - mainProgramBias();
            m_bytes[start] = symbol->bytes;
            from = std::min(from, start);
            to = std::max(to, start + symbol->bytes);
        }
        if (from < to) {
            m_lines = disassemble(from, to, [this](std::uintptr_t address) {
                auto next = m_bytes.upper_bound(address);
                return next != m_bytes.begin() && address < std::prev(next)->first + std::prev(next)->second;
            });
        }
    }

    // The instructions of the function at `address`, as far as its ELF symbol's size.
    std::vector<std::string> instructions(const void* address) const
    {
        const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(address) - mainProgramBias();
        const auto bytes = m_bytes.find(start);
        std::vector<std::string> out;
        if (bytes == m_bytes.end()) {
            return out;
        }
        for (auto i = m_lines.lower_bound(start); i != m_lines.end() && i->first < start + bytes->second; ++i) {
            out.push_back(i->second);
        }
        return out;
    }

private:
    std::map<std::uintptr_t, std::uint64_t> m_bytes;
    std::map<std::uintptr_t, std::string> m_lines;
};

bool haveObjdump()
{
    return std::system("objdump --version >/dev/null 2>&1") == 0;
}

TEST(Placement, EveryCopyIsTheSameInstructions)
{
    if (!kGeometryKept) {
        GTEST_SKIP() << kGeometryNotKept;
    }
    if (!haveObjdump()) {
        GTEST_SKIP() << "objdump (binutils) is not installed";
    }
    for (const Case& c : placedCases()) {
        const auto code = placementsOf(c);
        ASSERT_EQ(code.size(), kPlacements);
        std::vector<const void*> all;
        for (const auto& placed : code) {
            all.insert(all.end(), placed.hot.begin(), placed.hot.end());
            all.push_back(placed.loop);
        }
        const Copies copies(all);
        for (std::size_t f = 0; f <= code[0].hot.size(); ++f) {
            auto function = [&](std::size_t l) { return f < code[l].hot.size() ? code[l].hot[f] : code[l].loop; };
            const auto reference = copies.instructions(function(0));
            ASSERT_GT(reference.size(), 3u) << c.workload << " function " << f;
            for (std::size_t l = 1; l < kPlacements; ++l) {
                EXPECT_EQ(copies.instructions(function(l)), reference)
                    << c.workload << " function " << f << ", placement " << l;
            }
        }
    }
}

}  // namespace
}  // namespace nf::engine::workloads
