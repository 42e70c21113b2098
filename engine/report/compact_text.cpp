// The compact text report: a header of one-line facts and one line per metric, like the kernel
// test robot's "%stddev %change %stddev" lines and benchstat's tables. Everything else is in the
// verbose text (evidence_text.cpp) and the JSON.

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/analysis/across_runs.h"
#include "engine/report/evidence.h"
#include "engine/report/text_table.h"
#include "engine/stats/ratio.h"

namespace nf::engine {

namespace {

constexpr std::size_t kWidth = 72;

// One line: cut at a word before the width, marked with "...".
std::string oneLine(const std::string& text)
{
    if (text.size() <= kWidth) {
        return text;
    }
    std::size_t cut = text.rfind(' ', kWidth - 4);
    if (cut == std::string::npos || cut < kWidth / 2) {
        cut = kWidth - 4;
    }
    return text.substr(0, cut) + " ...";
}

}  // namespace

// Four significant digits with an SI suffix: 581.2k, 1.235M, 12.35, 34.09m, 2.500u.
std::string compactValue(double v)
{
    if (!std::isfinite(v)) {
        return "-";
    }
    const double a = std::fabs(v);
    if (a == 0) {
        return "0";
    }
    static constexpr std::pair<double, const char*> kSuffixes[] = {{1e12, "T"}, {1e9, "G"},  {1e6, "M"},  {1e3, "k"},
                                                                   {1, ""},     {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}};
    for (const auto& [scale, suffix] : kSuffixes) {
        if (a >= scale * 0.99995) {
            const double x = v / scale;
            const int digits = static_cast<int>(std::floor(std::log10(std::fabs(x) * 1.00005))) + 1;
            return fmt::format("{:.{}f}{}", x, std::clamp(4 - digits, 0, 3), suffix);
        }
    }
    return fmt::format("{:.3e}", v);
}

// The standard deviation in percent of the mean, two significant digits: 0.053, 2.1, 16, 150.
std::string compactSd(const Summary& s)
{
    if (s.n < 2 || !std::isfinite(s.cv)) {
        return "-";
    }
    const double pct = s.cv * 100;
    if (pct == 0) {
        return "0";
    }
    if (pct < 0.001) {
        return "<0.001";
    }
    return pct >= 10 ? fmt::format("{:.0f}", pct) : fmt::format("{:.2g}", pct);
}

// The change and its interval in percent, with the decimals one significant digit of the
// interval's width needs (at most three).
std::pair<std::string, std::string> changeCellsOf(const IntervalResult& i)
{
    if (!std::isfinite(i.estimatePct)) {
        return {"-", "-"};
    }
    if (!i.bounded()) {
        return {fmt::format("{:+.3g}", i.estimatePct), "unbounded"};
    }
    int decimals = 2;
    if (i.ci.high > i.ci.low) {
        decimals = std::clamp(-static_cast<int>(std::floor(std::log10((i.ci.high - i.ci.low) / 2))), 0, 3);
    }
    if (std::fabs(i.estimatePct) >= 1) {  // at most four significant digits: -99.73, +765
        decimals =
            std::min(decimals, std::max(0, 3 - static_cast<int>(std::floor(std::log10(std::fabs(i.estimatePct))))));
    }
    return {fmt::format("{:+.{}f}", i.estimatePct, decimals),
            fmt::format("{:+.{}f}..{:+.{}f}", i.ci.low, decimals, i.ci.high, decimals)};
}

namespace {

std::string shortVerdict(const Comparison& r)
{
    switch (r.verdict) {
        case Verdict::Different: return "different";
        case Verdict::Equivalent: return "equivalent";
        case Verdict::Inconclusive: break;
    }
    return "~";
}

// Shorter metric names for a table that would not fit: "drops_per_sec" reads "drops/s".
std::string shortName(std::string name)
{
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"_per_packet", "/pkt"}, {"_per_sec", "/s"}, {"_per_op", "/op"}}) {
        const auto at = name.find(from);
        if (at != std::string::npos) {
            name.replace(at, from.size(), to);
        }
    }
    return name;
}

const VariantStats* statsOf(const Analysis& a, const std::string& variant, const std::string& metric)
{
    const auto it = std::find_if(a.variants.begin(), a.variants.end(),
                                 [&](const VariantStats& v) { return v.variant == variant && v.metric == metric; });
    return it == a.variants.end() ? nullptr : &*it;
}

