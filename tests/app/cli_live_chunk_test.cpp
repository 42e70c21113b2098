// Live A/B at chunk resolution through the `noisefloor` binary: udp-rx variants that differ only
// in receiver settings run side by side on one veth testbed, xdp-rx variants that differ only in
// AF_XDP application settings on a testbed each, and alternate in chunks, analysed by setup (each
// phase starts the receivers anew) with the chunk pairs beside; variants that cannot run side by
// side keep repetitions and say why. They make
// namespaces and veth devices, so they run as root and skip otherwise.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliLiveChunk : public CliTest {
protected:
    void SetUp() override
    {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "live workloads make namespaces and veth devices: needs root";
        }
        m_xdpBefore = attachedXdp();
    }

    // What a run that has exited left behind: devices named nf<pid> of a process that is gone (in
    // this namespace) or named namespaces nf<pid> of one.
    // Other runs (benchmarks, other tests) may be live at the same time: theirs are not counted.
    static std::string leftovers()
    {
        std::string out;
        std::istringstream links(shell("ip -br link").second);
        for (std::string line; std::getline(links, line);) {
            if (line.rfind("nf", 0) == 0) {
                const auto pid = std::atoi(line.c_str() + 2);
                if (pid > 0 && !std::filesystem::exists("/proc/" + std::to_string(pid))) {
                    out += "link " + line + "\n";
                }
            }
        }
        std::istringstream ns(shell("ip netns list").second);
        for (std::string line; std::getline(ns, line);) {
            const auto pid = line.rfind("nf", 0) == 0 ? std::atoi(line.c_str() + 2) : 0;
            if (pid > 0 && !std::filesystem::exists("/proc/" + std::to_string(pid))) {
                out += "netns " + line + "\n";
            }
        }
        return out;
    }

    // XDP programs attached in this namespace (a program of a run that has exited can only outlive
    // it attached to a device that outlived it; its own namespaces are gone with it).
    static std::string attachedXdp()
    {
        const auto net = nlohmann::json::parse(shell("bpftool -j net show 2>/dev/null || echo '[{}]'").second);
        std::string out;
        for (const auto& entry : net) {
            for (const auto& x : entry.value("xdp", nlohmann::json::array())) {
                out += x.dump() + "\n";
            }
        }
        return out;
    }

    void expectNothingLeft()
    {
        EXPECT_EQ(leftovers(), "");
        EXPECT_EQ(attachedXdp(), m_xdpBefore);
    }

    std::string m_xdpBefore;

    // The two variants traded places (ports, testbeds) halfway through each repetition: in every
    // pair they are on different places, and each variant ran as many chunks on each place in each
    // repetition, receiving there what the generator offered it (a variant left behind on its old
    // port or testbed would get nothing). The run's report says so.
    static void expectTradedPlaces(const nlohmann::json& exported, const std::string& out)
    {
        std::map<std::pair<int, int>, std::vector<int>> placesOfPair;  // (repetition, pair) -> places
        std::map<std::tuple<int, std::string, int>, int> chunks;       // (repetition, variant, place)
        std::map<std::tuple<int, std::string, int>, std::pair<double, double>> received;  // packets, offered
        for (const auto& s : exported["samples"]) {
            const int place = static_cast<int>(s["quantities"]["place"].get<double>());
            const int rep = s["repetition"].get<int>();
            const std::tuple<int, std::string, int> key{rep, s["variant_name"].get<std::string>(), place};
            placesOfPair[{rep, s["pair"].get<int>()}].push_back(place);
            ++chunks[key];
            received[key].first += s["quantities"]["packets"].get<double>();
            received[key].second += s["quantities"]["offered_packets"].get<double>();
        }
        for (const auto& [key, counts] : received) {
            EXPECT_GT(counts.first, 0.1 * counts.second)
                << "repetition " << std::get<0>(key) << ", variant " << std::get<1>(key) << ", place "
                << std::get<2>(key) << ": received " << counts.first << " of " << counts.second << " offered";
        }
        for (const auto& [key, places] : placesOfPair) {
            ASSERT_EQ(places.size(), 2u);
            EXPECT_NE(places.front(), places.back()) << "repetition " << key.first << ", pair " << key.second;
        }
        ASSERT_EQ(chunks.size(), 8u) << "2 repetitions x 2 variants x 2 places";
        const int each = chunks.begin()->second;
        for (const auto& [key, n] : chunks) {
            EXPECT_EQ(n, each) << "repetition " << std::get<0>(key) << ", variant " << std::get<1>(key) << ", place "
                               << std::get<2>(key);
        }
        EXPECT_NE(out.find("the variants traded 2 places (pps against place 1: place 2 "), std::string::npos) << out;
    }

    // `allowInvalid`: the verdict the statistics give a test the validity rules call invalid (a
    // known difference made by starving one variant is found whether or not the test is valid).
    nlohmann::json comparison(const std::string& metric = "pps", bool allowInvalid = false,
                              const std::string& design = "")
    {
        std::vector<std::string> args = {"compare", "last", "--format", "json"};
        if (allowInvalid) {
            args.emplace_back("--allow-invalid");
        }
        const auto r = run(args);
        EXPECT_EQ(r.status, 0) << r.err;
        const auto json = nlohmann::json::parse(r.out);
        for (const auto& c : json["comparisons"]) {
            if (c["metric"] == metric && (design.empty() || c["design"] == design)) {
                return c;
            }
        }
        ADD_FAILURE() << "no comparison of " << metric << " in " << r.out;
        return {};
    }
};

