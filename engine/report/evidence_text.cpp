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

void writeVariantTable(const Analysis& a, const std::string& metric, std::ostream& out)
{
    TextTable table({"  variant", ">n", ">mean", ">median", ">stddev", ">cv", ">95% CI of mean"});
    std::vector<std::string> notes;
    for (const auto& v : a.variants) {
        if (v.metric != metric) {
            continue;
        }
        const auto& s = v.summary;
        table.addRow({"  " + v.variant, std::to_string(s.n), formatValue(s.mean), formatValue(s.median),
                      formatValue(s.stddev), formatPercent(s.cv),
                      std::isfinite(v.ciLow) ? formatValue(v.ciLow) + ".." + formatValue(v.ciHigh) : "-"});
        if (!v.outliers.empty()) {
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

void writeComparison(const MetricComparison& c, const stats::CompareOptions& o, std::ostream& out)
{
    const double alpha = o.alpha;
    const auto& r = c.result;
    const int level = static_cast<int>(std::lround((1 - alpha) * 100));
    if (c.primary) {
        emit(out,
             fmt::format("  {} vs {}: {} ({}% CI {}), {} over {} {}s{}", c.candidate, c.baseline, signedPct(r.deltaPct),
                         level, percentInterval(r.ciLowPct, r.ciHighPct), formatP(r.pAdjusted), r.n, r.unit,
                         r.pAdjusted != r.p ? " (Holm)" : ""),
             "    ");
        std::string tests = r.design == stats::Design::Paired
                                ? fmt::format("Wilcoxon {}, paired t {}", formatP(r.pWilcoxon.value_or(NAN)),
                                              formatP(r.pPairedT.value_or(NAN)))
                                : fmt::format("Welch {}, Mann-Whitney {}", formatP(r.pWelch.value_or(NAN)),
                                              r.pMwu ? formatP(*r.pMwu) : std::string("not run (needs the runs)"));
        emit(out, "    " + tests + fmt::format("; {} {:.2f}", r.effectSizeName, r.effectSize), "      ");
        std::string sizing = fmt::format("    detectable: {:.2f}% at {:g}% power", r.mdePct, o.power * 100);
        if (r.nNeeded && r.targetPct > 0) {
            sizing += fmt::format("; {:.2f}% needs {:.0f} {}s", r.targetPct, *r.nNeeded, r.unit);
        }
        emit(out, sizing, "      ");
        emit(out, "    verdict: " + verdictSentence(c, o), "      ");
    } else {
        emit(out,
             fmt::format("    {} analysis ({}s): {} ({}% CI {}), {}",
                         r.design == stats::Design::Paired ? "paired" : "independent", r.unit, signedPct(r.deltaPct),
                         level, percentInterval(r.ciLowPct, r.ciHighPct),
                         r.design == stats::Design::Paired
                             ? fmt::format("Wilcoxon {}", formatP(r.pWilcoxon.value_or(NAN)))
                             : fmt::format("Welch {}, Mann-Whitney {}", formatP(r.pWelch.value_or(NAN)),
                                           r.pMwu ? formatP(*r.pMwu) : std::string("not run (needs the runs)"))),
             "      ");
        emit(out, fmt::format("      would say: {}", stats::toString(r.verdict)), "      ");
    }
    for (const auto& w : r.warnings) {
        emit(out, "    note: " + w, "      ");
    }
}

}  // namespace

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
    if (r.verdict != stats::Verdict::Different) {
        return std::string(stats::toString(r.verdict));
    }
    const bool better = (r.deltaPct < 0) != c.higherIsBetter;
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

std::string verdictSentence(const MetricComparison& c, const stats::CompareOptions& o)
{
    const double alpha = o.alpha;
    const auto& r = c.result;
    const int level = static_cast<int>(std::lround((1 - alpha) * 100));
    switch (r.verdict) {
        case stats::Verdict::Different: {
            const bool better = (r.deltaPct < 0) != c.higherIsBetter;
            const std::string direction =
                isSpeed(c) ? (better ? "faster" : "slower")
                           : fmt::format("{} ({})", r.deltaPct > 0 ? "higher" : "lower", better ? "better" : "worse");
            const std::string margin =
                r.withinMargin ? fmt::format("; smaller than the +-{:g}% equivalence margin", o.marginPct) : "";
            return fmt::format("{} is {:.2f}% {} than {} ({} {}, {}% CI {}, {}){}", c.candidate, std::fabs(r.deltaPct),
                               direction, c.baseline, c.metric, signedPct(r.deltaPct), level,
                               percentInterval(r.ciLowPct, r.ciHighPct), formatP(r.pAdjusted), margin);
        }
        case stats::Verdict::Equivalent:
            return fmt::format("equivalent: {} vs {} lies within {} ({}% CI), inside the +-{:g}% margin", c.candidate,
                               c.baseline, percentInterval(r.tostLowPct, r.tostHighPct),
                               static_cast<int>(std::lround((1 - 2 * alpha) * 100)), o.marginPct);
        case stats::Verdict::Inconclusive: break;
    }
    std::string text = fmt::format("no difference proven at {}%", level);
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
                     o.holm && metrics > 1 ? fmt::format(", Holm-corrected over {} metrics", metrics) : "",
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
        writeVariantTable(a, v.metric, out);
        for (const auto& c : a.comparisons) {
            if (c.metric == v.metric) {
                writeComparison(c, o.compare, out);
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
