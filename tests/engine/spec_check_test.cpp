// The one check of an experiment before it runs (engine/catalog/spec_check.h), which the CLI and
// the GUI's editor share.

#include <gtest/gtest.h>

#include "engine/catalog/spec_check.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/workloads/registry.h"

namespace nf::engine {
namespace {

base::SystemFacts twoCpus()
{
    base::SystemFacts facts;
    facts.onlineCpus = {0, 1};
    facts.allowedCpus = {0, 1};
    return facts;
}

ExperimentSpec spin()
{
    ExperimentSpec spec;
    spec.workload = "spin";
    return spec;
}

std::vector<std::string> messages(const SpecCheck& check)
{
    std::vector<std::string> out;
    for (const auto& p : check.problems) {
        out.push_back(describe(p, toString(p.field)));
    }
    return out;
}

TEST(SpecCheck, FillsInTheDefaultsOfAGoodSpec)
{
    auto check = checkExperiment(spin(), std::nullopt, twoCpus());
    ASSERT_TRUE(check.ok()) << messages(check).front();
    ASSERT_EQ(check.experiment.points.size(), 1u);
    const auto& point = check.experiment.points.front();
    ASSERT_EQ(point.variants.size(), 1u);
    EXPECT_EQ(point.variants[0].name, "default");
    EXPECT_EQ(point.chunk.value_or(-1), 0.002);
    EXPECT_EQ(point.cpus, std::vector<int>{1});  // the last allowed CPU
    EXPECT_EQ(check.experiment.params.front().front().integer("work"), 1000);
}

// A repetition is held whole until stored: one that would hold more samples than the bound is
// refused before anything runs (it once allocated gigabytes and ended in bad_alloc).
TEST(SpecCheck, BoundsTheSamplesOfOneRepetition)
{
    auto longRun = spin();
    longRun.duration = 86400;
    longRun.repetitions = 100000;
    auto check = checkExperiment(longRun, std::nullopt, twoCpus());
    ASSERT_FALSE(check.ok());
    EXPECT_EQ(check.problems.front().field, SpecField::Duration);
    EXPECT_NE(check.problems.front().message.find("43200000 samples (at most 1000000)"), std::string::npos)
        << check.problems.front().message;
    auto fits = spin();
    fits.duration = 1000;  // 500,000 chunks of 2 ms
    EXPECT_TRUE(checkExperiment(fits, std::nullopt, twoCpus()).ok());
    fits.variants = {{"a", {}}, {"b", {}}, {"c", {}}};  // every variant takes turns in the repetition
    EXPECT_FALSE(checkExperiment(fits, std::nullopt, twoCpus()).ok());
}

TEST(SpecCheck, CollectsEveryProblemWithItsFieldAndNoCommandLineOption)
{
    auto spec = spin();
    spec.repetitions = 0;
    spec.duration = -1;
    spec.variants = {{"a", {{"work", "0"}}}, {"a", {}}, {"late/v1", {}}};
    spec.cpus = {7};
    auto check = checkExperiment(spec, std::nullopt, twoCpus());
    ASSERT_FALSE(check.ok());
    std::vector<SpecField> fields;
    for (const auto& p : check.problems) {
        fields.push_back(p.field);
        EXPECT_EQ(p.message.find("--"), std::string::npos) << p.message;
    }
    EXPECT_EQ(fields, (std::vector<SpecField>{SpecField::Repetitions, SpecField::Duration, SpecField::Variants,
                                              SpecField::Variants, SpecField::Cpus, SpecField::Param}));
    EXPECT_EQ(describe(check.problems[0], "--reps"), "--reps 0: must be 1..100000");
    EXPECT_EQ(describe(check.problems[2], "Variants"), "Variants a: duplicate variant name");
    EXPECT_EQ(describe(check.problems[4], "--cpu"), "--cpu 7: no such CPU available (online: 0-1, allowed: 0-1)");
    EXPECT_EQ(describe(check.problems[5], "-p"), "variant a: work=0: out of range 1..100000000");
}

// udp-rx alternates in chunks by default only when its variants can run side by side (they differ
// in batch or rcvbuf alone); else it keeps repetitions, and a chunk asked for then is refused.
TEST(SpecCheck, LiveVariantsAlternateInChunksOnlyWhenTheyCanRunSideBySide)
{
    const auto chunkOf = [](std::vector<VariantSpec> variants, std::optional<double> chunk = std::nullopt) {
        ExperimentSpec spec;
        spec.workload = "udp-rx";
        spec.variants = std::move(variants);
        spec.chunk = chunk;
        return checkExperiment(spec, std::nullopt, twoCpus());
    };
    auto side = chunkOf({{"a", {{"batch", "8"}}}, {"b", {{"rcvbuf", "65536"}}}});
    ASSERT_TRUE(side.ok());
    EXPECT_EQ(side.experiment.points[0].chunk, 0.025);
    auto gro = chunkOf({{"a", {{"gro", "1"}}}, {"b", {{"gro", "0"}}}});
    ASSERT_TRUE(gro.ok());
    EXPECT_EQ(gro.experiment.points[0].chunk, 0.0);
    auto one = chunkOf({{"a", {}}});
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one.experiment.points[0].chunk, 0.0);
    EXPECT_EQ(messages(chunkOf({{"a", {{"busy_poll", "50"}}}, {"b", {{"busy_poll", "50"}}}}, 0.05)),
              std::vector<std::string>{"chunk 0.05: cannot alternate these variants in chunks: busy_poll polls the "
                                       "device's NAPI, shared side by side"});
    EXPECT_EQ(messages(chunkOf({{"a", {}}, {"b", {}}}, 0.002)),
              std::vector<std::string>{"chunk 0.002: a live chunk must be at least 0.005 s (or 0 for repetitions)"});
    EXPECT_TRUE(chunkOf({{"a", {{"gro", "1"}}}, {"b", {{"gro", "0"}}}}, 0.0).ok());
    ExperimentSpec xdp;
    xdp.workload = "xdp-rx";
    xdp.variants = {{"a", {{"batch", "1"}, {"ring_size", "512"}}}, {"b", {{"need_wakeup", "0"}, {"app", "l2fwd"}}}};
    auto xdpSide = checkExperiment(xdp, std::nullopt, twoCpus());
    ASSERT_TRUE(xdpSide.ok());
    EXPECT_EQ(xdpSide.experiment.points[0].chunk, 0.05) << "AF_XDP application settings: side by side by default";
    xdp.variants = {{"skb", {{"xdp_mode", "skb"}}}, {"native", {{"xdp_mode", "native"}}}};
    auto mode = checkExperiment(xdp, std::nullopt, twoCpus());
    ASSERT_TRUE(mode.ok());
    EXPECT_EQ(mode.experiment.points[0].chunk, 0.0);
    xdp.chunk = 0.05;
    EXPECT_EQ(messages(checkExperiment(xdp, std::nullopt, twoCpus())),
              std::vector<std::string>{"chunk 0.05: cannot alternate these variants in chunks: xdp_mode is how the "
                                       "receiving device runs XDP, not a setting of the application: side by side "
                                       "each variant's device is set up alike"});
    const std::vector<std::pair<std::vector<VariantSpec>, std::string>> blocked = {
        {{{"a", {{"busy_poll", "1"}}}, {"b", {{"busy_poll", "1"}}}}, "busy_poll polls the device"},
        {{{"a", {{"generator", "sendmmsg"}}}, {"b", {{"generator", "sendmmsg"}}}}, "generator=sendmmsg sends to one"},
        {{{"a", {{"rx_cpu", "0"}, {"share_cpu", "1"}}}, {"b", {{"share_cpu", "1"}}}}, "rx_cpu differs"},
        {{{"a", {{"tx_batch", "8"}}}, {"b", {}}}, "tx_batch differs"},
    };
    for (const auto& [variants, reason] : blocked) {
        xdp.variants = variants;
        const auto m = messages(checkExperiment(xdp, std::nullopt, twoCpus()));
        ASSERT_EQ(m.size(), 1u) << reason;
        EXPECT_NE(m[0].find("cannot alternate these variants in chunks: " + reason), std::string::npos) << m[0];
    }
}

TEST(SpecCheck, RunsTheWorkloadsOwnChecksOnEveryVariant)
{
    ExperimentSpec spec;
    spec.workload = "udp-rx";
    spec.variants = {{"ok", {}},
                     {"far", {{"rx_cpu", "7"}}},
                     {"same", {{"tx_cpu", "1"}}},
                     {"shared", {{"tx_cpu", "1"}, {"share_cpu", "1"}}}};
    auto check = checkExperiment(spec, std::nullopt, twoCpus());
    ASSERT_EQ(check.problems.size(), 2u);
    EXPECT_EQ(check.problems[0].variant, "far");
    EXPECT_EQ(check.problems[0].message, "rx_cpu=7: CPU 7 is offline or not allowed to this process (allowed: 0-1)");
    EXPECT_EQ(check.problems[1].variant, "same");
    EXPECT_EQ(check.problems[1].message, "tx_cpu=1 and rx_cpu=1 are the same CPU (set share_cpu=1 to allow it)");

    ExperimentSpec frag;
    frag.workload = "page-frag";
    frag.params = {{"align", "3"}};
    EXPECT_EQ(messages(checkExperiment(frag, std::nullopt, twoCpus())),
              std::vector<std::string>{"align=3: must be 0 or a power of two"});
    frag.params = {{"push_cpu", "0"}};
    frag.cpus = {1};
    EXPECT_FALSE(checkExperiment(frag, std::nullopt, twoCpus()).ok());
    frag.cpus = {0};
    EXPECT_TRUE(checkExperiment(frag, std::nullopt, twoCpus()).ok());

    ExperimentSpec command;
    command.workload = "command";
    EXPECT_EQ(messages(checkExperiment(command, std::nullopt, twoCpus())),
              std::vector<std::string>{"cmd is empty: set it to the program and its arguments"});
    command.params = {{"cmd", "echo 'open"}};
    EXPECT_FALSE(checkExperiment(command, std::nullopt, twoCpus()).ok());
}

TEST(SpecCheck, ChecksEverySweepPointAndTellsSimilarNamesApart)
{
    ExperimentSpec spec;
    spec.workload = "udp-rx";
    spec.variants = {{"a", {}}, {"b", {{"tx_batch", "4"}}}};
    // tx_batch is not batch: a variant may set it while the sweep sets batch.
    auto check = checkExperiment(spec, SweepSpec{"batch", {"1", "64"}}, twoCpus(), "sweep-1");
    ASSERT_TRUE(check.ok()) << messages(check).front();
    ASSERT_EQ(check.experiment.points.size(), 2u);
    EXPECT_EQ(check.experiment.points[1].sweep->value, "64");
    EXPECT_EQ(check.experiment.params[1][1].integer("batch"), 64);
    EXPECT_EQ(check.experiment.params[1][1].integer("tx_batch"), 4);

    spec.variants[1].overrides = {{"batch", "4"}};
    auto clash = checkExperiment(spec, SweepSpec{"batch", {"1", "64"}}, twoCpus(), "sweep-1");
    ASSERT_EQ(clash.problems.size(), 1u);
    EXPECT_EQ(describe(clash.problems[0], "--sweep"),
              "--sweep batch: variant b sets it too; a sweep sets it for every variant");

    spec.variants.pop_back();
    auto bad = checkExperiment(spec, SweepSpec{"batch", {"1", "0", "2000"}}, twoCpus(), "sweep-1");
    EXPECT_EQ(messages(bad),
              (std::vector<std::string>{"batch=0: out of range 1..1024", "batch=2000: out of range 1..1024"}));
    auto unknown = checkExperiment(spec, SweepSpec{"colour", {"1", "2"}}, twoCpus(), "sweep-1");
    EXPECT_EQ(unknown.problems.front().field, SpecField::Sweep);
}

TEST(SpecCheck, AnUnknownWorkloadNamesTheKnownOnes)
{
    ExperimentSpec spec;
    spec.workload = "nope";
    auto check = checkExperiment(spec, std::nullopt, twoCpus());
    ASSERT_FALSE(check.ok());
    EXPECT_EQ(check.problems.front().field, SpecField::Workload);
    EXPECT_NE(check.problems.front().message.find("spin, indirect-call"), std::string::npos);
}

// Every catalogue entry has a measuring implementation of its kind, and nothing else is registered.
TEST(WorkloadCatalog, EveryEntryHasItsImplementation)
{
    const auto& implementations = workloads::implementations();
    std::size_t measured = 0;
    for (const auto& w : workloadCatalog()) {
        const auto* impl = findImplementation(implementations, w.name);
        if (w.kind == WorkloadKind::External) {
            EXPECT_EQ(impl, nullptr) << w.name;
            continue;
        }
        ++measured;
        ASSERT_NE(impl, nullptr) << w.name;
        EXPECT_EQ(static_cast<bool>(impl->make), w.kind == WorkloadKind::InProcess) << w.name;
        EXPECT_EQ(static_cast<bool>(impl->makeLive), w.kind == WorkloadKind::Live) << w.name;
        EXPECT_FALSE(workloadMetrics(w).empty());
        EXPECT_EQ(workloadMetrics(w).front().name, w.primaryMetric) << w.name;
    }
    EXPECT_EQ(measured, implementations.size());
}

// Both halves of every workload come from one list (engine/catalog/workload_list.h), in its order,
// with its names and kinds: the catalogue and the registry cannot disagree on a name.
TEST(WorkloadCatalog, NamesAndKindsComeFromTheOneList)
{
    struct Listed {
        std::string name;
        WorkloadKind kind;
    };
#define NF_LISTED(function, name, kind) Listed{name, WorkloadKind::kind},
    const std::vector<Listed> listed = {NF_WORKLOADS(NF_LISTED)};
#undef NF_LISTED
    const auto& catalog = workloadCatalog();
    ASSERT_EQ(catalog.size(), listed.size());
    std::vector<std::string> measured;
    for (std::size_t i = 0; i < listed.size(); ++i) {
        EXPECT_EQ(catalog[i].name, listed[i].name);
        EXPECT_EQ(catalog[i].kind, listed[i].kind) << listed[i].name;
        if (listed[i].kind != WorkloadKind::External) {
            measured.push_back(listed[i].name);
        }
    }
    const auto& implementations = workloads::implementations();
    ASSERT_EQ(implementations.size(), measured.size());
    for (std::size_t i = 0; i < measured.size(); ++i) {
        EXPECT_EQ(implementations[i].name, measured[i]);
        auto found = findImplementation(implementations, *findWorkload(measured[i]));
        ASSERT_TRUE(found.ok()) << found.error().message;
        EXPECT_EQ(*found, &implementations[i]);
    }
    auto command = findImplementation(implementations, *findWorkload("command"));
    ASSERT_TRUE(command.ok());
    EXPECT_EQ(*command, nullptr);  // run by engine/run/command_experiment
    auto none = findImplementation(WorkloadImplementations{}, *findWorkload("spin"));
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().message, "workload spin has no measuring implementation in this build");
}

