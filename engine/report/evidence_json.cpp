// The analysis as JSON and CSV: the field names are a contract (docs/statistics.md).

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "engine/report/evidence.h"

namespace nf::engine {

namespace {

nlohmann::json number(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json optionalNumber(const std::optional<double>& v)
{
    return v ? number(*v) : nlohmann::json(nullptr);
}

nlohmann::json variantJson(const VariantStats& v, double alpha)
{
    // The positive-scale interval the text shows for a quantity that cannot be negative; null else.
    const bool logScale = intervalOnLogScale(v);
    const auto [low, high] = textInterval(v, alpha);
    return {{"name", v.variant},
            {"metric", v.metric},
            {"n", v.summary.n},
            {"mean", number(v.summary.mean)},
            {"median", number(v.summary.median)},
            {"stddev", number(v.summary.stddev)},
            {"cv", number(v.summary.cv)},
            {"min", number(v.summary.min)},
            {"max", number(v.summary.max)},
            {"ci_low", number(v.ciLow)},
            {"ci_high", number(v.ciHigh)},
            {"ci_low_log", logScale ? number(low) : nlohmann::json(nullptr)},
            {"ci_high_log", logScale ? number(high) : nlohmann::json(nullptr)},
            {"outliers", v.outliers},
            {"dropped", v.dropped}};
}

// Code layout, where it was a factor: layout_spread_pct (a number; null only when too few
// placements were measured for one), the builds or placements it rests on, those planned, and what
// it was measured on.
void addLayoutSpread(const Comparison& r, nlohmann::json& j)
{
    if (!r.layoutSpreadPct && r.layoutsPlanned == 0) {
        return;
    }
    j["layout_spread_pct"] = r.layoutSpreadPct ? number(*r.layoutSpreadPct) : nlohmann::json();
    j["layouts_measured"] = r.layoutsMeasured;
    if (r.layoutsPlanned > 0) {
        j["layouts_planned"] = r.layoutsPlanned;
    }
    if (!r.layoutSource.empty()) {
        j["layout_source"] = r.layoutSource;
    }
    if (!r.layoutCells.empty()) {
        nlohmann::json cells = nlohmann::json::array();
        for (const auto& cell : r.layoutCells) {
            cells.push_back({{"baseline_layout", cell.baseline},
                             {"candidate_layout", cell.candidate},
                             {"pairs", cell.pairs},
                             {"delta_pct", number(cell.deltaPct)},
                             {"left_out", cell.leftOut}});
        }
        j["layout_cells"] = cells;
    }
}

// Setups of a live run, where they were the unit: setup_spread_pct, setups_measured and each
// setup's pairs and difference.
void addSetupSpread(const Comparison& r, nlohmann::json& j)
{
    if (r.design != Design::Setups) {
        return;
    }
    j["setup_spread_pct"] = r.setupSpreadPct ? number(*r.setupSpreadPct) : nlohmann::json();
    j["setups_measured"] = r.n;
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& cell : r.setupCells) {
        cells.push_back({{"setup", cell.setup},
                         {"pairs", cell.pairs},
                         {"delta_pct", number(cell.deltaPct)},
                         {"left_out", cell.leftOut}});
    }
    j["setup_cells"] = cells;
}

// Live runs whose validity was judged: {valid, reasons: [{code, text}]}, and the reasons that
// concern other metrics, stated beside a verdict that stands.
void addValidity(const Comparison& r, nlohmann::json& j)
{
    if (!r.validity.assessed) {
        return;
    }
    const auto findings = [](const std::vector<ValidityFinding>& list) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& f : list) {
            out.push_back({{"code", f.code}, {"text", f.text}});
        }
        return out;
    };
    j["validity"] = {{"valid", r.validity.valid},
                     {"reasons", findings(r.validity.reasons)},
                     {"stated", findings(r.validity.stated)}};
}

nlohmann::json comparisonJson(const MetricComparison& c, const CompareOptions& options)
{
    const auto& r = c.result;
    nlohmann::json j = {{"metric", c.metric},
                        {"unit", c.unit},
                        {"higher_is_better", c.higherIsBetter},
                        {"design", toString(r.design)},
                        {"unit_of_analysis", r.unit},
                        {"primary", c.primary},
                        {"baseline", c.baseline},
                        {"candidate", c.candidate},
                        {"n", r.n},
                        {"n_candidate", r.nCandidate},
                        {"delta_pct", number(r.interval.estimatePct)},
                        // The sign of candidate - baseline, which the ratio's delta_pct does not
                        // carry for negative values.
                        {"direction", r.direction > 0   ? "higher"
                                      : r.direction < 0 ? "lower"
                                                        : "equal"},
                        {"ci_low_pct", number(r.interval.ci.low)},
                        {"ci_high_pct", number(r.interval.ci.high)},
                        {"tost_low_pct", number(r.tost.ci.low)},
                        {"tost_high_pct", number(r.tost.ci.high)},
                        {"ci_level", number(r.interval.level)},
                        {"tost_level", number(r.tost.level)},
                        {"estimator", r.interval.method},
                        {"primary_test", r.primaryTest},
                        {"p", number(r.p)},
                        {"p_adjusted", number(r.pAdjusted)},
                        {"effect_size", number(r.effectSize)},
                        {"effect_size_name", r.effectSizeName},
                        {"verdict", toString(r.verdict)},
                        {"verdict_text", verdictSentence(c, options)},
                        {"verdict_reason", r.verdictReason},
                        {"within_margin", r.withinMargin},
                        {"mde_pct", number(r.mdePct)},
                        {"target_pct", number(r.targetPct)},
                        {"n_needed", optionalNumber(r.nNeeded)},
                        {"dropped_outliers", r.droppedOutliers},
                        {"warnings", r.warnings},
                        {"design_levels", r.levels}};
    addLayoutSpread(r, j);
    addSetupSpread(r, j);
    addValidity(r, j);
    if (r.design == Design::Independent) {
        j["p_welch"] = optionalNumber(r.pWelch);
        j["p_mwu"] = optionalNumber(r.pMwu);
    } else {
        j["p_paired_t"] = optionalNumber(r.pPairedT);
        j["p_wilcoxon"] = optionalNumber(r.pWilcoxon);
    }
    return j;
}

