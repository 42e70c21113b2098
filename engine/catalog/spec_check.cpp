#include "engine/catalog/spec_check.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/model/profile.h"

namespace nf::engine {

namespace {

std::string number(double v)
{
    return nlohmann::json(v).dump();
}

// "2000000", or "5e+302" past what an integer holds.
std::string samplesText(double n)
{
    char text[32] = {};
    if (std::snprintf(text, sizeof text, n < 1e15 ? "%.0f" : "%.3g", n) < 0) {
        return "too many";
    }
    return text;
}

bool contains(const std::vector<int>& xs, int x)
{
    return std::find(xs.begin(), xs.end(), x) != xs.end();
}

class Checker {
public:
    explicit Checker(std::vector<SpecProblem>& out) : m_out(out) {}

    void add(SpecField field, std::string value, std::string message, std::string variant = "")
    {
        m_out.push_back({.field = field,
                         .variant = std::move(variant),
                         .param = {},
                         .value = std::move(value),
                         .message = std::move(message)});
    }

    void seconds(SpecField field, double v, double min, double max, bool minInclusive)
    {
        const bool aboveMin = minInclusive ? v >= min : v > min;
        if (!std::isfinite(v) || !aboveMin || v > max) {
            add(field, number(v),
                std::string("must be ") + (minInclusive ? ">= " : "> ") + number(min) + " and <= " + number(max) +
                    " seconds");
        }
    }