// --layouts and layout=N (docs/measurement.md, "Code layout as a factor").
// Hardware counters count user mode in in-process loops (an interrupt would land in whichever
// variant's chunk it hit) and user and kernel mode in live tests and commands (the kernel's receive
// work is what they measure); --counters-mode overrides either.
TEST(SpecCheck, CountersModeDefaultsByWorkloadKindAndTheGivenOneStays)
{
    for (const auto& [workload, mode] :
         std::vector<std::pair<std::string, CountersMode>>{{"spin", CountersMode::User},
                                                           {"page-pool", CountersMode::User},
                                                           {"page-frag", CountersMode::User},
                                                           {"indirect-call", CountersMode::User},
                                                           {"udp-rx", CountersMode::All},
                                                           {"xdp-rx", CountersMode::All},
                                                           {"iface-rx", CountersMode::All},
                                                           {"command", CountersMode::All}}) {
        const auto* w = findWorkload(workload);
        ASSERT_NE(w, nullptr) << workload;
        EXPECT_EQ(defaultCountersMode(*w), mode) << workload;
    }
    auto check = checkExperiment(spin(), std::nullopt, twoCpus());
    ASSERT_TRUE(check.ok()) << messages(check).front();
    EXPECT_EQ(check.experiment.points.front().countersMode, CountersMode::User);
    auto all = spin();
    all.countersMode = CountersMode::All;
    check = checkExperiment(all, std::nullopt, twoCpus());
    ASSERT_TRUE(check.ok()) << messages(check).front();
    EXPECT_EQ(check.experiment.points.front().countersMode, CountersMode::All);
}