std::string csvNumber(double v)
{
    return std::isfinite(v) ? fmt::format("{:.10g}", v) : "";
}

}  // namespace

nlohmann::json evidenceJson(const Analysis& a, const EvidenceContext& ctx)
{
    nlohmann::json variants = nlohmann::json::array();
    for (const auto& v : a.variants) {
        variants.push_back(variantJson(v, a.options.compare.alpha));
    }
    nlohmann::json comparisons = nlohmann::json::array();
    auto noneBelowZero = [&](const std::string& variant, const std::string& metric) {
        return std::any_of(a.variants.begin(), a.variants.end(), [&](const VariantStats& v) {
            return v.variant == variant && v.metric == metric && v.summary.n > 0 && v.summary.min >= 0;
        });
    };
    for (const auto& c : a.comparisons) {
        auto j = comparisonJson(c, a.options.compare);
        // The metric tested at alpha alone ("primary" marks the design the verdict rests on).
        j["primary_metric"] = c.metric == a.primaryMetric;
        // The interval the text shows for a rate or count: held to the ratio's range; null else.
        const bool positive = noneBelowZero(c.baseline, c.metric) && noneBelowZero(c.candidate, c.metric);
        const auto held = heldChangeInterval(a, c);
        j["ci_low_pct_positive"] = positive ? number(held.low) : nlohmann::json(nullptr);
        j["ci_high_pct_positive"] = positive ? number(held.high) : nlohmann::json(nullptr);
        comparisons.push_back(std::move(j));
    }
    std::vector<std::string> warnings = a.warnings;
    warnings.insert(warnings.end(), ctx.warnings.begin(), ctx.warnings.end());
    nlohmann::json derived = nlohmann::json::array();
    for (const auto& d : ctx.derived) {
        derived.push_back({{"metric", d.metric}, {"of", d.of}, {"factor", number(d.factor)}});
    }
    return {{"schema_version", kEvidenceSchemaVersion},
            {"title", ctx.title},
            {"header", ctx.header},
            {"design_note", ctx.designNote},
            {"source", ctx.source},
            {"options",
             {{"alpha", a.options.compare.alpha},
              {"margin_pct", a.options.compare.marginPct},
              {"target_pct", optionalNumber(a.options.compare.targetPct)},
              {"power", a.options.compare.power},
              {"holm", a.options.holm},
              {"drop_outliers", a.options.dropOutliers},
              {"baseline", a.options.baseline}}},
            {"variants", variants},
            {"comparisons", comparisons},
            {"derived_metrics", derived},
            {"warnings", warnings}};
}

void writeEvidenceCsv(const Analysis& a, std::ostream& out)
{
    out << "metric,design,primary,baseline,candidate,n,n_candidate,delta_pct,ci_low_pct,ci_high_pct,p,p_adjusted,"
           "p_welch,p_mwu,p_paired_t,p_wilcoxon,verdict,mde_pct,n_needed,ci_level\n";
    auto opt = [](const std::optional<double>& v) { return v ? csvNumber(*v) : std::string(); };
    for (const auto& c : a.comparisons) {
        const auto& r = c.result;
        out << c.metric << ',' << toString(r.design) << ',' << (c.primary ? 1 : 0) << ',' << c.baseline << ','
            << c.candidate << ',' << r.n << ',' << r.nCandidate << ',' << csvNumber(r.interval.estimatePct) << ','
            << csvNumber(r.interval.ci.low) << ',' << csvNumber(r.interval.ci.high) << ',' << csvNumber(r.p) << ','
            << csvNumber(r.pAdjusted) << ',' << opt(r.pWelch) << ',' << opt(r.pMwu) << ',' << opt(r.pPairedT) << ','
            << opt(r.pWilcoxon) << ',' << toString(r.verdict) << ',' << csvNumber(r.mdePct) << ',' << opt(r.nNeeded)
            << ',' << csvNumber(r.interval.level) << '\n';
    }
}

}  // namespace nf::engine