    SpecProblem& last() { return m_out.back(); }

private:
    std::vector<SpecProblem>& m_out;
};

// Counts, durations and names: what needs neither the workload nor the machine.
void checkFields(const ExperimentSpec& spec, Checker& check)
{
    if (spec.repetitions < 1 || spec.repetitions > 100000) {
        check.add(SpecField::Repetitions, std::to_string(spec.repetitions), "must be 1..100000");
    }
    check.seconds(SpecField::Duration, spec.duration, 0, 86400, false);
    check.seconds(SpecField::Warmup, spec.warmup, 0, 3600, true);
    check.seconds(SpecField::Interval, spec.interval, 0.0001, 3600, true);
    if (spec.chunk) {
        const auto before = *spec.chunk;
        check.seconds(SpecField::Chunk, before, 0, 10, true);
        if (std::isfinite(before) && std::isfinite(spec.duration) && spec.duration > 0 && before > spec.duration) {
            check.add(SpecField::Chunk, number(before), "longer than the duration of " + number(spec.duration) + " s");
        }
    }
    std::set<std::string> seen;
    for (const auto& v : spec.variants) {
        if (!validVariantName(v.name)) {
            check.add(SpecField::Variants, v.name, "a variant name is 1-64 letters, digits, '_', '-' or '.'");
        } else if (!seen.insert(v.name).second) {
            check.add(SpecField::Variants, v.name, "duplicate variant name");
        }
    }
}

// A repetition is stored in one transaction, so it is held whole in memory until then: its
// samples are bounded (about 120 bytes each, so 1,000,000 take about 120 MB).
void checkRepetitionSize(const ExperimentSpec& spec, const WorkloadDescriptor& w, Checker& check)
{
    if (w.kind == WorkloadKind::External || !std::isfinite(spec.duration) || spec.duration <= 0) {
        return;  // one sample per command run
    }
    const bool alternating = spec.chunk && *spec.chunk > 0;
    const double slice = alternating ? *spec.chunk : spec.interval;
    if (!std::isfinite(slice) || slice <= 0) {
        return;
    }
    // A repetition may hold every variant (alternating in chunks, or live sessions one after another).
    const double perRepetition =
        spec.duration / slice * static_cast<double>(std::max<std::size_t>(1, spec.variants.size()));
    if (perRepetition > static_cast<double>(kMaxSamplesPerRepetition)) {
        check.add(SpecField::Duration, number(spec.duration),
                  "a repetition would hold " + samplesText(perRepetition) + " samples (at most " +
                      std::to_string(kMaxSamplesPerRepetition) + "): " +
                      (alternating ? "a shorter duration, a longer chunk or fewer variants"
                                   : "a shorter duration, a longer interval or fewer variants"));
    }
}

// --until decided: two variants measured side by side, by the scheduler's own loop, and a time,
// margin and alpha in range.
void checkUntil(const ExperimentSpec& spec, const WorkloadDescriptor& w, Checker& check)
{
    if (!spec.until) {
        return;
    }
    const auto& u = *spec.until;
    if (w.kind == WorkloadKind::External) {
        check.add(SpecField::Until, "decided",
                  "is for in-process and live workloads (an external command's runs are not stopped early)");
    }
    if (spec.variants.size() != 2) {
        check.add(SpecField::Until, "decided",
                  "compares a candidate with a baseline: exactly two variants (" +
                      std::to_string(spec.variants.size()) + " given)");
    }
    if (!spec.interleaved()) {
        check.add(SpecField::Until, "decided", "needs the variants side by side: order interleaved or random");
    }
    check.seconds(SpecField::MaxTime, u.maxTime, 0, 7 * 86400, false);
    if (!(u.marginPct > 0 && u.marginPct <= 50)) {
        check.add(SpecField::Margin, number(u.marginPct), "margin must be > 0 and <= 50 (%)");
    }
    if (!(u.alpha > 0 && u.alpha <= 0.5)) {
        check.add(SpecField::Alpha, number(u.alpha), "alpha must be > 0 and <= 0.5");
    }
}

// The repetitions an until-decided run plans: as many as fit in its measuring time (each takes at
// least every variant's duration), so the plan runs out no sooner than the time does.
int untilRepetitions(const ExperimentSpec& spec)
{
    const double perRep = spec.duration * static_cast<double>(std::max<std::size_t>(1, spec.variants.size()));
    const double n = std::ceil(spec.until->maxTime / perRep) + 1;
    return static_cast<int>(std::clamp(n, 1.0, 100000.0));
}

// The simulated PMU's settings, and whether the workload gives it an operation count to count by.
void checkPmu(const ExperimentSpec& spec, const WorkloadDescriptor* w, Checker& check)
{
    const auto& pmu = spec.pmu;
    if (!pmu.simulated) {
        return;
    }
    if (!(pmu.running > 0 && pmu.running <= 1)) {
        check.add(SpecField::Pmu, toString(pmu), "running must be > 0 and <= 1 (the share of time counted)");
    }
    if (!(pmu.periodMs >= 0.01 && pmu.periodMs <= 10000)) {
        check.add(SpecField::Pmu, toString(pmu), "period_ms must be >= 0.01 and <= 10000");
    }
    if (w != nullptr && w->kind == WorkloadKind::External) {
        check.add(SpecField::Pmu, toString(pmu),
                  "the simulated PMU counts by the workload's operations, and " + w->name +
                      " has none it can see; use it with an in-process or live workload");
    }
}

// The primary metric must be one the run gives. An external command's metrics come from its output
// (extractor=): those are checked when the run starts (engine/run/scheduler.cpp).
void checkPrimary(const ExperimentSpec& spec, const WorkloadDescriptor& w, Checker& check)
{
    if (spec.primaryMetric.empty() || w.kind == WorkloadKind::External) {
        return;
    }
    std::string names;
    for (const auto& m : workloadMetrics(w, spec.counters)) {
        if (m.name == spec.primaryMetric) {
            return;
        }
        names += (names.empty() ? "" : ", ") + m.name;
    }
    check.add(SpecField::Primary, spec.primaryMetric, "not a metric of " + w.name + " (metrics: " + names + ")");
}

void checkCpus(const ExperimentSpec& spec, const base::SystemFacts& facts, Checker& check)
{
    if (spec.cpus.empty() && facts.allowedCpus.empty()) {
        check.add(SpecField::Cpus, "", "no CPU is available to this process");
    }
    const auto available = [&](SpecField field, const std::vector<int>& cpus) {
        for (int cpu : cpus) {
            if (!contains(facts.onlineCpus, cpu) || !contains(facts.allowedCpus, cpu)) {
                check.add(field, std::to_string(cpu),
                          "no such CPU available (online: " + base::formatCpuList(facts.onlineCpus) +
                              ", allowed: " + base::formatCpuList(facts.allowedCpus) + ")");
            }
        }
    };
    available(SpecField::Cpus, spec.cpus);
    available(SpecField::Housekeeping, spec.housekeeping);
}

// The parameter a problem names: "work" of "work=0: out of range ..." or of "... has no parameter
// 'work' ...", when the workload has it (or, for an unknown one, as named).
std::string paramNamed(const std::string& message, const WorkloadDescriptor& w)
{
    const auto eq = message.find('=');
    if (eq != std::string::npos && w.param(message.substr(0, eq)) != nullptr) {
        return message.substr(0, eq);
    }
    const auto quote = message.find("no parameter '");
    if (quote != std::string::npos) {
        const auto start = quote + 14;
        return message.substr(start, message.find('\'', start) - start);
    }
    return "";
}

// False when the sweep's parameter does not exist (then there are no points to check).
bool checkSweep(const ExperimentSpec& spec, const WorkloadDescriptor& w, const SweepSpec& sweep, Checker& check)
{
    if (w.param(sweep.param) == nullptr) {
        check.add(SpecField::Sweep, sweep.param, w.name + " has no parameter '" + sweep.param + "'");
        return false;
    }
    for (const auto& v : spec.variants) {
        if (v.overrides.contains(sweep.param)) {
            check.add(SpecField::Sweep, sweep.param,
                      "variant " + v.name + " sets it too; a sweep sets it for every variant");
        }
    }
    return true;
}

// Every variant's parameters at one point: ranges, then the workload's own checks. A problem found
// at several sweep points is reported once.
std::map<std::string, std::string> withoutLayout(std::map<std::string, std::string> params)
{
    params.erase(kLayoutParam);
    return params;
}

// A variant's value of a parameter as set for it: its override, else the setting for all, else
// the default.
std::string valueOf(const ExperimentSpec& spec, const VariantSpec& v, const ParamSpec& param)
{
    if (const auto it = v.overrides.find(param.name); it != v.overrides.end()) {
        return it->second;
    }
    if (const auto it = spec.params.find(param.name); it != spec.params.end()) {
        return it->second;
    }
    return param.defaultValue;
}

}  // namespace

bool variantsRunDifferentCode(const ExperimentSpec& spec, const WorkloadDescriptor& w)
{
    for (const auto& param : w.params) {
        if (!param.selectsCode) {
            continue;
        }
        for (const auto& v : spec.variants) {
            if (valueOf(spec, v, param) != valueOf(spec, spec.variants.front(), param)) {
                return true;
            }
        }
    }
    return false;
}

namespace {

// --layouts and layout=N: only where noisefloor builds the code, within the placements that exist.
// Unset, layouts becomes kMaxLayouts when the variants run different code, else 0.
void checkLayouts(ExperimentSpec& spec, const WorkloadDescriptor& w, Checker& check)
{
    const std::string notBuilt = w.name + " runs code noisefloor does not build, so its placement cannot be varied";
    if (spec.layouts) {
        const int k = *spec.layouts;
        if (!w.placedCode && k != 0) {
            check.add(SpecField::Layouts, std::to_string(k), notBuilt);
        } else if (k < 0 || k == 1 || k > kMaxLayouts) {
            check.add(SpecField::Layouts, std::to_string(k),
                      "must be 0 (layout not a factor) or 2.." + std::to_string(kMaxLayouts) + " placements");
        }
    }
    const bool named = spec.variants.size() > 1;
    std::set<std::string> reported;
    for (std::size_t v = 0; v < spec.variants.size(); ++v) {
        const auto pinned = spec.pinnedLayout(v);
        if (!pinned) {
            continue;
        }
        const std::string text = std::string(kLayoutParam) + "=" + *pinned;
        std::string problem;
        if (!w.placedCode) {
            problem = text + ": " + notBuilt;
        } else {
            int n = -1;
            const auto [end, ec] = std::from_chars(pinned->data(), pinned->data() + pinned->size(), n);
            const std::string range = "0.." + std::to_string(kMaxLayouts - 1) + " (a code placement)";
            if (ec != std::errc() || end != pinned->data() + pinned->size()) {
                problem = text + ": not a whole number " + range;
            } else if (n < 0 || n >= kMaxLayouts) {
                problem = text + ": out of range " + range;
            }
        }
        const bool own = spec.variants[v].overrides.contains(kLayoutParam);
        if (!problem.empty() && reported.insert((own ? spec.variants[v].name : "") + "\n" + problem).second) {
            check.add(SpecField::Param, "", problem, own && named ? spec.variants[v].name : "");
            check.last().param = kLayoutParam;
        }
    }
    std::size_t pins = 0;
    for (std::size_t v = 0; v < spec.variants.size(); ++v) {
        pins += spec.pinnedLayout(v) ? 1 : 0;
    }
    const bool allPinned = pins == spec.variants.size();
    if (spec.layouts.value_or(0) > 0 && allPinned && w.placedCode) {
        check.add(SpecField::Layouts, std::to_string(*spec.layouts),
                  "every variant is pinned with layout=N: no placement is left to draw (give --layouts 0, or "
                  "leave a variant unpinned)");
    }
    if (!spec.layouts) {
        spec.layouts = w.placedCode && !allPinned && spec.variants.size() > 1 && variantsRunDifferentCode(spec, w)
                           ? kMaxLayouts
                           : 0;
    }
}

std::vector<ParamSet> checkParams(const ExperimentSpec& point, const WorkloadDescriptor& w, const CheckContext& ctx,
                                  Checker& check, std::set<std::string>& reported)
{
    std::vector<ParamSet> sets;
    // What every variant shares (the defaults and the settings for all) is reported once, unnamed.
    const auto common = withoutLayout(point.params);
    auto shared = ParamSet::resolve(w.params, {&common}, w.name);
    if (!shared && reported.insert("\n" + shared.error().message).second) {
        check.add(SpecField::Param, "", shared.error().message);
        check.last().param = paramNamed(shared.error().message, w);
    }
    const bool named = point.variants.size() > 1;
    for (const auto& v : point.variants) {
        const std::string variant = named ? v.name : "";
        const auto own = withoutLayout(v.overrides);
        auto params = ParamSet::resolve(w.params, {&common, &own}, w.name);
        if (params && w.check) {
            if (auto r = w.check(*params, ctx); !r) {
                params = r.error();
            }
        }
        if (!params) {
            const bool sharedProblem = !shared && shared.error().message == params.error().message;
            if (!sharedProblem && reported.insert(variant + "\n" + params.error().message).second) {
                check.add(SpecField::Param, "", params.error().message, variant);
                check.last().param = paramNamed(params.error().message, w);
            }
            continue;
        }
        sets.push_back(std::move(*params));
    }
    return sets;
}

// A live workload alternates in chunks only when its variants can run side by side: by default
// when they can (repetitions when not), and a chunk asked for when they cannot is refused.
void checkLiveChunk(bool chunkGiven, const WorkloadDescriptor& w, const std::vector<ParamSet>& variants,
                    ExperimentSpec& point, Checker& check)
{
    const std::string blocker =
        w.defaultChunk > 0 && w.chunkBlocker ? w.chunkBlocker(variants) : w.name + " runs one variant at a time";
    const double chunk = point.chunk.value_or(0);
    if (!chunkGiven) {
        point.chunk = blocker.empty() ? w.defaultChunk : 0.0;
        return;
    }
    if (!(chunk > 0)) {
        return;
    }
    if (!blocker.empty()) {
        check.add(SpecField::Chunk, number(chunk), "cannot alternate these variants in chunks: " + blocker);
    } else if (chunk < kMinLiveChunk) {
        check.add(SpecField::Chunk, number(chunk),
                  "a live chunk must be at least " + number(kMinLiveChunk) + " s (or 0 for repetitions)");
    }
}

// Chunk rounds per setup that --setups' default aims at: on the veth testbed the setups' scatter
// and the chunk noise inside a setup are about equal there (docs/measurement.md, "Setups as a
// factor"), and each setup costs a warm-up and a restart of its receivers.
constexpr long kRoundsPerSetup = 20;

// --setups: a live run side by side only, a multiple of the variants (each variant takes each place
// equally often in a repetition), and no more than its chunk rounds. Unset on a run side by side:
// a setup per kRoundsPerSetup rounds, rounded down to a multiple of the variants (at least one per
// variant).
void checkSetups(const WorkloadDescriptor& w, ExperimentSpec& point, Checker& check)
{
    const auto variants = static_cast<long>(point.variants.size());
    const double chunk = point.chunk.value_or(0);
    const bool sideBySide = w.kind == WorkloadKind::Live && chunk > 0 && variants >= 2;
    if (!point.setups) {
        // Fewer rounds than variants run in one phase (engine/run/live_chunks.cpp): no setups to set.
        const long rounds = std::isfinite(point.duration / chunk) ? std::lround(point.duration / chunk) : 0;
        if (sideBySide && rounds >= variants) {
            point.setups = static_cast<int>(variants * std::clamp(rounds / (kRoundsPerSetup * variants), 1L, 1000L));
        }
        return;
    }
    const int setups = *point.setups;
    if (!sideBySide) {
        check.add(SpecField::Setups, std::to_string(setups),
                  "setups are the phases of a live run whose variants alternate in chunks side by side (" + w.name +
                      (w.kind != WorkloadKind::Live ? " is not live)" : " here runs one variant at a time)"));
        return;
    }
    const auto rounds = static_cast<long>(std::lround(point.duration / chunk));
    if (setups < 1 || setups % variants != 0) {
        check.add(SpecField::Setups, std::to_string(setups),
                  "expected a multiple of the " + std::to_string(variants) +
                      " variants (each variant takes each place equally often)");
    } else if (setups > rounds) {
        check.add(SpecField::Setups, std::to_string(setups),
                  "more setups than the " + std::to_string(rounds) + " chunk rounds of a repetition");
    }
}

// --profile: a rate in range (the kernel's perf_event_max_sample_rate may refuse less), and a
// workload whose chunks run on CPUs the run knows (not a command's).
void checkProfile(const WorkloadDescriptor& w, const ExperimentSpec& point, Checker& check)
{
    if (!point.profileHz) {
        return;
    }
    const int hz = *point.profileHz;
    if (hz < kMinProfileHz || hz > kMaxProfileHz) {
        check.add(
            SpecField::Profile, std::to_string(hz),
            "must be " + std::to_string(kMinProfileHz) + ".." + std::to_string(kMaxProfileHz) + " samples a second");
    } else if (w.kind == WorkloadKind::External) {
        check.add(SpecField::Profile, std::to_string(hz),
                  "profiles are of in-process and live workloads (a command's own: perf record)");
    }
}

}  // namespace

CountersMode defaultCountersMode(const WorkloadDescriptor& w)
{
    return w.kind == WorkloadKind::InProcess ? CountersMode::User : CountersMode::All;
}

std::string_view toString(SpecField field)
{
    switch (field) {
        case SpecField::Workload: return "workload";
        case SpecField::Repetitions: return "repetitions";
        case SpecField::Duration: return "duration";
        case SpecField::Warmup: return "warmup";
        case SpecField::Interval: return "interval";
        case SpecField::Chunk: return "chunk";
        case SpecField::Variants: return "variants";
        case SpecField::Param: return "parameters";
        case SpecField::Cpus: return "cpus";
        case SpecField::Counters: return "counters";
        case SpecField::Pmu: return "pmu";
        case SpecField::Sweep: return "sweep";
        case SpecField::Until: return "until";
        case SpecField::MaxTime: return "max_time";
        case SpecField::Margin: return "margin";
        case SpecField::Alpha: return "alpha";
        case SpecField::Primary: return "primary_metric";
        case SpecField::Layouts: return "layouts";
        case SpecField::Housekeeping: return "housekeeping";
        case SpecField::Setups: return "setups";
        case SpecField::Profile: return "profile";
    }
    return "workload";
}

std::string describe(const SpecProblem& p, std::string_view fieldName)
{
    if (p.field == SpecField::Param || p.field == SpecField::Workload) {
        return (p.variant.empty() ? "" : "variant " + p.variant + ": ") + p.message;
    }
    std::string out(fieldName);
    if (!p.value.empty()) {
        out += " " + p.value;
    }
    return out + ": " + p.message;
}

SpecCheck checkExperiment(const ExperimentSpec& input, const std::optional<SweepSpec>& sweep,
                          const base::SystemFacts& facts, const std::string& sweepId)
{
    SpecCheck result;
    Checker check(result.problems);
    const WorkloadDescriptor* w = findWorkload(input.workload);
    if (w == nullptr) {
        check.add(SpecField::Workload, input.workload,
                  "unknown workload '" + input.workload + "' (workloads: " + workloadNames() + ")");
    }
    ExperimentSpec spec = input;
    if (spec.variants.empty()) {
        spec.variants.push_back({"default", {}});
    }
    if (!spec.chunk && w != nullptr) {
        spec.chunk = w->defaultChunk;
    }
    checkFields(spec, check);
    checkPmu(spec, w, check);
    checkCpus(spec, facts, check);
    if (w == nullptr) {
        return result;
    }
    if (w->kind == WorkloadKind::External && !spec.housekeeping.empty()) {
        check.add(SpecField::Housekeeping, base::formatCpuList(spec.housekeeping),
                  w->name +
                      " has no harness thread beside its command to place (its process is the "
                      "measured code; the tool waits for it)");
    }
    checkRepetitionSize(spec, *w, check);
    checkUntil(spec, *w, check);
    checkPrimary(spec, *w, check);
    checkLayouts(spec, *w, check);
    if (!spec.countersMode) {
        spec.countersMode = defaultCountersMode(*w);
    }
    if (spec.until && result.ok()) {
        spec.repetitions = untilRepetitions(spec);
    }
    if (spec.cpus.empty() && !facts.allowedCpus.empty()) {
        spec.cpus = {facts.allowedCpus.back()};
    }
    const CheckContext ctx{facts.onlineCpus, facts.allowedCpus, spec.cpus.empty() ? -1 : spec.cpus.front()};
    std::vector<ExperimentSpec> points;
    if (sweep) {
        points = checkSweep(spec, *w, *sweep, check) ? expandSweep(spec, *sweep, sweepId)
                                                     : std::vector<ExperimentSpec>{spec};
    } else {
        points.push_back(spec);
    }
    std::set<std::string> reported;
    std::vector<std::vector<ParamSet>> params;
    params.reserve(points.size());
    for (auto& point : points) {
        params.push_back(checkParams(point, *w, ctx, check, reported));
        if (w->kind == WorkloadKind::Live && params.back().size() == point.variants.size()) {
            checkLiveChunk(input.chunk.has_value(), *w, params.back(), point, check);
        }
        checkSetups(*w, point, check);
        checkProfile(*w, point, check);
    }
    if (result.ok()) {
        result.experiment = {w, std::move(points), std::move(params)};
    }
    return result;
}

}  // namespace nf::engine
