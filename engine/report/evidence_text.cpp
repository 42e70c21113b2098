// The text report: at most 72 columns so it survives a mailing list.

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "engine/model/experiment_spec.h"
#include "engine/report/compact_table.h"
#include "engine/report/evidence.h"
#include "engine/report/evidence_context.h"
#include "engine/report/text_table.h"

namespace nf::engine {

namespace {

constexpr std::size_t kWidth = 72;

void emit(std::ostream& out, const std::string& text, const std::string& indent = "")
{
    for (const auto& line : wrap(text, kWidth, indent)) {
        out << line << '\n';
    }
}

// How far code layout moves the difference, where it was a factor (layoutSpreadText).
void writeLayoutSpread(const Comparison& r, std::ostream& out)
{
    if (const auto sentence = layoutSpreadText(r); !sentence.empty()) {
        emit(out, "    " + sentence, "      ");
    }
    if (r.layoutCells.empty()) {
        return;
    }
    std::string cells = "    placement cells (baseline/candidate: pairs, difference):";
    for (const auto& cell : r.layoutCells) {
        cells += fmt::format(" {}/{}: {}, {}{};", cell.baseline, cell.candidate, cell.pairs, signedPct(cell.deltaPct),
                             cell.leftOut ? " (left out)" : "");
    }
    cells.pop_back();
    emit(out, cells, "      ");
}

// How far the difference moves from one setup of a live run to the next, where the setup was the
// unit (setupSpreadText), and each setup's pairs and difference.
void writeSetupSpread(const Comparison& r, std::ostream& out)
{
    if (const auto sentence = setupSpreadText(r); !sentence.empty()) {
        emit(out, "    " + sentence, "      ");
    }
    if (r.setupCells.empty()) {
        return;
    }
    std::string cells = "    setups (pairs, difference):";
    for (const auto& cell : r.setupCells) {
        cells += fmt::format(" {}: {}, {}{};", cell.setup, cell.pairs, signedPct(cell.deltaPct),
                             cell.leftOut ? " (left out)" : "");
    }
    cells.pop_back();
    emit(out, cells, "      ");
}

// Outlier flags need enough values for the modified z-score to mean something.
constexpr std::size_t kOutlierMinN = 5;

// How the variant tables show the variants: the gaps between their columns and each variant's
// name in them.
struct VariantColumns {
    std::size_t gap = 2;
    std::map<std::string, std::string> shown;  // a variant's name in the tables, where cut short
};

std::vector<std::string> variantTable(const Analysis& a, const std::string& metric, bool logScale,
                                      const VariantColumns& layout)
{
    TextTable table({"  variant", ">n", ">mean", ">median", ">stddev", ">cv", ">95% CI of mean"});
    table.setGaps(std::vector<std::size_t>(6, layout.gap));
    for (const auto& v : a.variants) {
        if (v.metric != metric) {
            continue;
        }
        const auto& s = v.summary;
        const auto [low, high] = logScale ? textInterval(v, a.options.compare.alpha) : std::pair{v.ciLow, v.ciHigh};
        const auto shown = layout.shown.find(v.variant);
        table.addRow({"  " + (shown == layout.shown.end() ? v.variant : shown->second), std::to_string(s.n),
                      formatValue(s.mean), formatValue(s.median), formatValue(s.stddev), formatPercent(s.cv),
                      std::isfinite(low) ? formatValue(low) + ".." + formatValue(high) : "-"});
    }
    return table.lines();
}

// One way of showing the variants for every metric's table, within 72 columns where any is: the
// names as they are, then narrower gaps, then the names cut by compact::abbreviate at the widest
// limit that fits (named in full once, above the first table).
VariantColumns fitVariantColumns(const Analysis& a, const std::vector<std::string>& metrics, bool logScale)
{
    std::vector<std::string> names;
    std::size_t longest = 0;
    for (const auto& v : a.variants) {
        if (std::find(names.begin(), names.end(), v.variant) == names.end()) {
            names.push_back(v.variant);
            longest = std::max(longest, columns(v.variant));
        }
    }
    auto fits = [&](const VariantColumns& c) {
        return std::all_of(metrics.begin(), metrics.end(), [&](const std::string& m) {
            const auto lines = variantTable(a, m, logScale, c);
            return std::all_of(lines.begin(), lines.end(), [](const auto& l) { return columns(l) <= kWidth; });
        });
    };
    VariantColumns c;
    for (c.gap = 2; c.gap >= 1; --c.gap) {
        if (fits(c)) {
            return c;
        }
    }
    c.gap = 1;
    for (std::size_t limit = longest; limit-- > 6;) {
        c.shown.clear();
        const auto cut = compact::abbreviate(names, limit);
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (cut[i] != names[i]) {
                c.shown[names[i]] = cut[i];
            }
        }
        if (fits(c)) {
            break;
        }
    }
    return c;  // the narrowest tried: wider only for values beyond any names
}

void writeVariantTable(const Analysis& a, const std::string& metric, bool logScale, const VariantColumns& layout,
                       std::ostream& out)
{
    for (const auto& line : variantTable(a, metric, logScale, layout)) {
        out << line << '\n';
    }
    for (const auto& v : a.variants) {
        if (v.metric == metric && !v.outliers.empty() && v.summary.n + v.dropped >= kOutlierMinN) {
            std::string which;
            for (auto i : v.outliers) {
                which += (which.empty() ? "" : ", ") + std::to_string(i + 1);
            }
            emit(out,
                 fmt::format("  {}: repetition {} {} an outlier (modified z > 3.5){}", v.variant, which,
                             v.outliers.size() == 1 ? "is" : "are",
                             v.dropped > 0 ? "; dropped (--drop-outliers)" : "; kept"),
                 "    ");
        }
    }
}

void writeComparison(const Analysis& a, const MetricComparison& c, bool hold, std::ostream& out)
{
    const auto& o = a.options.compare;
    const auto& r = c.result;
    const std::string level = levelText(r.interval, o.alpha);
    const auto held = heldChangeInterval(a, c, hold);
    if (c.primary) {
        emit(out,
             fmt::format("  {} vs {}: {} ({} CI {}), {} over {} {}s{}", c.candidate, c.baseline,
                         signedPct(r.interval.estimatePct), level, percentInterval(held.low, held.high),
                         formatP(r.pAdjusted), r.n, r.unit, r.pAdjusted != r.p ? " (Holm)" : ""),
             "    ");
        std::string tests = r.design == Design::Layouts
                                ? fmt::format("t over {} placement cells {}", r.n, formatP(r.pPairedT.value_or(NAN)))
                            : r.design == Design::Setups
                                ? fmt::format("t over {} setups {}", r.n, formatP(r.pPairedT.value_or(NAN)))
                            : r.design == Design::Paired
                                ? fmt::format("Wilcoxon {}, paired t {}", formatP(r.pWilcoxon.value_or(NAN)),
                                              formatP(r.pPairedT.value_or(NAN)))
                                : fmt::format("Welch {}, Mann-Whitney {}", formatP(r.pWelch.value_or(NAN)),
                                              r.pMwu ? formatP(*r.pMwu) : std::string("not run (needs the runs)"));
        emit(out, "    " + tests + fmt::format("; {} {:.2f}", r.effectSizeName, r.effectSize), "      ");
        std::string sizing =
            std::isfinite(r.mdePct)
                ? fmt::format("    detectable: {:.2f}% at {:g}% power", r.mdePct, o.power * 100)
                : fmt::format("    detectable: no difference at {:g}% power with {} {}s", o.power * 100, r.n, r.unit);
        if (r.nNeeded && r.targetPct > 0) {
            sizing += fmt::format("; {:.{}f}% needs {:.0f} {}s", r.targetPct, percentDecimals(r.targetPct), *r.nNeeded,
                                  r.unit);
            if (r.design == Design::Setups) {
                sizing += " (more --setups per repetition, or more --reps)";
            }
            if (r.design == Design::Layouts && *r.nNeeded > static_cast<double>(r.layoutsPlanned)) {
                sizing += r.layoutsPlanned < static_cast<std::size_t>(kMaxLayouts)
                              ? fmt::format(" (--layouts {} gives {})", kMaxLayouts, kMaxLayouts)
                              : fmt::format(" (a run has at most {})", r.layoutsPlanned);
            }
        }
        emit(out, sizing, "      ");
        emit(out, "    verdict: " + verdictSentence(c, o), "      ");
        if (!r.levels.empty()) {
            emit(out, "    design: " + r.levels, "      ");
        }
        writeLayoutSpread(r, out);
        writeSetupSpread(r, out);
    } else {
        emit(out,
             fmt::format("    {} analysis ({}s): {} ({} CI {}), {}", toString(r.design), r.unit,
                         signedPct(r.interval.estimatePct), level, percentInterval(held.low, held.high),
                         r.design == Design::Paired
                             ? fmt::format("Wilcoxon {}", formatP(r.pWilcoxon.value_or(NAN)))
                             : fmt::format("Welch {}, Mann-Whitney {}", formatP(r.pWelch.value_or(NAN)),
                                           r.pMwu ? formatP(*r.pMwu) : std::string("not run (needs the runs)"))),
             "      ");
        emit(out, fmt::format("      would say: {}", toString(r.verdict)), "      ");
    }
    if (held.low != r.interval.ci.low && std::isfinite(held.low)) {
        emit(out,
             "    note: the interval " + percentInterval(r.interval.ci.low, r.interval.ci.high) +
                 " is cut at -100%: the ratio of two means with no value below zero cannot be negative",
             "      ");
    }
    for (const auto& w : r.warnings) {
        emit(out, "    note: " + w, "      ");
    }
}

}  // namespace