bool isDerived(const EvidenceContext& ctx, const std::string& metric)
{
    return std::any_of(ctx.derived.begin(), ctx.derived.end(),
                       [&](const DerivedMetric& d) { return d.metric == metric; });
}

// Zero in every repetition of every variant: nothing to compare, named once below the table.
bool allZero(const Analysis& a, const std::string& metric)
{
    bool any = false;
    for (const auto& v : a.variants) {
        if (v.metric == metric) {
            if (v.summary.n == 0 || v.summary.min != 0 || v.summary.max != 0) {
                return false;
            }
            any = true;
        }
    }
    return any;
}

std::string designLine(const Analysis& a)
{
    const auto it =
        std::find_if(a.comparisons.begin(), a.comparisons.end(), [](const MetricComparison& c) { return c.primary; });
    if (it == a.comparisons.end()) {
        return "";
    }
    const auto& r = it->result;
    const std::string count = r.design == Design::Paired || r.n == r.nCandidate
                                  ? fmt::format("{} {}s", r.n, r.unit)
                                  : fmt::format("{} and {} {}s", r.n, r.nCandidate, r.unit);
    return fmt::format("design: {}, {}{}", toString(r.design), count,
                       r.primaryTest.empty() ? "" : "; " + r.primaryTest);
}

std::string optionsLine(const Analysis& a)
{
    const auto& o = a.options;
    std::vector<std::string> metrics;
    for (const auto& c : a.comparisons) {
        if (c.primary && std::find(metrics.begin(), metrics.end(), c.metric) == metrics.end()) {
            metrics.push_back(c.metric);
        }
    }
    return fmt::format("alpha {:g}{}, equivalence margin +-{:g}%{}", o.compare.alpha,
                       o.holm && metrics.size() > 1 ? fmt::format(" (Holm over {} metrics)", metrics.size()) : "",
                       o.compare.marginPct, o.dropOutliers ? ", outliers dropped" : "");
}

// The warnings of the compact header, one line each: "not measured" lines folded into one.
std::vector<std::string> warningLines(const Analysis& a, const EvidenceContext& ctx)
{
    std::vector<std::string> all = a.warnings;
    all.insert(all.end(), ctx.warnings.begin(), ctx.warnings.end());
    std::vector<std::string> lines;
    std::string notMeasured;
    for (const auto& w : all) {
        const auto at = w.find("not measured: ");
        if (at != std::string::npos) {
            notMeasured += (notMeasured.empty() ? "" : "; ") + w.substr(at + 14);
        } else {
            lines.push_back(w);
        }
    }
    if (!notMeasured.empty()) {
        lines.push_back("not measured: " + notMeasured);
    }
    std::vector<std::string> out;
    out.reserve(lines.size());
    for (const auto& line : lines) {
        out.push_back(oneLine("! " + line));
    }
    return out;
}

struct Block {
    std::string candidate;
    std::string baseline;
    std::vector<const MetricComparison*> rows;
};

std::vector<Block> blocks(const Analysis& a, const EvidenceContext& ctx)
{
    std::vector<Block> out;
    for (const auto& c : a.comparisons) {
        if (!c.primary || isDerived(ctx, c.metric) || allZero(a, c.metric)) {
            continue;
        }
        auto it = std::find_if(out.begin(), out.end(), [&](const Block& b) { return b.candidate == c.candidate; });
        if (it == out.end()) {
            out.push_back({c.candidate, c.baseline, {}});
            it = out.end() - 1;
        }
        it->rows.push_back(&c);
    }
    return out;
}