// Two identical variants side by side, fed by xdp-live (the destination port flipped in its BPF
// map): both receive, every chunk carries its pair index and guard count, the verdict rests on the
// setups (a repetition's two phases each) with the chunk pairs beside, and the reports say the
// design and what the guards dropped.
TEST_F(CliLiveChunk, IdenticalVariantsSideBySideAreAnalysedBySetupAndChunkPair)
{
    const auto r = run({"run", "udp-rx", "--reps", "2", "--duration", "1", "--warmup", "0.2", "--variant", "a:batch=64",
                        "--variant", "b:batch=64", "-p", "generator=xdp-live", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("live design: side by side in chunks; "), std::string::npos) << r.out;
    const auto exported = nlohmann::json::parse(run({"export", "last", "--format", "json"}).out);
    EXPECT_NEAR(exported["spec"]["chunk"].get<double>(), 0.025, 1e-12);
    double packets[2] = {0, 0};
    double guard = 0;
    int pairs = 0;
    for (const auto& s : exported["samples"]) {
        const int v = s["variant_name"] == "a" ? 0 : 1;
        EXPECT_GE(s["pair"].get<int>(), 0);
        pairs = std::max(pairs, s["pair"].get<int>() + 1);
        packets[v] += s["quantities"]["packets"].get<double>();
        guard += s["quantities"]["guard_packets"].get<double>();
        EXPECT_GE(s["quantities"]["guard_ns"].get<double>(), 1e6) << "a guard of at least 1 ms";
    }
    EXPECT_EQ(pairs, 40);  // 1 s of 25 ms chunks per variant
    expectTradedPlaces(exported, r.out);
    EXPECT_GT(packets[0], 1000);
    EXPECT_GT(packets[1], 1000) << "the generator's traffic reached b's port";
    EXPECT_LT(packets[1], 2 * packets[0]);
    EXPECT_GT(packets[1], packets[0] / 2);
    EXPECT_GT(guard, 0);
    const auto c = comparison();
    EXPECT_EQ(c["design"], "setups");
    EXPECT_EQ(c["unit_of_analysis"], "setup");
    EXPECT_EQ(c["setups_measured"], 4) << "2 repetitions of 2 phases";
    // Identical variants: an A/A comparison is called `different` at the rate alpha, and on a
    // busy shared machine its interval is wide. What must hold every time is that the interval
    // never claims a large difference: it reaches into +-3%. The false-positive rate itself is
    // the seeded A/A benchmark's to measure.
    EXPECT_LT(c["ci_low_pct"].get<double>(), 3.0) << c.dump();
    EXPECT_GT(c["ci_high_pct"].get<double>(), -3.0) << c.dump();
    const auto beside = comparison("pps", false, "paired");
    EXPECT_EQ(beside["unit_of_analysis"], "chunk pair");
    EXPECT_EQ(beside["primary"], false);
    expectNothingLeft();
}

// --setups 4: each repetition in four phases, the receivers started anew in each on the place the
// rotation gives them (a b, b a, a b, b a), every setup one value of the verdict's t test.
TEST_F(CliLiveChunk, SetupsSplitEachRepetitionAndCarryTheVerdict)
{
    const auto r =
        run({"run", "udp-rx", "--reps", "1", "--duration", "1", "--warmup", "0.05", "--setups", "4", "--variant",
             "a:batch=64", "--variant", "b:batch=64", "-p", "generator=xdp-live", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("4 setups per repetition"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--setups 4"), std::string::npos) << "the command line that repeats the run: " << r.out;
    const auto exported = nlohmann::json::parse(run({"export", "last", "--format", "json"}).out);
    EXPECT_EQ(exported["spec"]["setups"], 4);
    std::map<int, int> placeOfA;  // pair -> a's place
    for (const auto& s : exported["samples"]) {
        if (s["variant_name"] == "a") {
            placeOfA[s["pair"].get<int>()] = static_cast<int>(s["quantities"]["place"].get<double>());
        }
    }
    ASSERT_EQ(placeOfA.size(), 40u);
    int changes = 0;
    for (auto it = std::next(placeOfA.begin()); it != placeOfA.end(); ++it) {
        changes += it->second != std::prev(it)->second ? 1 : 0;
    }
    EXPECT_EQ(changes, 3) << "four phases of ten rounds, on alternating places";
    const auto c = comparison();
    EXPECT_EQ(c["design"], "setups");
    EXPECT_EQ(c["setups_measured"], 4);
    ASSERT_EQ(c["setup_cells"].size(), 4u) << c.dump();
    for (const auto& cell : c["setup_cells"]) {  // ten rounds each, less a chunk the machine took
        EXPECT_LE(cell["pairs"].get<int>(), 10) << cell.dump();
        EXPECT_GE(cell["pairs"].get<int>(), 3) << cell.dump();
    }
    EXPECT_TRUE(c["setup_spread_pct"].is_number()) << c.dump();
    const auto text = run({"compare", "last", "--metric", "pps", "--verbose"});
    EXPECT_NE(text.out.find("over 4 setups"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("setup spread +-"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("paired analysis (chunk pairs)"), std::string::npos) << text.out;
    expectNothingLeft();
}

// A receive buffer of 4 KiB (a few datagrams) against the default: a known difference (the small
// buffer overflows between the receiver's calls), found in chunks.
TEST_F(CliLiveChunk, AKnownDifferenceIsFoundInChunks)
{
    const auto r =
        run({"run", "udp-rx", "--reps", "2", "--duration", "1", "--warmup", "0.1", "--setups", "4", "--variant",
             "small:rcvbuf=4096", "--variant", "default:rcvbuf=0", "-p", "generator=xdp-live", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    // The small buffer loses datagrams while its receiver waits: not a valid receive test.
    EXPECT_EQ(comparison()["verdict"], "invalid");
    const auto c = comparison("pps", true);
    EXPECT_EQ(c["design"], "setups");
    EXPECT_EQ(c["verdict"], "different") << c.dump();
    EXPECT_GT(c["delta_pct"].get<double>(), 0) << "the default buffer receives more per second";
    expectNothingLeft();
}

// Variants that share a device setting keep interleaved repetitions, and the report says why; so
// does --chunk 0 for variants that could alternate.
TEST_F(CliLiveChunk, VariantsThatCannotRunSideBySideKeepRepetitionsAndSayWhy)
{
    auto r = run({"run", "udp-rx", "--reps", "2", "--duration", "0.2", "--interval", "0.1", "--warmup", "0.05",
                  "--variant", "on:gro=1", "--variant", "off:gro=0", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("live design: repetitions: gro is a setting of the receiving device"), std::string::npos)
        << r.out;
    EXPECT_EQ(comparison()["unit_of_analysis"], "repetition pair");
    r = run({"run", "udp-rx", "--reps", "2", "--duration", "0.2", "--interval", "0.1", "--warmup", "0.05", "--chunk",
             "0", "--variant", "a:batch=8", "--variant", "b:batch=64", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("live design: repetitions: chunk 0"), std::string::npos) << r.out;
    expectNothingLeft();
}

TEST_F(CliLiveChunk, BadChunkValuesAreUsageErrorsOnOneLine)
{
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--chunk", "-1"}, "--chunk -1.0: must be >= 0"},
        {{"--chunk", "nan"}, "--chunk"},
        {{"--chunk", "0.001"}, "--chunk 0.001: a live chunk must be at least 0.005 s"},
        {{"--chunk", "0.05", "-p", "busy_poll=50"},
         "--chunk 0.05: cannot alternate these variants in chunks: busy_poll"},
        {{"--chunk", "0.05", "--variant", "c:tx_batch=32"}, "tx_batch differs"},
    };
    for (const auto& [extra, message] : cases) {
        std::vector<std::string> args = {"run", "udp-rx", "--variant", "a:batch=8", "--variant", "b:batch=64"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto r = run(args);
        EXPECT_EQ(r.status, 2) << message << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    const auto xdp =
        run({"run", "xdp-rx", "--chunk", "0.05", "--variant", "a:xdp_mode=skb", "--variant", "b:xdp_mode=native"});
    EXPECT_EQ(xdp.status, 2) << xdp.err;
    EXPECT_NE(xdp.err.find("cannot alternate these variants in chunks: xdp_mode is how the receiving device runs XDP"),
              std::string::npos)
        << xdp.err;
    expectNothingLeft();
}

// xdp-rx variants that differ only in AF_XDP application settings: a veth testbed each, the
// xdp-live generator's program redirecting its frames to one testbed at a time. Both receive, the
// chunks of each repetition come in A B B A order with their pair index and guard, and the
// analysis is paired.
TEST_F(CliLiveChunk, XdpRxIdenticalVariantsRunOnTwoTestbedsInChunkPairs)
{
    const auto r = run({"run", "xdp-rx", "--reps", "2", "--duration", "1", "--warmup", "0.2", "--variant", "a:batch=64",
                        "--variant", "b:batch=64", "-p", "counter_cpus=none", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("live design: side by side in chunks; "), std::string::npos) << r.out;
    const auto exported = nlohmann::json::parse(run({"export", "last", "--format", "json"}).out);
    EXPECT_NEAR(exported["spec"]["chunk"].get<double>(), 0.05, 1e-12);
    std::map<int, std::vector<std::pair<double, int>>> byRepetition;  // (start, variant) of every chunk
    std::map<std::pair<int, int>, std::vector<int>> pairs;            // (repetition, pair) -> variants
    double packets[2] = {0, 0};
    double gen = 0;
    double guard = 0;
    for (const auto& s : exported["samples"]) {
        const int v = s["variant_name"] == "a" ? 0 : 1;
        const int rep = s["repetition"].get<int>();
        ASSERT_FALSE(s["pair"].is_null());
        byRepetition[rep].emplace_back(s["start_s"].get<double>(), v);
        pairs[{rep, s["pair"].get<int>()}].push_back(v);
        packets[v] += s["quantities"]["packets"].get<double>();
        gen += s["quantities"]["offered_packets"].get<double>();
        guard += s["quantities"]["guard_packets"].get<double>();
        EXPECT_GE(s["quantities"]["guard_ns"].get<double>(), 1e6) << "a guard of at least 1 ms";
    }
    EXPECT_EQ(pairs.size(), 40u);  // 2 repetitions of 1 s of 50 ms chunks per variant
    expectTradedPlaces(exported, r.out);
    for (const auto& [key, variants] : pairs) {
        EXPECT_EQ(variants.size(), 2u);
        EXPECT_NE(variants.front(), variants.back()) << "a pair holds one chunk of each variant";
    }
    for (auto& [rep, chunks] : byRepetition) {
        std::sort(chunks.begin(), chunks.end());
        for (std::size_t i = 2; i + 1 < chunks.size(); i += 2) {
            EXPECT_EQ(chunks[i].second, chunks[i - 1].second) << "A B B A: repetition " << rep << ", chunk " << i;
        }
    }
    EXPECT_GT(packets[0], 1000);
    EXPECT_GT(packets[1], 1000) << "the generator's frames reached b's testbed";
    EXPECT_LT(packets[1], 2 * packets[0]);
    EXPECT_GT(packets[1], packets[0] / 2);
    // A chunk also receives the frames offered to its variant during the guard before it (still in
    // the generator's kernel batch or the veth ring when the chunk starts), so on a quiet machine,
    // where few are dropped, the chunks may receive a little more than was offered while they ran.
    EXPECT_GE(1.01 * gen, packets[0] + packets[1]) << "chunks count what the generator offered to their variant";
    EXPECT_GT(guard, 0);
    const auto facts = exported["environment"]["measurement"]["variant_facts"];
    EXPECT_NE(facts["a"]["receiver"], facts["b"]["receiver"]) << "a testbed each";
    EXPECT_NE(facts["a"]["generator"].get<std::string>().find("DEVMAP"), std::string::npos) << facts.dump();
    const auto c = comparison();
    EXPECT_EQ(c["design"], "setups");
    EXPECT_EQ(c["unit_of_analysis"], "setup");
    // Not the verdict: A/A runs of 10 s were called different in 2 of 20 here (docs/benchmarks.md),
    // so a 2 s run would fail about as often. A gross difference would mean the testbeds differ.
    EXPECT_LT(std::abs(c["delta_pct"].get<double>()), 50.0) << c.dump();
    expectNothingLeft();
}

// A known difference side by side: l2fwd sends every frame back (a system call per pass in copy
// mode) where rxdrop only recycles it, so it receives fewer per second.
TEST_F(CliLiveChunk, XdpRxAKnownDifferenceIsFoundInChunks)
{
    const auto r =
        run({"run", "xdp-rx", "--reps", "2", "--duration", "1", "--warmup", "0.1", "--setups", "4", "--variant",
             "l2fwd:app=l2fwd", "--variant", "rxdrop:app=rxdrop", "-p", "counter_cpus=none", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto c = comparison("pps", true);
    EXPECT_EQ(c["design"], "setups");
    EXPECT_EQ(c["verdict"], "different") << c.dump();
    EXPECT_GT(c["delta_pct"].get<double>(), 0) << "rxdrop receives more per second";
    expectNothingLeft();
}

// Variants that cannot share the design (the XDP attach mode of the receiving device) run in
// repetitions by default, and the report says why.
TEST_F(CliLiveChunk, XdpRxAttachModesKeepRepetitionsAndSayWhy)
{
    const auto r =
        run({"run", "xdp-rx", "--reps", "2", "--duration", "0.2", "--interval", "0.1", "--warmup", "0.05", "--variant",
             "skb:xdp_mode=skb", "--variant", "native:xdp_mode=native", "-p", "counter_cpus=none", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("live design: repetitions: xdp_mode is how the receiving device runs XDP"), std::string::npos)
        << r.out;
    EXPECT_EQ(comparison()["unit_of_analysis"], "repetition pair");
    expectNothingLeft();
}

// A side-by-side run that fails half-way through setting up (the second variant's socket cannot
// bind zero-copy on veth) leaves none of the first variant's testbed, program or socket behind.
TEST_F(CliLiveChunk, XdpRxSideBySideFailureLeavesNothing)
{
    const auto r = run({"run", "xdp-rx", "--reps", "1", "--duration", "0.2", "--warmup", "0", "--variant",
                        "a:bind=copy", "--variant", "b:bind=zerocopy", "-p", "counter_cpus=none", "--share-cpus"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.err.find("zero"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    expectNothingLeft();
}

}  // namespace
}  // namespace nf::test
