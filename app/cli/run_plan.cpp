#include "app/cli/run_plan.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "app/cli/run_options.h"
#include "base/system_facts.h"
#include "engine/catalog/plan_time.h"
#include "engine/run/cpu_claim.h"
#include "engine/run/profile_stage.h"
#include "engine/run/run_context.h"
#include "engine/run/scheduler.h"
#include "engine/workloads/registry.h"

namespace nf::cli {

namespace {

std::string join(const std::vector<std::string>& xs, const std::string& sep)
{
    std::string out;
    for (const auto& x : xs) {
        out += (out.empty() ? "" : sep) + x;
    }
    return out;
}

std::string schedule(const engine::ExperimentSpec& s)
{
    const std::string order = std::string(engine::toString(s.order));
    if (s.alternating()) {
        return fmt::format("variants alternate in {:g} ms chunks inside each repetition, order {}", *s.chunk * 1e3,
                           order);
    }
    return fmt::format("one variant per repetition sampled every {:g} s, order {}", s.interval, order);
}

// Code layout as a factor (docs/measurement.md): how many placements, and whether the
// repetitions complete the design.
std::string layouts(const engine::ExperimentSpec& s)
{
    const int k = s.layouts.value_or(0);
    if (k == 0) {
        return "";
    }
    return fmt::format("code placements: {} per variant, one per repetition{}", k,
                       s.until || s.repetitions >= k
                           ? ""
                           : fmt::format("; {} repetitions measure {} of them (--reps {} completes the design)",
                                         s.repetitions, s.repetitions, k));
}

void printOne(const engine::PreparedExperiment& p, std::ostream& out)
{
    const auto& s = p.spec;
    const auto variants = s.variants.size();
    if (s.sweep) {
        out << fmt::format("point {} of {}: {}={}\n", s.sweep->index + 1, s.sweep->points, s.sweep->param,
                           s.sweep->value);
    }
    for (std::size_t v = 0; v < variants; ++v) {
        std::vector<std::string> settings;
        for (const auto& [key, value] : p.params[v].all()) {
            settings.push_back(key + "=" + value);
        }
        if (const auto pinned = s.pinnedLayout(v)) {
            settings.push_back(std::string(engine::kLayoutParam) + "=" + *pinned + " (pinned placement)");
        }
        out << "  variant " << s.variants[v].name << ": " << join(settings, " ") << '\n';
    }
}

Result<std::vector<engine::PreparedExperiment>> prepareAll(const std::vector<engine::ExperimentSpec>& specs)
{
    const auto facts = base::readSystemFacts();
    std::vector<engine::PreparedExperiment> prepared;
    prepared.reserve(specs.size());
    for (const auto& spec : specs) {
        prepared.push_back(
            NF_TRY(engine::prepareExperiment(spec, facts, engine::workloads::implementations(), optionName)));
    }
    return prepared;
}

}  // namespace

int printPlan(std::vector<engine::ExperimentSpec> specs, std::ostream& out)
{
    const bool seedGiven = !specs.empty() && specs.front().seed.has_value();
    auto preparedOr = prepareAll(specs);
    if (!preparedOr) {
        return fail(kExitUsage, preparedOr.error().message);
    }
    const auto& prepared = *preparedOr;
    const auto& first = prepared.front();
    const auto& s = first.spec;
    if (s.pmu.simulated) {
        out << engine::simulatedCountersNote(s.pmu) << '\n';
    }
    out << fmt::format("plan: {} ({}), {} variant{} x {} repetition{} x {:g} s\n", s.workload,
                       engine::toString(first.workload->kind), s.variants.size(), s.variants.size() == 1 ? "" : "s",
                       s.repetitions, s.repetitions == 1 ? "" : "s", s.duration);
    out << "  " << schedule(s) << '\n';
    if (const auto placed = layouts(s); !placed.empty()) {
        out << "  " << placed << '\n';
    }
    if (s.setups) {
        out << fmt::format("  {} setups per repetition: the variants' receivers start anew in each, on traded places\n",
                           *s.setups);
    }
    if (first.workload->kind != engine::WorkloadKind::Live) {  // live workloads name their CPUs themselves
        out << "  measuring on CPU " << base::formatCpuList(s.cpus) << '\n';
    }
    out << "  counters " << join(s.counters, ", ") << (s.pmu.simulated ? " (hardware ones SIMULATED)" : "")
        << "; hardware events in " << engine::describe(s.countersMode.value_or(engine::CountersMode::All)) << '\n';
    if (first.workload->kind != engine::WorkloadKind::External) {
        out << "  harness (sampler, recorder) " << engine::describeHarness(engine::cpuPolicy(first)) << '\n';
    }
    if (s.profileHz) {
        std::vector<std::string> sampled;
        for (const auto& c : engine::profileCpus(first)) {
            sampled.push_back(std::to_string(c.cpu) + " (" + c.role + ")");
        }
        out << fmt::format("  profile: call stacks of CPU {} sampled {} times a second\n", join(sampled, ", "),
                           *s.profileHz);
    }
    out << "  label '" << s.label << "'; "
        << (seedGiven ? "seed " + std::to_string(*s.seed) : std::string("seed drawn when the run starts")) << '\n';
    for (const auto& p : prepared) {
        printOne(p, out);
    }
    out << "  time " << engine::planTimeText(engine::planTime(s, prepared.size())) << '\n';
    out << "nothing was run or stored (--dry-run)\n";
    return 0;
}

int printPlanJson(const std::vector<engine::ExperimentSpec>& specs, std::ostream& out)
{
    auto prepared = prepareAll(specs);
    if (!prepared) {
        return fail(kExitUsage, prepared.error().message);
    }
    const auto plan = engine::planTime(prepared->front().spec, prepared->size());
    std::vector<int> cpus;
    for (const auto& p : *prepared) {
        const auto measured = engine::measuredCpus(p);
        cpus.insert(cpus.end(), measured.begin(), measured.end());
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    const nlohmann::json j = {
        {"time",
         {{"text", engine::planTimeText(plan)},
          {"total_s", plan.total()},
          {"at_most", plan.atMost},
          {"points", plan.points}}},
        {"cpus", cpus},
        {"housekeeping", engine::cpuPolicy(prepared->front()).housekeeping},
        {"layouts", prepared->front().spec.layouts.value_or(0)},
        {"setups", prepared->front().spec.setups ? nlohmann::json(*prepared->front().spec.setups) : nlohmann::json()},
        {"profile_hz",
         prepared->front().spec.profileHz ? nlohmann::json(*prepared->front().spec.profileHz) : nlohmann::json()},
        {"counters_mode", engine::toString(prepared->front().spec.countersMode.value_or(engine::CountersMode::All))},
        {"cpus_in_use", engine::cpusInUse(cpus)}};
    out << j.dump(2) << '\n';
    return 0;
}

}  // namespace nf::cli