// One table: every metric of one candidate against the baseline, the primary metric first. Names
// that would push a line past 72 columns are shortened ("drops/s"); one still too long takes a line
// of its own above its values.
std::vector<std::string> blockLines(const Analysis& a, const Block& b, const std::string& primary, bool& partialLevel)
{
    std::vector<std::vector<std::string>> rows;
    for (const auto* c : b.rows) {
        const auto* base = statsOf(a, b.baseline, c->metric);
        const auto* cand = statsOf(a, b.candidate, c->metric);
        auto [change, ci] = changeCellsOf(c->result.interval);
        if (c->result.interval.bounded() && !c->result.interval.reachesLevel()) {
            ci += "^";
            partialLevel = true;
        }
        rows.push_back(
            {(c->metric == primary ? "* " : "  ") + c->metric, base != nullptr ? compactValue(base->summary.mean) : "-",
             base != nullptr ? compactSd(base->summary) : "-", cand != nullptr ? compactValue(cand->summary.mean) : "-",
             cand != nullptr ? compactSd(cand->summary) : "-", change, ci, shortVerdict(c->result)});
    }
    // limit: the longest name kept in the name column; longer ones go on a line of their own.
    auto layout = [&](bool shortNames, std::size_t limit) {
        TextTable table({"  metric", ">" + b.baseline, ">sd%", ">" + b.candidate, ">sd%", ">change%",
                         fmt::format(">{:g}% CI", (1 - a.options.compare.alpha) * 100), "verdict"});
        table.setGaps({1, 1, 2, 1, 2, 1, 2});
        std::vector<std::string> own;  // per row: its name line, or ""
        for (auto row : rows) {
            if (shortNames) {
                row[0] = row[0].substr(0, 2) + shortName(row[0].substr(2));
            }
            own.push_back(row[0].size() > limit ? row[0] : "");
            if (row[0].size() > limit) {
                row[0] = "";
            }
            table.addRow(row);
        }
        auto body = table.lines();
        std::vector<std::string> lines = {body.front()};
        for (std::size_t r = 0; r < own.size(); ++r) {
            if (!own[r].empty()) {
                lines.push_back(own[r]);
            }
            lines.push_back(body[r + 1]);
        }
        return lines;
    };
    auto fits = [](const std::vector<std::string>& lines) {
        return std::all_of(lines.begin(), lines.end(), [](const auto& l) { return l.size() <= kWidth; });
    };
    constexpr std::size_t kAll = std::string::npos;
    if (auto lines = layout(false, kAll); fits(lines)) {
        return lines;
    }
    for (std::size_t limit = kWidth; limit >= 8; --limit) {
        if (auto lines = layout(true, limit); fits(lines)) {
            return lines;
        }
    }
    return layout(true, 0);
}

std::string derivedText(const EvidenceContext& ctx)
{
    std::string text;
    for (const auto& d : ctx.derived) {
        text += (text.empty() ? "" : ", ") + d.metric +
                (std::isfinite(d.factor) ? fmt::format(" ({:.6g} x {})", d.factor, d.of) : " (converts " + d.of + ")");
    }
    return text;
}

}  // namespace

std::array<std::string, 3> compactChange(const Comparison& c)
{
    auto [change, ci] = changeCellsOf(c.interval);
    if (c.interval.bounded() && !c.interval.reachesLevel()) {
        ci += "^";
    }
    return {change, ci, shortVerdict(c)};
}

bool intervalOnLogScale(const VariantStats& v)
{
    return v.summary.n >= 2 && v.summary.min >= 0 && std::isfinite(v.summary.mean);
}

std::pair<double, double> textInterval(const VariantStats& v, double alpha)
{
    const auto& s = v.summary;
    if (intervalOnLogScale(v)) {
        if (s.mean == 0) {
            return {0.0, 0.0};
        }
        const auto r = stats::logScaleMeanInterval(s.mean, s.stddev, static_cast<double>(s.n), 1 - alpha);
        return {r.low, r.high};
    }
    return {v.ciLow, v.ciHigh};
}

std::vector<std::string> compactHeader(const Analysis& a, const EvidenceContext& ctx)
{
    std::vector<std::string> lines;
    if (!ctx.title.empty()) {
        lines.push_back(oneLine(ctx.title));
    }
    for (const auto& h : ctx.header) {
        lines.push_back(oneLine(h));
    }
    if (auto design = designLine(a); !design.empty()) {
        lines.push_back(oneLine(design));
    }
    for (const auto& c : a.comparisons) {
        if (c.primary && !c.result.levels.empty()) {
            // The levels (runs pooled per label, boots), then where the run-to-run variance came
            // from, each on its own line: a missing calibration is a warning, not a clipped tail.
            std::string rest = c.result.levels;
            for (std::string prefix = "across runs: "; !rest.empty(); prefix = "  ") {
                const auto cut = rest.find("; ");
                std::string part = rest.substr(0, cut);
                rest = cut == std::string::npos ? "" : rest.substr(cut + 2);
                if (part == kNoRunCalibration) {
                    lines.push_back("! " + part);
                    continue;
                }
                for (auto& line : wrap(prefix + part, 72, "  ")) {
                    lines.push_back(std::move(line));
                }
            }
            break;
        }
    }
    for (const auto& d : ctx.designLines) {
        lines.push_back(oneLine(d));
    }
    lines.push_back(oneLine(optionsLine(a)));
    for (auto& w : warningLines(a, ctx)) {
        lines.push_back(std::move(w));
    }
    return lines;
}