TEST(SpecCheck, LayoutsDefaultToEightOnlyWhenTheVariantsRunDifferentCode)
{
    ExperimentSpec pool;
    pool.workload = "page-pool";
    pool.variants = {{"late", {{"check", "late"}}}, {"early", {{"check", "early"}}}};
    auto check = checkExperiment(pool, std::nullopt, twoCpus());
    ASSERT_TRUE(check.ok()) << messages(check).front();
    EXPECT_EQ(check.experiment.points.front().layouts, kMaxLayouts);

    pool.variants = {{"none", {{"zero_size_pct", "0"}}}, {"all", {{"zero_size_pct", "100"}}}};
    check = checkExperiment(pool, std::nullopt, twoCpus());
    ASSERT_TRUE(check.ok()) << messages(check).front();
    EXPECT_EQ(check.experiment.points.front().layouts, 0);

    auto one = spin();
    one.variants = {{"a", {{"work", "100"}}}, {"b", {{"work", "200"}}}};
    check = checkExperiment(one, std::nullopt, twoCpus());
    ASSERT_TRUE(check.ok());
    EXPECT_EQ(check.experiment.points.front().layouts, 0);
    one.layouts = 4;
    check = checkExperiment(one, std::nullopt, twoCpus());
    ASSERT_TRUE(check.ok());
    EXPECT_EQ(check.experiment.points.front().layouts, 4);
}