int percentDecimals(double v)
{
    // Two decimals; two significant digits where two decimals would print a nonzero as 0.00.
    if (!std::isfinite(v) || v == 0 || std::fabs(v) >= 0.005) {
        return 2;
    }
    return std::min(1 - static_cast<int>(std::floor(std::log10(std::fabs(v)))), 12);
}

std::string levelText(const IntervalResult& interval, double alpha)
{
    // The level asked for while the interval has it (a rank interval's 95.1% reads 95%); what it
    // has when the data allow no more.
    const double level = std::isfinite(interval.level) && !interval.reachesLevel() ? interval.level
                         : std::isfinite(interval.nominalLevel)                    ? interval.nominalLevel
                                                                                   : 1 - alpha;
    return fmt::format("{:.4g}%", level * 100);
}

std::string formatP(double p)
{
    if (std::isnan(p)) {
        return "p n/a";
    }
    return p < 0.001 ? "p<0.001" : fmt::format("p={:.3f}", p);
}

std::string signedPct(double v)
{
    return std::isfinite(v) ? fmt::format("{:+.{}f}%", v, percentDecimals(v)) : "unbounded";
}

std::string percentInterval(double lo, double hi)
{
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
        return "unbounded";
    }
    return fmt::format("{:+.{}f}..{:+.{}f}%", lo, percentDecimals(lo), hi, percentDecimals(hi));
}

