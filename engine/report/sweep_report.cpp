#include "engine/report/sweep_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "engine/catalog/workload_catalog.h"
#include "engine/report/compact_table.h"
#include "engine/report/evidence.h"
#include "engine/report/evidence_context.h"
#include "engine/report/text_table.h"

namespace nf::engine {

namespace {

const VariantStats* statsOf(const Analysis& a, const std::string& variant, const std::string& metric)
{
    for (const auto& v : a.variants) {
        if (v.variant == variant && v.metric == metric) {
            return &v;
        }
    }
    return nullptr;
}

const MetricComparison* primaryOf(const Analysis& a, const std::string& candidate, const std::string& metric)
{
    for (const auto& c : a.comparisons) {
        if (c.primary && c.candidate == candidate && c.metric == metric) {
            return &c;
        }
    }
    return nullptr;
}

// Variant names in the order of the first point that has them.
std::vector<std::string> variantOrder(const SweepReport& r)
{
    std::vector<std::string> names;
    for (const auto& p : r.points) {
        for (const auto& v : p.analysis.variants) {
            if (v.metric == r.metric && std::find(names.begin(), names.end(), v.variant) == names.end()) {
                names.push_back(v.variant);
            }
        }
    }
    return names;
}

nlohmann::json number(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::string sweepMetric(const RunRecord& run, const std::vector<std::string>& metrics, const std::string& primary)
{
    if (!primary.empty()) {
        return primary;
    }
    if (!metrics.empty()) {
        return metrics.front();
    }
    if (!run.spec.primaryMetric.empty()) {
        return run.spec.primaryMetric;
    }
    if (const auto* workload = findWorkload(run.row.workload)) {
        return workload->primaryMetric;
    }
    return run.data.layout.metrics.empty() ? "" : run.data.layout.metrics.front().name;
}

}  // namespace

Result<SweepReport> compareSweep(const std::string& id, const std::vector<RunRow>& rows, const LoadRun& load,
                                 const std::vector<std::string>& metrics, const AnalysisOptions& options)
{
    SweepReport report;
    report.id = id;
    report.compare = options.compare;
    std::set<int> seen;
    for (const auto& row : rows) {
        report.workload = row.workload;
        report.param = row.sweepParam;
        report.planned = std::max(report.planned, row.sweepPoints);
        seen.insert(row.sweepIndex);
        if (row.status != RunStatus::Complete) {
            report.missing.push_back(row.sweepValue + " (run " + std::to_string(row.id) + " " +
                                     std::string(toString(row.status)) + ")");
            continue;
        }
        auto run = NF_TRY(load(row.id));
        if (report.metric.empty()) {
            report.metric = sweepMetric(run, metrics, options.primary);
        }
        if (run.spec.pmu.simulated) {
            report.simulated = simulatedCountersNote(run.spec.pmu);
        }
        auto input = NF_TRY(analysisInput(run.data, run.spec.interleaved(), {report.metric}));
        input.layoutsPlanned = run.spec.layouts.value_or(0);
        input.validity = assessValidity(run.data, run.variantParams);
        auto analysis = NF_TRY(analyze(input, options));
        report.points.push_back({row.sweepValue, row.id, std::move(analysis)});
    }
    // Points of the plan no run reached (the sweep was stopped before them).
    for (int i = 0; i < report.planned; ++i) {
        if (!seen.contains(i)) {
            report.missing.push_back(fmt::format("point {} of {} (not run)", i + 1, report.planned));
        }
    }
    return report;
}

namespace {

// One row of the compact sweep table: the point (on its first row), the variant, and the cells.
struct SweepRow {
    std::string value;
    std::string run;
    std::string variant;
    std::vector<std::string> cells;   // mean, sd%, change%, interval, verdict
    std::vector<std::string> coarse;  // the same with a change of 10% or more in whole percents
};

struct SweepLayout {
    bool tight = false;
    bool coarse = false;
    std::size_t variantLimit = std::string::npos;
    std::size_t valueLimit = std::string::npos;
};

// The short names of `names` at `limit` (compact::abbreviate), each cut one added to `legend`.
std::map<std::string, std::string> shortNames(const std::vector<std::string>& names, std::size_t limit,
                                              std::vector<std::string>& legend)
{
    const auto cut = compact::abbreviate(names, limit);
    std::map<std::string, std::string> shown;
    for (std::size_t i = 0; i < names.size(); ++i) {
        shown[names[i]] = cut[i];
        if (cut[i] != names[i]) {
            legend.push_back(cut[i] + " = " + names[i]);
        }
    }
    return shown;
}

// The table and its legend in `layout`.
std::vector<std::string> sweepLines(const SweepReport& r, const std::vector<SweepRow>& rows, const SweepLayout& layout)
{
    std::vector<std::string> values;
    std::vector<std::string> variants;
    for (const auto& row : rows) {
        if (!row.value.empty()) {
            values.push_back(row.value);
        }
        if (std::find(variants.begin(), variants.end(), row.variant) == variants.end()) {
            variants.push_back(row.variant);
        }
    }
    std::vector<std::string> legend;
    const auto value = shortNames(values, layout.valueLimit, legend);
    const auto variant = shortNames(variants, layout.variantLimit, legend);
    TextTable table({r.param, ">run", "variant", ">mean", ">sd%", ">change%", ">95% CI", "verdict"});
    table.setGaps(layout.tight ? std::vector<std::size_t>{1, 1, 1, 1, 1, 1, 1}
                               : std::vector<std::size_t>{2, 2, 2, 1, 2, 1, 2});
    for (const auto& row : rows) {
        std::vector<std::string> cells = {row.value.empty() ? "" : value.at(row.value), row.run,
                                          variant.at(row.variant)};
        const auto& rest = layout.coarse ? row.coarse : row.cells;
        cells.insert(cells.end(), rest.begin(), rest.end());
        table.addRow(std::move(cells));
    }
    auto lines = table.lines();
    for (const auto& entry : legend) {
        for (auto& line : wrap(entry, 72, "  ")) {
            lines.push_back(std::move(line));
        }
    }
    return lines;
}

// The compact table within 72 columns: narrower gaps, then changes of 10% or more in whole
// percents, then variant names and last the parameter's values cut by compact::abbreviate, each
// cut one named in full below the table.
std::vector<std::string> fittedSweepLines(const SweepReport& r, const std::vector<SweepRow>& rows)
{
    std::vector<SweepLayout> layouts = {{}, {true}, {true, true}};
    for (std::size_t limit = 12; limit >= 6; --limit) {
        layouts.push_back({true, true, limit});
    }
    for (std::size_t limit = 12; limit >= 6; --limit) {
        layouts.push_back({true, true, 6, limit});
    }
    std::vector<std::string> lines;
    for (const auto& layout : layouts) {
        lines = sweepLines(r, rows, layout);
        if (std::all_of(lines.begin(), lines.end(), [](const std::string& l) { return columns(l) <= 72; })) {
            break;
        }
    }
    return lines;  // the narrowest tried: wider only for intervals beyond any layout
}

}  // namespace

void writeSweepText(const SweepReport& r, std::ostream& out, bool verbose)
{
    const MetricComparison* any = nullptr;
    for (const auto& p : r.points) {
        for (const auto& c : p.analysis.comparisons) {
            if (c.metric == r.metric && any == nullptr) {
                any = &c;
            }
        }
    }
    std::string title =
        fmt::format("Sweep of {} ({}, {}{} point{}), metric {}", r.param, r.workload, r.points.size(),
                    r.planned > static_cast<int>(r.points.size()) ? fmt::format(" of {}", r.planned) : "",
                    r.points.size() == 1 && r.planned <= 1 ? "" : "s", r.metric);
    if (any != nullptr) {
        title += fmt::format(" ({}; {} is better)", any->unit.empty() ? "no unit" : any->unit,
                             any->higherIsBetter ? "higher" : "lower");
    }
    const std::size_t width = verbose ? 1000 : 72;
    for (const auto& line : wrap(title, width, "  ")) {
        out << line << '\n';
    }
    if (const auto model = modelLine(r.workload); !model.empty()) {
        for (const auto& line : wrap(model, width, "  ")) {
            out << line << '\n';
        }
    }
    out << '\n';
    TextTable table({r.param, ">run", "variant", ">mean", ">delta", ">95% CI", ">p", "verdict"});
    std::vector<SweepRow> rows;
    for (const auto& p : r.points) {
        bool first = true;
        for (const auto& name : variantOrder(r)) {
            const auto* s = statsOf(p.analysis, name, r.metric);
            if (s == nullptr) {
                continue;
            }
            const auto* c = primaryOf(p.analysis, name, r.metric);
            const std::string value = first ? p.value : "";
            const std::string run = first ? std::to_string(p.runId) : "";
            first = false;
            if (verbose) {
                table.addRow({value, run, name, formatValue(s->summary.mean),
                              c != nullptr ? signedPct(c->result.interval.estimatePct) : "",
                              c != nullptr ? percentInterval(heldChangeInterval(p.analysis, *c).low,
                                                             heldChangeInterval(p.analysis, *c).high)
                                           : "",
                              c != nullptr ? formatP(c->result.pAdjusted) : "",
                              c != nullptr ? verdictWord(*c) : "baseline"});
                continue;
            }
            const std::array<std::string, 3> none = {"", "", "baseline"};
            const auto cells = c != nullptr ? compactChange(p.analysis, *c) : none;
            const auto coarse = c != nullptr ? compactChange(p.analysis, *c, true, true) : none;
            SweepRow row{value, run, name, {compactValue(s->summary.mean), compactSd(s->summary)}, {}};
            row.coarse = row.cells;
            row.cells.insert(row.cells.end(), cells.begin(), cells.end());
            row.coarse.insert(row.coarse.end(), coarse.begin(), coarse.end());
            rows.push_back(std::move(row));
        }
    }
    if (verbose) {
        table.write(out);
    } else {
        for (const auto& line : fittedSweepLines(r, rows)) {
            out << line << '\n';
        }
    }
    for (const auto& m : r.missing) {
        for (const auto& line : wrap("not compared: " + r.param + "=" + m, width, "  ")) {
            out << line << '\n';
        }
    }
    out << (verbose ? "\nEach point is its own run with the variants alternated; 'noisefloor compare RUN' shows\n"
                      "one point in full.\n"
                    : "\nEach point is its own run; 'noisefloor compare RUN' shows one in full,\n"
                      "--verbose adds the p values.\n");
}

nlohmann::json sweepJson(const SweepReport& r)
{
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : r.points) {
        nlohmann::json variants = nlohmann::json::array();
        for (const auto& name : variantOrder(r)) {
            const auto* s = statsOf(p.analysis, name, r.metric);
            if (s == nullptr) {
                continue;
            }
            nlohmann::json v = {{"name", name},
                                {"n", s->summary.n},
                                {"mean", number(s->summary.mean)},
                                {"ci_low", number(s->ciLow)},
                                {"ci_high", number(s->ciHigh)}};
            if (const auto* c = primaryOf(p.analysis, name, r.metric)) {
                v["delta_pct"] = number(c->result.interval.estimatePct);
                v["ci_low_pct"] = number(c->result.interval.ci.low);
                v["ci_high_pct"] = number(c->result.interval.ci.high);
                v["ci_level"] = number(c->result.interval.level);
                v["tost_low_pct"] = number(c->result.tost.ci.low);
                v["tost_high_pct"] = number(c->result.tost.ci.high);
                v["tost_level"] = number(c->result.tost.level);
                v["p_adjusted"] = number(c->result.pAdjusted);
                v["verdict"] = toString(c->result.verdict);
                v["design"] = toString(c->result.design);
            }
            variants.push_back(std::move(v));
        }
        points.push_back({{"value", p.value}, {"run", p.runId}, {"variants", std::move(variants)}});
    }
    return {{"schema_version", kEvidenceSchemaVersion},
            {"sweep", r.id},
            {"workload", r.workload},
            {"param", r.param},
            {"metric", r.metric},
            {"alpha", r.compare.alpha},
            {"margin_pct", r.compare.marginPct},
            {"points", std::move(points)},
            {"planned_points", r.planned},
            {"missing", r.missing}};
}

void writeSweepCsv(const SweepReport& r, std::ostream& out)
{
    out << "param,value,run,variant,metric,n,mean,ci_low,ci_high,delta_pct,ci_low_pct,ci_high_pct,p_adjusted,"
           "verdict\n";
    auto cell = [](double v) { return std::isfinite(v) ? fmt::format("{:.10g}", v) : std::string(); };
    for (const auto& p : r.points) {
        for (const auto& name : variantOrder(r)) {
            const auto* s = statsOf(p.analysis, name, r.metric);
            if (s == nullptr) {
                continue;
            }
            const auto* c = primaryOf(p.analysis, name, r.metric);
            out << fmt::format("{},{},{},{},{},{},{},{},{},", r.param, p.value, p.runId, name, r.metric, s->summary.n,
                               cell(s->summary.mean), cell(s->ciLow), cell(s->ciHigh));
            if (c != nullptr) {
                out << fmt::format("{},{},{},{},{}\n", cell(c->result.interval.estimatePct),
                                   cell(c->result.interval.ci.low), cell(c->result.interval.ci.high),
                                   cell(c->result.pAdjusted), toString(c->result.verdict));
            } else {
                out << ",,,,baseline\n";
            }
        }
    }
}

}  // namespace nf::engine