void writeCompactEvidence(const Analysis& a, const EvidenceContext& ctx, std::ostream& out)
{
    for (const auto& line : compactHeader(a, ctx)) {
        out << line << '\n';
    }
    const auto all = blocks(a, ctx);
    const std::string primary = a.comparisons.empty() ? "" : a.comparisons.front().metric;
    bool partialLevel = false;
    for (const auto& b : all) {
        out << '\n';
        if (all.size() > 1) {
            out << oneLine(b.candidate + " vs " + b.baseline + " (baseline):") << '\n';
        }
        for (const auto& line : blockLines(a, b, primary, partialLevel)) {
            out << line << '\n';
        }
    }
    if (all.empty()) {
        out << "\nnothing compared: one variant\n";
    }
    std::vector<std::string> notes;
    notes.emplace_back(
        "* primary metric. sd%: standard deviation of the repetition values. change%: candidate vs baseline. ~: "
        "inconclusive. --verbose: tests, designs, notes.");
    if (partialLevel) {
        notes.emplace_back("^ below the level asked for: the data allow no more (--verbose)");
    }
    std::vector<std::string> left;
    if (!ctx.derived.empty()) {
        left.push_back(derivedText(ctx));
    }
    std::string zeros;
    for (const auto& c : a.comparisons) {
        if (c.primary && c.candidate == a.comparisons.front().candidate && allZero(a, c.metric)) {
            zeros += (zeros.empty() ? "" : ", ") + c.metric;
        }
    }
    if (!zeros.empty()) {
        left.push_back("zero throughout: " + zeros);
    }
    left.insert(left.end(), ctx.notShown.begin(), ctx.notShown.end());
    if (!left.empty()) {
        std::string text = "not shown: ";
        for (std::size_t i = 0; i < left.size(); ++i) {
            text += (i == 0 ? "" : "; ") + left[i];
        }
        notes.push_back(text);
    }
    out << '\n';
    for (const auto& note : notes) {
        for (const auto& line : wrap(note, kWidth, "  ")) {
            out << line << '\n';
        }
    }
}

std::vector<DerivedMetric> derivedMetrics(const AnalysisInput& input)
{
    std::vector<DerivedMetric> out;
    const auto& ms = input.metrics;
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    auto factorOf = [&](std::size_t i, std::size_t j) -> double {
        // Every value of metric i is the same multiple of metric j's, and j varies: not a coincidence
        // of two constants.
        double factor = kNaN;
        double lo = std::numeric_limits<double>::infinity();
        double hi = -lo;
        std::size_t count = 0;
        if (i >= input.repetitions.size() || j >= input.repetitions.size()) {
            return kNaN;
        }
        for (std::size_t v = 0; v < input.repetitions[i].size() && v < input.repetitions[j].size(); ++v) {
            const auto& xs = input.repetitions[i][v];
            const auto& ys = input.repetitions[j][v];
            if (xs.size() != ys.size()) {
                return kNaN;
            }
            for (std::size_t k = 0; k < xs.size(); ++k) {
                if (!std::isfinite(xs[k]) || !std::isfinite(ys[k]) || xs[k] == 0 || ys[k] == 0) {
                    return kNaN;
                }
                const double r = xs[k] / ys[k];
                if (std::isnan(factor)) {
                    factor = r;
                } else if (std::fabs(r / factor - 1) > 1e-9) {
                    return kNaN;
                }
                lo = std::min(lo, ys[k]);
                hi = std::max(hi, ys[k]);
                ++count;
            }
        }
        return count >= 2 && hi > lo * (1 + 1e-9) ? factor : kNaN;
    };
    auto derived = [&](const std::string& name) {
        return std::any_of(out.begin(), out.end(), [&](const DerivedMetric& d) { return d.metric == name; });
    };
    for (std::size_t i = 0; i < ms.size(); ++i) {
        const auto alias = std::find_if(ms.begin(), ms.end(), [&](const MetricSpec& m) {
            return !ms[i].aliasOf.empty() && m.name == ms[i].aliasOf;
        });
        if (alias != ms.end()) {
            const auto j = static_cast<std::size_t>(alias - ms.begin());
            out.push_back({ms[i].name, alias->name, factorOf(i, j)});
            continue;
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (derived(ms[j].name)) {
                continue;
            }
            if (const double f = factorOf(i, j); std::isfinite(f)) {
                out.push_back({ms[i].name, ms[j].name, f});
                break;
            }
        }
    }
    return out;
}

}  // namespace nf::engine