bool isSpeed(const MetricComparison& c)
{
    return c.metric == "tsc_per_op" || c.metric == "ns_per_op" || c.metric == "cycles_per_op" ||
           c.metric == "ops_per_sec" || c.metric == "pps";
}

std::string verdictWord(const MetricComparison& c)
{
    const auto& r = c.result;
    if (r.verdict != Verdict::Different) {
        return std::string(toString(r.verdict));
    }
    const bool better = (r.direction < 0) != c.higherIsBetter;
    if (isSpeed(c)) {
        return better ? "different: faster" : "different: slower";
    }
    return better ? "different: better" : "different: worse";
}

std::vector<std::string> wrap(const std::string& text, std::size_t width, const std::string& indent)
{
    std::vector<std::string> lines;
    std::istringstream words(text);
    std::string word;
    std::string line;
    // Keep the leading indentation of the first line.
    const std::size_t lead = text.find_first_not_of(' ');
    const std::string firstIndent = text.substr(0, lead == std::string::npos ? 0 : lead);
    while (words >> word) {
        const std::string& prefix = lines.empty() ? firstIndent : indent;
        if (line.empty()) {
            line = prefix + word;
        } else if (columns(line) + 1 + columns(word) <= width) {
            line += " " + word;
        } else {
            lines.push_back(line);
            line = indent + word;
        }
    }
    if (!line.empty()) {
        lines.push_back(line);
    }
    return lines;
}

std::string layoutSpreadText(const Comparison& r)
{
    if (!r.layoutSpreadPct) {
        return {};
    }
    const double pct = *r.layoutSpreadPct;
    return fmt::format(
        "layout spread +-{:.{}f}%{}: where the code sits moves a difference this much; the interval "
        "includes it{}",
        pct, percentDecimals(pct), r.layoutSource.empty() ? "" : " (" + r.layoutSource + ")",
        r.layoutsMeasured < r.layoutsPlanned
            ? fmt::format(" (incomplete: {} of {} placements)", r.layoutsMeasured, r.layoutsPlanned)
            : "");
}