TEST(SpecCheck, RefusesLayoutsWhereNoiseFloorDoesNotBuildTheCodeOrOutOfRange)
{
    ExperimentSpec udp;
    udp.workload = "udp-rx";
    udp.layouts = 8;
    auto check = checkExperiment(udp, std::nullopt, twoCpus());
    ASSERT_FALSE(check.ok());
    EXPECT_EQ(check.problems.front().field, SpecField::Layouts);
    EXPECT_NE(check.problems.front().message.find("does not build"), std::string::npos);

    for (int bad : {1, 9, -1}) {
        auto s = spin();
        s.layouts = bad;
        check = checkExperiment(s, std::nullopt, twoCpus());
        ASSERT_FALSE(check.ok()) << bad;
        EXPECT_EQ(describe(check.problems.front(), "--layouts"),
                  "--layouts " + std::to_string(bad) + ": must be 0 (layout not a factor) or 2..8 placements");
    }

    auto pinned = spin();
    pinned.variants = {{"a", {{"layout", "0"}}}, {"b", {{"layout", "8"}}}};
    check = checkExperiment(pinned, std::nullopt, twoCpus());
    ASSERT_FALSE(check.ok());
    EXPECT_EQ(messages(check).front(), "variant b: layout=8: out of range 0..7 (a code placement)");

    pinned.variants = {{"a", {{"layout", "0"}}}, {"b", {{"layout", "x"}}}};
    check = checkExperiment(pinned, std::nullopt, twoCpus());
    ASSERT_FALSE(check.ok());
    EXPECT_EQ(messages(check).front(), "variant b: layout=x: not a whole number 0..7 (a code placement)");

    pinned.variants = {{"a", {{"layout", "0"}}}, {"b", {{"layout", "7"}}}};
    pinned.layouts = 8;
    check = checkExperiment(pinned, std::nullopt, twoCpus());
    ASSERT_FALSE(check.ok());
    EXPECT_NE(messages(check).front().find("every variant is pinned"), std::string::npos);

    pinned.layouts.reset();
    check = checkExperiment(pinned, std::nullopt, twoCpus());
    ASSERT_TRUE(check.ok()) << messages(check).front();
    EXPECT_EQ(check.experiment.points.front().pinnedLayout(1), "7");
    EXPECT_EQ(check.experiment.points.front().layouts, 0);

    ExperimentSpec command;
    command.workload = "command";
    command.params = {{"layout", "2"}};
    check = checkExperiment(command, std::nullopt, twoCpus());
    ASSERT_FALSE(check.ok());
    EXPECT_NE(messages(check).front().find("layout=2: command runs code noisefloor does not build"), std::string::npos)
        << messages(check).front();
}

}  // namespace
}  // namespace nf::engine
