// The text report: at most 72 columns so it survives a mailing list.

#include <fmt/format.h>
#include <cmath>
#include <sstream>

#include "engine/report/evidence.h"
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

// Outlier flags need enough values for the modified z-score to mean something.
constexpr std::size_t kOutlierMinN = 5;

void writeVariantTable(const Analysis& a, const std::string& metric, bool logScale, std::ostream& out)
{
    TextTable table({"  variant", ">n", ">mean", ">median", ">stddev", ">cv", ">95% CI of mean"});
    std::vector<std::string> notes;
    for (const auto& v : a.variants) {
        if (v.metric != metric) {
            continue;
        }
        const auto& s = v.summary;
        const auto [low, high] = logScale ? textInterval(v, a.options.compare.alpha) : std::pair{v.ciLow, v.ciHigh};
        table.addRow({"  " + v.variant, std::to_string(s.n), formatValue(s.mean), formatValue(s.median),
                      formatValue(s.stddev), formatPercent(s.cv),
                      std::isfinite(low) ? formatValue(low) + ".." + formatValue(high) : "-"});
        if (!v.outliers.empty() && s.n + v.dropped >= kOutlierMinN) {
            std::string which;
            for (auto i : v.outliers) {
                which += (which.empty() ? "" : ", ") + std::to_string(i + 1);
            }
            notes.push_back(fmt::format("{}: repetition {} {} an outlier (modified z > 3.5){}", v.variant, which,
                                        v.outliers.size() == 1 ? "is" : "are",
                                        v.dropped > 0 ? "; dropped (--drop-outliers)" : "; kept"));
        }
    }
    table.write(out);
    for (const auto& n : notes) {
        emit(out, "  " + n, "    ");
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
        std::string tests = r.design == Design::Paired
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
            sizing += fmt::format("; {:.2f}% needs {:.0f} {}s", r.targetPct, *r.nNeeded, r.unit);
        }
        emit(out, sizing, "      ");
        emit(out, "    verdict: " + verdictSentence(c, o), "      ");
        if (!r.levels.empty()) {
            emit(out, "    design: " + r.levels, "      ");
        }
    } else {
        emit(out,
             fmt::format("    {} analysis ({}s): {} ({} CI {}), {}",
                         r.design == Design::Paired ? "paired" : "independent", r.unit,
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
    return std::isfinite(v) ? fmt::format("{:+.2f}%", v) : "unbounded";
}

std::string percentInterval(double lo, double hi)
{
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
        return "unbounded";
    }
    return fmt::format("{:+.2f}..{:+.2f}%", lo, hi);
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
        } else if (line.size() + 1 + word.size() <= width) {
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
            std::string difference = fmt::format(
                "{} is {:.2f}% {} than {} ({} {}, {} CI {}, {})", c.candidate, std::fabs(r.interval.estimatePct),
                direction, c.baseline, c.metric, signedPct(r.interval.estimatePct), level,
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
        text += fmt::format("; {:.2f}% needs about {:.0f} {}s per variant", r.targetPct, *r.nNeeded, r.unit);
    }
    return text;
}

void writeEvidenceText(const Analysis& a, const EvidenceContext& ctx, std::ostream& out)
{
    emit(out, ctx.title, "  ");
    for (const auto& h : ctx.header) {
        emit(out, h, "    ");
    }
    const auto& o = a.options;
    emit(out, ctx.designNote, "  ");
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
    std::vector<std::string> seen;
    for (const auto& v : a.variants) {
        if (std::find(seen.begin(), seen.end(), v.metric) != seen.end()) {
            continue;
        }
        seen.push_back(v.metric);
        const auto first = std::find_if(a.comparisons.begin(), a.comparisons.end(),
                                        [&](const MetricComparison& c) { return c.metric == v.metric; });
        out << '\n';
        std::string about;
        if (first != a.comparisons.end()) {
            about = std::string(first->unit.empty() ? "" : first->unit + ", ") +
                    (first->higherIsBetter ? "higher is better" : "lower is better");
        }
        emit(out, v.metric + (about.empty() ? "" : " (" + about + ")"), "  ");
        writeVariantTable(a, v.metric, ctx.logScaleIntervals, out);
        for (const auto& c : a.comparisons) {
            if (c.metric == v.metric) {
                writeComparison(a, c, ctx.logScaleIntervals, out);
            }
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
