#include "engine/run/command_experiment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <regex>

#include "engine/catalog/command_config.h"
#include "engine/import/import_format.h"
#include "engine/run/command_process.h"
#include "engine/run/counter_columns.h"
#include "engine/run/environment.h"
#include "engine/run/repetition_driver.h"
#include "engine/run/schedule.h"
#include "nf_version.h"

namespace nf::engine {
namespace {

using catalog::CommandConfig;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The metric read from the output; nullopt when it is not there.
std::optional<double> extractMetric(const CommandConfig& c, const ProcessResult& r)
{
    const std::string text = r.output + "\n" + r.errors;  // perf stat and many tools write to stderr
    if (c.regex) {
        std::smatch m;
        if (!std::regex_search(text, m, *c.regex)) {
            return std::nullopt;
        }
        try {
            return std::stod(m[1].str());
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    const auto* format = findImportFormat(c.extractor);
    auto table = format->parse({"output of " + c.text, text}, {});
    if (!table || table->layout.metrics.empty()) {
        return std::nullopt;
    }
    const auto& layout = table->layout;
    auto metric = std::find_if(layout.metrics.begin(), layout.metrics.end(),
                               [&](const MetricSpec& m) { return m.name == c.metricName; });
    if (metric == layout.metrics.end()) {
        metric = layout.metrics.begin();
    }
    const int num = layout.quantityIndex(metric->numerator);
    const int den = layout.quantityIndex(metric->denominator);
    double n = 0;
    double d = 0;
    for (const auto& rep : table->repetitions) {
        for (const auto& s : rep) {
            n += s.values[static_cast<std::size_t>(num)];
            d += s.values[static_cast<std::size_t>(den)];
        }
    }
    return d != 0 ? std::optional<double>(metric->scale * n / d) : std::nullopt;
}

struct Layout {
    RunLayout layout;
    std::vector<std::string> counters;     // per process
    std::vector<std::string> cpuCounters;  // summed over counter_cpus
};

Layout makeLayout(const CommandConfig& c, const std::vector<std::string>& counters, bool cpuWide)
{
    Layout l;
    auto& q = l.layout.quantities;
    q = {"ok", "exit_status", "wall_ns"};
    if (c.hasMetric()) {
        q.push_back(c.metricName);
        l.layout.metrics.push_back({.name = c.metricName,
                                    .unit = c.metricUnit,
                                    .numerator = c.metricName,
                                    .denominator = "ok",
                                    .higherIsBetter = c.higherIsBetter,
                                    .description = "read from the command's output"});
    }
    l.layout.metrics.push_back({.name = "wall_ms",
                                .unit = "ms",
                                .numerator = "wall_ns",
                                .denominator = "ok",
                                .scale = 1e-6,
                                .description = "wall time of the command"});
    for (const auto& name : counters) {
        q.push_back(name);
        l.layout.metrics.push_back({.name = name,
                                    .unit = "count",
                                    .numerator = name,
                                    .denominator = "ok",
                                    .description = name + " of the command's process"});
        l.counters.push_back(name);
    }
    std::ranges::move(importedCounterMetrics(q), std::back_inserter(l.layout.metrics));
    if (cpuWide) {
        for (const auto& name : counters) {
            const std::string cpuName = "cpus:" + name;
            q.push_back(cpuName);
            l.layout.metrics.push_back({.name = cpuName,
                                        .unit = "count",
                                        .numerator = cpuName,
                                        .denominator = "ok",
                                        .description = name + " on counter_cpus during the command"});
            l.cpuCounters.push_back(cpuName);
        }
    }
    return l;
}

struct Measured {
    Sample sample;
    std::string failure;  // "" when the repetition counts
    std::string note;     // said as a warning, the repetition still counts (output past the limit)
    bool stopped = false;
};

class CommandRun {
public:
    CommandRun(const PreparedExperiment& p, RunContext& context, std::vector<CommandConfig> configs,
               const RunControl& control)
        : m_p(p), m_context(context), m_configs(std::move(configs)), m_control(control)
    {
    }

    Result<RunStart> start()
    {
        auto probe = NF_TRY(m_context.counters().open(probes::CounterTarget::callingThread()));
        const auto& first = m_configs.front();
        m_layout = makeLayout(first, probe.names(), !first.counterCpus.empty());
        if (const auto& primary = m_p.spec.primaryMetric; !primary.empty()) {  // --primary: listed first
            auto& metrics = m_layout.layout.metrics;
            if (std::ranges::none_of(metrics, [&](const MetricSpec& m) { return m.name == primary; })) {
                return Error{"--primary " + primary + ": not measured in this run"};
            }
            std::stable_partition(metrics.begin(), metrics.end(),
                                  [&](const MetricSpec& m) { return m.name == primary; });
        }
        for (const auto& c : m_configs) {
            if (c.hasMetric() != first.hasMetric() || c.metricName != first.metricName ||
                c.counterCpus != first.counterCpus) {
                return Error{"every variant must read the same metric and count the same counter_cpus"};
            }
        }
        RunStart start{m_p.spec, {}, m_layout.layout, nlohmann::json::object()};
        nlohmann::json commands = nlohmann::json::object();
        for (std::size_t v = 0; v < m_p.params.size(); ++v) {
            start.variantParams.emplace_back(m_p.params[v].all());
            commands[m_p.spec.variants[v].name] = m_configs[v].argv;
        }
        start.environment["system"] = systemFactsJson(m_p.facts);
        start.environment["kernel"] = kernelIdentityJson(probes::readKernelIdentity());
        start.environment["counters"] = countersJson(probe);
        if (auto w = userOnlyWarning(probe, m_p.facts.perfEventParanoid, "the command's process")) {
            m_warnings.push_back(*w);
        }
        start.environment["counters"]["target"] = "the command's process (opened while it is stopped before exec)";
        start.environment["measurement"] = {{"worker_cpu", m_context.cpus().worker},
                                            {"commands", commands},
                                            {"counter_cpus", base::formatCpuList(first.counterCpus)}};
        nlohmann::json pads = nlohmann::json::array();
        for (int l = 0; l < kMaxLayouts; ++l) {
            pads.push_back(commandLayoutPad(l));
        }
        start.environment["measurement"]["layouts"] = {
            {"variable", kCommandLayoutVariable},
            {"pad_bytes", pads},
            {"rule",
             "per repetition and variant a placement L drawn by the run's counterbalanced plan; the "
             "command's environment gets the variable with " +
                 std::to_string(kCommandLayoutPadStep) +
                 " * L mod 4096 bytes as its value (pad_bytes[L]), moving its initial stack"}};
        start.environment["tool"] = {
            {"name", "noisefloor"}, {"version", NF_VERSION}, {"command_line", m_control.commandLine}};
        m_clock = std::chrono::steady_clock::now();
        return start;
    }

    const std::vector<std::string>& warnings() const { return m_warnings; }

    // One run of the variant's command in placement `layout` (commandLayoutPad).
    Measured measure(int variant, int repetition, int layout)
    {
        const auto& c = m_configs[static_cast<std::size_t>(variant)];
        Measured m;
        m.sample = {variant,
                    repetition,
                    0,
                    -1,
                    secondsSinceStart(),
                    0,
                    std::vector<double>(m_layout.layout.quantities.size(), kNaN)};
        auto& values = m.sample.values;
        values[0] = 0;
        if (!c.prepare.empty()) {
            if (auto r = runShell("prepare", c.prepare, c.timeout); !r) {
                m.failure = r.error().message;
                return m;
            }
        }
        std::optional<SampledCounters> counters;
        std::vector<SampledCounters> cpuGroups;
        std::vector<double> cpuTotals(m_layout.cpuCounters.size(), 0.0);
        ProcessHooks hooks;
        hooks.attach = [&](pid_t pid) -> Result<void> {
            counters.emplace(NF_TRY(m_context.counters().open(probes::CounterTarget::thread(pid))));
            for (int cpu : c.counterCpus) {
                cpuGroups.emplace_back(NF_TRY(m_context.counters().open(probes::CounterTarget::onCpu(cpu))));
            }
            if (auto r = counters->read(); !r) {
                return Error{"reading the command's counters: " + r.error().message};
            }
            counters->advance();
            for (auto& cg : cpuGroups) {
                if (auto r = cg.read(); !r) {
                    return Error{"reading the counters of counter_cpus: " + r.error().message};
                }
                cg.advance();
            }
            return {};
        };
        std::string readFailure;
        hooks.exited = [&] {
            if (counters) {
                if (auto a = counters->read(); a) {
                    fillCounters(counters->group(), m_layout.counters, counters->deltas(), values, "");
                } else {
                    readFailure = "reading the command's counters: " + a.error().message;
                }
            }
            for (auto& cg : cpuGroups) {
                if (auto a = cg.read(); a) {
                    addCpuCounters(cg.group(), cg.deltas(), cpuTotals);
                } else {
                    readFailure = "reading the counters of counter_cpus: " + a.error().message;
                }
            }
        };
        hooks.stopRequested = [this] { return m_control.stop.stop_requested(); };
        const std::string pad = std::string(kCommandLayoutVariable) + "=" +
                                std::string(static_cast<std::size_t>(commandLayoutPad(layout)), 'x');
        auto r = runProcess({c.argv, m_context.cpus().worker, c.timeout, {pad}}, hooks);
        if (!c.cleanup.empty()) {
            if (auto done = runShell("cleanup", c.cleanup, c.timeout); !done && m.failure.empty()) {
                m.failure = done.error().message;
            }
        }
        if (!r) {
            m.failure = r.error().message;
            return m;
        }
        m.stopped = r->stopped;
        if (r->outputDropped + r->errorsDropped > 0) {
            m.note = "its output past " + std::to_string(kCaptureLimit >> 20) +
                     " MiB per stream was read and dropped (" + std::to_string(r->outputDropped + r->errorsDropped) +
                     " bytes); the metric is read from what was kept";
        }
        m.sample.duration = r->wallSeconds;
        values[1] = r->exitStatus;
        values[2] = r->wallSeconds * 1e9;
        for (std::size_t i = 0; i < cpuTotals.size(); ++i) {
            values[3 + (m_configs.front().hasMetric() ? 1 : 0) + m_layout.counters.size() + i] = cpuTotals[i];
        }
        if (!r->started) {
            m.failure = r->failure;
        } else if (!readFailure.empty()) {
            m.failure = readFailure;
        } else if (r->timedOut) {
            m.failure = "timed out after " + std::to_string(c.timeout) + " s";
        } else if (r->exitStatus != 0) {
            const auto line = r->errors.substr(0, r->errors.find('\n'));
            m.failure = "exit status " + std::to_string(r->exitStatus) + (line.empty() ? "" : " (" + line + ")");
        } else if (c.hasMetric()) {
            auto metric = extractMetric(c, *r);
            if (!metric) {
                m.failure = "no " + c.metricName + " in its output";
            } else {
                values[3] = *metric;
            }
        }
        if (m.failure.empty()) {
            values[0] = 1;
        }
        return m;
    }

private:
    double secondsSinceStart() const
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_clock).count();
    }

    void fillCounters(const probes::CounterGroup& g, const std::vector<std::string>& names,
                      const std::vector<probes::ScaledCount>& d, std::vector<double>& values,
                      const std::string& prefix) const
    {
        const std::size_t offset = 3 + (m_configs.front().hasMetric() ? 1 : 0);
        for (std::size_t i = 0; i < g.names().size() && i < d.size(); ++i) {
            auto it = std::find(names.begin(), names.end(), prefix + g.names()[i]);
            if (it != names.end()) {
                values[offset + static_cast<std::size_t>(it - names.begin())] = d[i].value;
            }
        }
    }

    void addCpuCounters(const probes::CounterGroup& g, const std::vector<probes::ScaledCount>& d,
                        std::vector<double>& totals) const
    {
        for (std::size_t i = 0; i < g.names().size() && i < d.size(); ++i) {
            auto it = std::find(m_layout.cpuCounters.begin(), m_layout.cpuCounters.end(), "cpus:" + g.names()[i]);
            if (it != m_layout.cpuCounters.end()) {
                totals[static_cast<std::size_t>(it - m_layout.cpuCounters.begin())] += d[i].value;
            }
        }
    }

    const PreparedExperiment& m_p;
    RunContext& m_context;
    std::vector<CommandConfig> m_configs;
    const RunControl& m_control;
    Layout m_layout;
    std::chrono::steady_clock::time_point m_clock;
    std::vector<std::string> m_warnings;  // for the run, once it is stored
};

}  // namespace

RunOutcome runCommandExperiment(const PreparedExperiment& p, RunContext& context, RunObserver& observer,
                                const RunControl& control, const std::vector<std::string>& early, SharerWatch& sharers)
{
    std::vector<CommandConfig> configs;
    for (std::size_t v = 0; v < p.params.size(); ++v) {
        auto c = catalog::commandConfig(p.params[v]);
        if (!c) {
            return {RunStatus::Failed, c.error().message, 0};
        }
        configs.push_back(std::move(*c));
    }
    CommandRun run(p, context, std::move(configs), control);
    auto start = run.start();
    if (!start) {
        return {RunStatus::Failed, start.error().message, 0};
    }
    if (auto r = observer.runStarted(*start); !r) {
        return {RunStatus::Failed, r.error().message, 0};
    }
    for (const auto& text : early) {
        observer.warning(text);
    }
    for (const auto& w : run.warnings()) {
        observer.warning(w);
    }
    std::mt19937_64 rng(p.spec.seed.value_or(1));
    const int total = static_cast<int>(p.spec.variants.size()) * p.spec.repetitions;
    int done = 0;
    std::optional<Error> observerError;
    // Each variant runs in every placement equally often (pinned nowhere: --layouts and layout=N
    // are refused for a command, whose code noisefloor does not build).
    const LayoutPlan layouts(kMaxLayouts, std::vector<std::optional<int>>(p.spec.variants.size()),
                             p.spec.seed.value_or(0));
    const auto measureUnit = [&](const ScheduleUnit& unit, RepetitionResult& rep) -> Result<UnitEnd> {
        rep.variants.clear();
        rep.layouts = layouts.at(unit.repetition);
        for (int v : unit.variants) {
            if (control.stop.stop_requested()) {
                return UnitEnd::Stopped;
            }
            auto m = run.measure(v, unit.repetition, rep.layouts[static_cast<std::size_t>(v)]);
            if (m.stopped) {
                return UnitEnd::Stopped;
            }
            if (!m.note.empty()) {
                observer.warning("variant " + p.spec.variants[static_cast<std::size_t>(v)].name + " repetition " +
                                 std::to_string(unit.repetition) + ": " + m.note);
            }
            if (!m.failure.empty()) {
                observer.warning("variant " + p.spec.variants[static_cast<std::size_t>(v)].name + " repetition " +
                                 std::to_string(unit.repetition) + " failed: " + m.failure +
                                 "; it is recorded (ok=0) and left out of the statistics");
            }
            rep.variants.push_back(v);
            rep.samples.push_back(std::move(m.sample));
            observer.progress(++done, total, 0);
        }
        return UnitEnd::Done;
    };
    int stored = 0;
    const auto take = [&](RepetitionResult&& rep) {
        if (auto r = observer.repetitionFinished(rep); !r) {
            observerError = r.error();
            return false;
        }
        sharers.look(++stored, true);
        return true;
    };
    const auto drive = driveRepetitions(p.spec, static_cast<int>(p.spec.variants.size()), rng, control.stop,
                                        context.failures(), measureUnit, take);
    RunOutcome outcome{drive.status, drive.reason, drive.kept};
    if (observerError) {
        outcome.reason = observerError->message;
    } else if (outcome.status == RunStatus::Aborted) {
        outcome.reason = stopReason(control, outcome.reason);
    }
    for (const auto& text : sharers.warnings()) {  // stored before the run is marked finished
        observer.warning(text);
    }
    observer.runFinished(outcome.status, outcome.reason);
    return outcome;
}

}  // namespace nf::engine