std::string setupSpreadText(const Comparison& r)
{
    if (!r.setupSpreadPct) {
        return {};
    }
    const double pct = *r.setupSpreadPct;
    return fmt::format(
        "setup spread +-{:.{}f}%: the setups' differences scatter this much (what each start of the receivers "
        "drew, and the noise of its chunks); the interval includes it",
        pct, percentDecimals(pct));
}

std::vector<std::string> validityLines(const Analysis& a)
{
    // Each reason once, with the metrics it made invalid and those it left standing, in the
    // order of the comparisons.
    struct Seen {
        ValidityFinding finding;
        std::vector<std::string> invalid;
        std::vector<std::string> standing;
    };
    std::vector<Seen> seen;
    const auto note = [&](const ValidityFinding& f, const std::string& metric, bool invalid) {
        auto it = std::find_if(seen.begin(), seen.end(), [&](const Seen& s) { return s.finding.text == f.text; });
        if (it == seen.end()) {
            seen.push_back({f, {}, {}});
            it = seen.end() - 1;
        }
        auto& list = invalid ? it->invalid : it->standing;
        if (std::find(list.begin(), list.end(), metric) == list.end()) {
            list.push_back(metric);
        }
    };
    for (const auto& c : a.comparisons) {
        if (!c.primary) {
            continue;
        }
        for (const auto& f : c.result.validity.reasons) {
            note(f, c.metric, true);
        }
        for (const auto& f : c.result.validity.stated) {
            note(f, c.metric, false);
        }
    }
    std::vector<std::string> metrics;
    for (const auto& c : a.comparisons) {
        if (c.primary && std::find(metrics.begin(), metrics.end(), c.metric) == metrics.end()) {
            metrics.push_back(c.metric);
        }
    }
    std::vector<std::string> lines;
    std::vector<std::string> rateOnly;  // codes whose reasons left other metrics' verdicts standing
    std::size_t standing = 0;
    for (const auto& s : seen) {
        if (s.invalid.empty()) {
            continue;
        }
        lines.push_back(fmt::format(
            "{} ({}) for {}: {}", a.options.allowInvalid ? "invalid test, verdicts kept (--allow-invalid)" : "invalid",
            s.finding.code,
            s.invalid.size() == metrics.size() && metrics.size() > 1 ? std::string("every metric")
                                                                     : fmt::format("{}", fmt::join(s.invalid, ", ")),
            s.finding.text));
        if (!s.standing.empty() && std::find(rateOnly.begin(), rateOnly.end(), s.finding.code) == rateOnly.end()) {
            rateOnly.push_back(s.finding.code);
            standing = std::max(standing, s.standing.size());
        }
    }
    if (!rateOnly.empty()) {
        lines.push_back(fmt::format("{} concern{} rates only: the other {} metric{} keep their verdicts",
                                    fmt::join(rateOnly, " and "), rateOnly.size() == 1 ? "s" : "", standing,
                                    standing == 1 ? "" : "s"));
    }
    return lines;
}

