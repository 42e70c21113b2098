// The compact text report: a header of one-line facts and one line per metric, like the kernel
// test robot's "%stddev %change %stddev" lines and benchstat's tables. Everything else is in the
// verbose text (evidence_text.cpp) and the JSON. The tables are laid out in compact_table.cpp,
// their cells formatted in compact_cells.cpp.

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "engine/analysis/across_runs.h"
#include "engine/report/compact_table.h"
#include "engine/report/evidence.h"
#include "engine/report/evidence_context.h"

namespace nf::engine {

namespace {

using compact::kWidth;

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

// Left out of the table (named once below it) unless asked for with --metric.
bool leftOut(const Analysis& a, const EvidenceContext& ctx, const std::string& metric)
{
    return !ctx.metricsAsked && (isDerived(ctx, metric) || allZero(a, metric));
}

std::string designLine(const Analysis& a)
{
    const auto it =
        std::find_if(a.comparisons.begin(), a.comparisons.end(), [](const MetricComparison& c) { return c.primary; });
    if (it == a.comparisons.end()) {
        return "";
    }
    const auto& r = it->result;
    const std::string count = r.design != Design::Independent || r.n == r.nCandidate
                                  ? fmt::format("{} {}{}", r.n, r.unit, r.n == 1 ? "" : "s")
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
    return fmt::format(
        "alpha {:g}{}, equivalence margin +-{:g}%{}", o.compare.alpha,
        o.holm && metrics.size() > 1 ? fmt::format(" ({} others Holm-adjusted)", metrics.size() - 1) : "",
        o.compare.marginPct, o.dropOutliers ? ", outliers dropped" : "");
}

constexpr const char* kVirtualMachine = "measured in a virtual machine";

// The warnings of the compact header, each whole (wrapped, never cut): "not measured" lines folded
// into one, and the virtual machine left to the "(VM)" of the machine line when the header has
// one. (A warning every run gives is said once already: contextForRuns.)
std::vector<std::string> warningLines(const Analysis& a, const EvidenceContext& ctx,
                                      const std::vector<std::string>& header)
{
    std::vector<std::string> all = a.warnings;
    all.insert(all.end(), ctx.warnings.begin(), ctx.warnings.end());
    const bool vmInHeader = std::any_of(header.begin(), header.end(),
                                        [](const std::string& h) { return h.find("(VM)") != std::string::npos; });
    std::vector<std::string> lines;
    std::string notMeasured;
    auto add = [&](const std::string& w) {
        if (std::find(lines.begin(), lines.end(), w) == lines.end() &&
            !(vmInHeader && w.starts_with(kVirtualMachine))) {
            lines.push_back(w);
        }
    };
    for (const auto& w : all) {
        const auto at = w.find("not measured: ");
        if (at == std::string::npos) {
            add(w);
        } else if (const std::string what = w.substr(at + 14); notMeasured.find(what) == std::string::npos) {
            notMeasured += (notMeasured.empty() ? "" : "; ") + what;
        }
    }
    if (!notMeasured.empty()) {
        lines.push_back("not measured: " + notMeasured);
    }
    std::vector<std::string> out;
    for (const auto& line : lines) {
        for (auto& part : wrap("! " + line, kWidth, "  ")) {
            out.push_back(std::move(part));
        }
    }
    return out;
}

// The layout or setup spread of the primary metric's comparisons (layoutSpreadText,
// setupSpreadText), where code layout or the setups were a factor: each candidate's, named when
// there are several.
void addLayoutSpread(const Analysis& a, std::vector<std::string>& lines)
{
    std::vector<const MetricComparison*> spread;
    for (const auto& c : a.comparisons) {
        if (c.primary && c.metric == a.primaryMetric && (c.result.layoutSpreadPct || c.result.setupSpreadPct)) {
            spread.push_back(&c);
        }
    }
    for (const auto* c : spread) {
        const std::string who = spread.size() > 1 ? c->candidate + " vs " + c->baseline + ": " : "";
        const auto& r = c->result;
        for (auto& line : wrap(who + (r.layoutSpreadPct ? layoutSpreadText(r) : setupSpreadText(r)), kWidth, "  ")) {
            lines.push_back(std::move(line));
        }
    }
}

std::vector<compact::Block> blocks(const Analysis& a, const EvidenceContext& ctx)
{
    std::vector<compact::Block> out;
    for (const auto& c : a.comparisons) {
        if (!c.primary || leftOut(a, ctx, c.metric)) {
            continue;
        }
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& b) { return b.candidate == c.candidate; });
        if (it == out.end()) {
            out.push_back({c.candidate, c.baseline, {}});
            it = out.end() - 1;
        }
        it->rows.push_back(&c);
    }
    return out;
}

