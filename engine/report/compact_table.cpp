#include "engine/report/compact_table.h"

#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "engine/report/evidence.h"
#include "engine/report/text_table.h"

namespace nf::engine::compact {

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

namespace {

const VariantStats* statsOf(const Analysis& a, const std::string& variant, const std::string& metric)
{
    const auto it = std::find_if(a.variants.begin(), a.variants.end(),
                                 [&](const VariantStats& v) { return v.variant == variant && v.metric == metric; });
    return it == a.variants.end() ? nullptr : &*it;
}

void replaceAll(std::string& name, const std::string& from, const std::string& to)
{
    for (auto at = name.find(from); at != std::string::npos; at = name.find(from, at + to.size())) {
        name.replace(at, from.size(), to);
    }
}

// "drops_per_sec" reads "drops/s"; with `aliases` also perf's own short names of its software
// events: "cpu_context_switches_per_packet" reads "cpu_cs/pkt".
std::string shortName(std::string name, bool aliases)
{
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"_per_packet", "/pkt"}, {"_per_sec", "/s"}, {"_per_op", "/op"}}) {
        replaceAll(name, from, to);
    }
    if (aliases) {
        for (const auto& [from, to] : {std::pair<std::string, std::string>{"context_switches", "cs"},
                                       {"context-switches", "cs"},
                                       {"cpu_migrations", "migrations"},
                                       {"cpu-migrations", "migrations"},
                                       {"page_faults", "faults"},
                                       {"page-faults", "faults"}}) {
            replaceAll(name, from, to);
        }
    }
    return name;
}

// At most `limit` characters, the middle left out: "baseline_kernel_vanilla_build" at 12 reads
// "basel..build".
std::string elide(const std::string& name, std::size_t limit)
{
    if (name.size() <= limit || limit < 4) {
        return name;
    }
    const std::size_t keep = limit - 2;
    return name.substr(0, (keep + 1) / 2) + ".." + name.substr(name.size() - keep / 2);
}

struct Layout {
    int names = 0;  // 0 as they are, 1 short, 2 short with perf's aliases
    bool tight = false;
    bool coarse = false;  // changes of 10% or more to whole percents
    std::size_t variantLimit = std::string::npos;
    std::size_t metricLimit = std::string::npos;
};

struct Row {
    std::string metric;
    bool primary = false;
    std::vector<std::string> cells;   // baseline mean, sd, candidate mean, sd, change, interval, verdict
    std::vector<std::string> coarse;  // the same with a change of 10% or more in whole percents
};

std::vector<std::string> tableLines(const std::vector<Row>& rows, const std::string& baseline,
                                    const std::string& candidate, const std::string& level, const Layout& layout)
{
    TextTable table({"  metric", ">" + baseline, ">sd%", ">" + candidate, ">sd%", ">change%", ">" + level, "verdict"});
    table.setGaps(layout.tight ? std::vector<std::size_t>{1, 1, 1, 1, 1, 1, 1}
                               : std::vector<std::size_t>{1, 1, 2, 1, 2, 1, 2});
    for (const auto& r : rows) {
        std::string name = layout.names == 0 ? r.metric : shortName(r.metric, layout.names == 2);
        std::vector<std::string> cells = {(r.primary ? "* " : "  ") + elide(name, layout.metricLimit)};
        const auto& values = layout.coarse ? r.coarse : r.cells;
        cells.insert(cells.end(), values.begin(), values.end());
        table.addRow(std::move(cells));
    }
    return table.lines();
}

}  // namespace

Tables layOut(const Analysis& a, const std::vector<Block>& blocks, const std::string& primary, bool hold)
{
    Tables out;
    std::vector<std::vector<Row>> rows;
    std::set<std::string> variants;
    std::size_t longestMetric = 0;
    for (const auto& b : blocks) {
        variants.insert(b.baseline);
        variants.insert(b.candidate);
        auto& block = rows.emplace_back();
        for (const auto* c : b.rows) {
            const auto* base = statsOf(a, b.baseline, c->metric);
            const auto* cand = statsOf(a, b.candidate, c->metric);
            const auto change = compactChange(a, *c, hold);
            const auto coarse = compactChange(a, *c, hold, true);
            out.partialLevel = out.partialLevel || change[1].find('^') != std::string::npos;
            out.holmLevel = out.holmLevel || change[1].ends_with("h");
            std::vector<std::string> means = {base != nullptr ? compactValue(base->summary.mean) : "-",
                                              base != nullptr ? compactSd(base->summary) : "-",
                                              cand != nullptr ? compactValue(cand->summary.mean) : "-",
                                              cand != nullptr ? compactSd(cand->summary) : "-"};
            Row row{c->metric, c->metric == primary, means, means};
            row.cells.insert(row.cells.end(), change.begin(), change.end());
            row.coarse.insert(row.coarse.end(), coarse.begin(), coarse.end());
            block.push_back(std::move(row));
            longestMetric = std::max(longestMetric, shortName(c->metric, true).size());
        }
    }
    const std::string level = fmt::format("{:g}% CI", (1 - a.options.compare.alpha) * 100);
    // Every block with one layout, so a variant has one short name throughout.
    auto render = [&](const Layout& layout, std::vector<std::pair<std::string, std::string>>& renamed) {
        renamed.clear();
        std::set<std::string> shortNames;
        for (const auto& v : variants) {
            const std::string s = elide(v, layout.variantLimit);
            if (!shortNames.insert(s).second) {
                return std::vector<std::vector<std::string>>{};  // two names alike once elided
            }
            if (s != v) {
                renamed.emplace_back(s, v);
            }
        }
        std::vector<std::vector<std::string>> lines;
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            lines.push_back(tableLines(rows[i], elide(blocks[i].baseline, layout.variantLimit),
                                       elide(blocks[i].candidate, layout.variantLimit), level, layout));
        }
        return lines;
    };
    auto fits = [](const std::vector<std::vector<std::string>>& tables) {
        return !tables.empty() && std::all_of(tables.begin(), tables.end(), [](const auto& lines) {
            return std::all_of(lines.begin(), lines.end(), [](const auto& l) { return l.size() <= kWidth; });
        });
    };
    std::vector<Layout> layouts = {{0}, {1}, {2}, {2, true}, {2, true, true}};
    for (std::size_t limit = 12; limit >= 6; --limit) {
        layouts.push_back({2, false, false, limit});
        layouts.push_back({2, true, false, limit});
        layouts.push_back({2, true, true, limit});
    }
    for (std::size_t limit = longestMetric; limit >= 8; --limit) {
        layouts.push_back({2, true, true, 6, limit});
    }
    for (const auto& layout : layouts) {
        out.blocks = render(layout, out.renamed);
        if (fits(out.blocks)) {
            return out;
        }
    }
    if (out.blocks.empty()) {  // every elision made two names alike: the short names as they are
        out.blocks = render({2, true}, out.renamed);
    }
    return out;  // the narrowest tried: wider only for intervals beyond any layout
}

}  // namespace nf::engine::compact