std::string verdictSentence(const MetricComparison& c, const CompareOptions& o)
{
    const double alpha = o.alpha;
    const auto& r = c.result;
    const std::string level = levelText(r.interval, alpha);
    switch (r.verdict) {
        case Verdict::Different:
        case Verdict::Negligible: {
            // The direction is the sign of candidate - baseline, not of the ratio's change: with
            // negative values a ratio below 1 is a candidate above the baseline.
            const bool better = (r.direction < 0) != c.higherIsBetter;
            const std::string direction =
                isSpeed(c) ? (better ? "faster" : "slower")
                           : fmt::format("{} ({})", r.direction > 0 ? "higher" : "lower", better ? "better" : "worse");
            std::string difference =
                fmt::format("{} is {:.{}f}% {} than {} ({} {}, {} CI {}, {})", c.candidate,
                            std::fabs(r.interval.estimatePct), percentDecimals(r.interval.estimatePct), direction,
                            c.baseline, c.metric, signedPct(r.interval.estimatePct), level,
                            percentInterval(r.interval.ci.low, r.interval.ci.high), formatP(r.pAdjusted));
            if (r.verdict == Verdict::Negligible) {
                return fmt::format("negligible: {}; the whole interval lies inside the +-{:g}% margin", difference,
                                   o.marginPct);
            }
            return difference;
        }
        case Verdict::Equivalent:
            return fmt::format("equivalent: {} vs {} lies within {} ({} CI), inside the +-{:g}% margin", c.candidate,
                               c.baseline, percentInterval(r.tost.ci.low, r.tost.ci.high), levelText(r.tost, 2 * alpha),
                               o.marginPct);
        case Verdict::Invalid:
            return fmt::format("invalid: {}; measured {} {} ({} CI {}), not a verdict", r.verdictReason, c.metric,
                               signedPct(r.interval.estimatePct), level,
                               percentInterval(r.interval.ci.low, r.interval.ci.high));
        case Verdict::Inconclusive: break;
    }
    std::string text = fmt::format("no difference proven at {}", levelText(r.interval, alpha));
    if (!r.verdictReason.empty()) {
        text += "; " + r.verdictReason;
    }
    if (std::isfinite(r.mdePct)) {
        text += fmt::format("; differences above {:.2f}% would have been detected", r.mdePct);
    }
    if (r.nNeeded && r.targetPct > 0) {
        text += fmt::format("; {:.{}f}% needs about {:.0f} {}s per variant", r.targetPct, percentDecimals(r.targetPct),
                            *r.nNeeded, r.unit);
    }
    return text;
}

void writeEvidenceText(const Analysis& a, const EvidenceContext& ctx, std::ostream& out)
{
    emit(out, ctx.title, "  ");
    for (const auto& h : ctx.header) {
        for (const auto& line : headerLines(h, kWidth, "    ")) {  // a command whole, to paste back
            out << line << '\n';
        }
    }
    const auto& o = a.options;
    emit(out, ctx.designNote, "  ");
    for (const auto& line : ctx.designLines) {
        emit(out, line, "  ");
    }
    std::size_t metrics = 0;
    for (const auto& c : a.comparisons) {
        metrics += c.primary && c.candidate == a.comparisons.front().candidate ? 1 : 0;
    }
    emit(out,
         fmt::format("alpha {:g}{}, equivalence margin +-{:g}%{}", o.compare.alpha,
                     o.holm && metrics > 1
                         ? fmt::format(", the primary metric at alpha and the {} others Holm-corrected among "
                                       "themselves (one quantity in other units counts once)",
                                       metrics - 1)
                         : "",
                     o.compare.marginPct, o.dropOutliers ? ", outliers dropped (--drop-outliers)" : ""),
         "  ");
    std::vector<std::string> metricsShown;
    for (const auto& v : a.variants) {
        if (std::find(metricsShown.begin(), metricsShown.end(), v.metric) == metricsShown.end()) {
            metricsShown.push_back(v.metric);
        }
    }
    const auto variantColumns = fitVariantColumns(a, metricsShown, ctx.logScaleIntervals);
    if (!variantColumns.shown.empty()) {
        out << "\nvariants in the tables:\n";
        for (const auto& [name, shown] : variantColumns.shown) {
            emit(out, "  " + shown + " = " + name, "    ");
        }
    }
    for (const auto& metric : metricsShown) {
        const auto first = std::find_if(a.comparisons.begin(), a.comparisons.end(),
                                        [&](const MetricComparison& c) { return c.metric == metric; });
        out << '\n';
        std::string about;
        if (first != a.comparisons.end()) {
            about = std::string(first->unit.empty() ? "" : first->unit + ", ") +
                    (first->higherIsBetter ? "higher is better" : "lower is better");
        }
        emit(out, metric + (about.empty() ? "" : " (" + about + ")"), "  ");
        writeVariantTable(a, metric, ctx.logScaleIntervals, variantColumns, out);
        for (const auto& c : a.comparisons) {
            if (c.metric == metric) {
                writeComparison(a, c, ctx.logScaleIntervals, out);
            }
        }
    }
    if (const auto validity = validityLines(a); !validity.empty()) {
        out << "\nvalidity of the test:\n";
        for (const auto& line : validity) {
            emit(out, "  - " + line, "    ");
        }
    }
    std::vector<std::string> warnings = a.warnings;
    warnings.insert(warnings.end(), ctx.warnings.begin(), ctx.warnings.end());
    if (!warnings.empty()) {
        out << "\nwarnings:\n";
        for (const auto& w : warnings) {
            emit(out, "  - " + w, "    ");
        }
    }
}

}  // namespace nf::engine