// What the table leaves out, for the line below it.
std::vector<std::string> notShown(const Analysis& a, const EvidenceContext& ctx)
{
    std::vector<std::string> left;
    if (!ctx.metricsAsked) {
        std::string derived;
        for (const auto& d : ctx.derived) {
            derived += (derived.empty() ? "" : ", ") + d.metric +
                       (std::isfinite(d.factor) ? fmt::format(" ({:.6g} x {})", d.factor, d.of)
                                                : " (" + d.of + " in other units)");
        }
        if (!derived.empty()) {
            left.push_back(derived);
        }
        // Conversions not compared at all, grouped by the metric they convert.
        std::vector<std::pair<std::string, std::string>> groups;  // of, "a, b"
        for (const auto& d : ctx.conversions) {
            auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == d.of; });
            if (it == groups.end()) {
                groups.emplace_back(d.of, d.metric);
            } else {
                it->second += ", " + d.metric;
            }
        }
        for (const auto& [of, names] : groups) {
            left.push_back(names + " (" + of + " in other units)");
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
    }
    left.insert(left.end(), ctx.notShown.begin(), ctx.notShown.end());
    return left;
}

}  // namespace

std::vector<std::string> compactHeader(const Analysis& a, const EvidenceContext& ctx)
{
    std::vector<std::string> lines;
    auto add = [&](const std::string& text) {  // whole: the facts of the header are never cut
        for (auto& line : headerLines(text, kWidth, "  ")) {
            lines.push_back(std::move(line));
        }
    };
    if (!ctx.title.empty()) {
        add(ctx.title);
    }
    for (const auto& h : ctx.briefHeader.empty() ? ctx.header : ctx.briefHeader) {
        add(h);
    }
    if (auto design = designLine(a); !design.empty()) {
        add(design);
    }
    for (const auto& c : a.comparisons) {
        if (c.primary && !c.result.levels.empty()) {
            // The levels (runs pooled per label, boots), then where the run-to-run variance came
            // from, each on its own line: a missing calibration is a warning, not a clipped tail.
            std::string rest = c.result.levels;
            const auto design = c.result.design;
            for (std::string prefix = design == Design::Layouts  ? "code layout: "
                                      : design == Design::Setups ? "setups: "
                                                                 : "across runs: ";
                 !rest.empty(); prefix = "  ") {
                const auto cut = rest.find("; ");
                std::string part = rest.substr(0, cut);
                rest = cut == std::string::npos ? "" : rest.substr(cut + 2);
                if (part == kNoRunCalibration) {
                    lines.push_back("! " + part);
                    continue;
                }
                for (auto& line : wrap(prefix + part, kWidth, "  ")) {
                    lines.push_back(std::move(line));
                }
            }
            break;
        }
    }
    addLayoutSpread(a, lines);
    for (const auto& v : validityLines(a)) {
        for (auto& line : wrap("! " + v, kWidth, "  ")) {
            lines.push_back(std::move(line));
        }
    }
    for (const auto& d : ctx.designLines) {
        add(d);
    }
    add(optionsLine(a));
    for (auto& w : warningLines(a, ctx, lines)) {
        lines.push_back(std::move(w));
    }
    return lines;
}

void writeCompactEvidence(const Analysis& a, const EvidenceContext& ctx, std::ostream& out)
{
    const auto all = blocks(a, ctx);
    const std::string primary = a.comparisons.empty() ? "" : a.comparisons.front().metric;
    const auto tables = compact::layOut(a, all, primary, ctx.logScaleIntervals);
    for (const auto& line : compactHeader(a, ctx)) {
        out << line << '\n';
    }
    for (std::size_t i = 0; i < all.size(); ++i) {
        out << '\n';
        if (all.size() > 1) {
            for (const auto& line : wrap(all[i].candidate + " vs " + all[i].baseline + " (baseline):", kWidth, "  ")) {
                out << line << '\n';
            }
        }
        for (const auto& line : tables.blocks[i]) {
            out << line << '\n';
        }
    }
    // The legend of the names the table cut short, each in full once.
    for (const auto* renamed : {&tables.renamed, &tables.renamedMetrics}) {
        for (const auto& [shortName, name] : *renamed) {
            for (const auto& line : wrap(shortName + " = " + name, kWidth, "  ")) {
                out << line << '\n';
            }
        }
    }
    if (all.empty()) {
        out << "\nnothing compared: one variant\n";
    }
    std::vector<std::string> notes = {"* primary. sd%: stddev in % of mean. ~: inconclusive. --verbose: more"};
    if (tables.partialLevel) {
        notes.emplace_back("^ below the level asked for: the data allow no more (--verbose)");
    }
    if (tables.holmLevel) {
        notes.push_back(fmt::format("h: wider than {:g}%, the level of its Holm-adjusted p (--verbose)",
                                    (1 - a.options.compare.alpha) * 100));
    }
    if (const auto left = notShown(a, ctx); !left.empty()) {
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

}  // namespace nf::engine
