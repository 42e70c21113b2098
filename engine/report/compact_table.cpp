#include "engine/report/compact_table.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "engine/report/evidence.h"
#include "engine/report/text_table.h"

namespace nf::engine::compact {

namespace {

// Where each code point of `name` starts, and its size at the end.
std::vector<std::size_t> codePointStarts(const std::string& name)
{
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if ((static_cast<unsigned char>(name[i]) & 0xC0) != 0x80) {
            starts.push_back(i);
        }
    }
    starts.push_back(name.size());
    return starts;
}

// `name` cut to its first `head` and last `tail` code points around "..".
struct Cut {
    std::string head;
    std::string tail;
    std::size_t kept = 0;  // code points
    bool matches(const std::string& name) const
    {
        return name.starts_with(head) && name.ends_with(tail) && columns(name) >= kept;
    }
};

// The first cut of `name` (the middle first, then ever more of its start or its end, last only
// its end or its start) that no other name of `names` matches; none if every cut does.
std::optional<Cut> distinctCut(const std::string& name, const std::vector<std::string>& names, std::size_t keep)
{
    const auto starts = codePointStarts(name);
    const std::size_t n = starts.size() - 1;
    const std::size_t middle = (keep + 1) / 2;
    std::vector<std::size_t> heads;  // the middle first, then ever more of the start or the end
    for (std::size_t step = 0; step < 2 * keep; ++step) {
        const std::size_t head = step % 2 == 0 ? middle + step / 2 : middle - (step + 1) / 2;
        if (head >= 1 && head < keep) {
            heads.push_back(head);
        }
    }
    heads.push_back(0);  // only the end: "..fore"
    heads.push_back(keep);
    for (const std::size_t head : heads) {
        const Cut cut{name.substr(0, starts[head]), name.substr(starts[n - (keep - head)]), keep};
        if (std::none_of(names.begin(), names.end(),
                         [&](const std::string& other) { return other != name && cut.matches(other); })) {
            return cut;
        }
    }
    return std::nullopt;
}

}  // namespace

std::string oneLine(const std::string& text)
{
    if (columns(text) <= kWidth) {
        return text;
    }
    const std::size_t room = codePointStarts(text)[kWidth - 4];  // the bytes of kWidth - 4 code points
    std::size_t cut = text.rfind(' ', room);
    if (cut == std::string::npos || cut < room / 2) {
        cut = room;
    }
    return text.substr(0, cut) + " ...";
}

std::vector<std::string> abbreviate(const std::vector<std::string>& names, std::size_t limit)
{
    std::vector<std::string> out;
    out.reserve(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto& name = names[i];
        if (columns(name) <= limit || limit < 4) {
            out.push_back(name);
        } else if (const auto cut = distinctCut(name, names, limit - 2)) {
            out.push_back(cut->head + ".." + cut->tail);
        } else {
            const std::string number = "#" + std::to_string(i + 1);
            const auto starts = codePointStarts(name);
            const std::size_t head = limit > number.size() ? limit - number.size() : 1;
            out.push_back(name.substr(0, starts[std::min(head, starts.size() - 1)]) + number);
        }
    }
    return out;
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

// A name of the table and the name it is shown by.
using Shown = std::map<std::string, std::string>;

// Each of `names` (as shown) mapped to its form within `limit` (abbreviate); `legend` gets "short =
// full" for each one cut, `full[i]` being the name `names[i]` stands for.
Shown shortened(const std::vector<std::string>& names, const std::vector<std::string>& full, std::size_t limit,
                std::vector<std::pair<std::string, std::string>>& legend)
{
    legend.clear();
    const auto cut = abbreviate(names, limit);
    Shown out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        out[names[i]] = cut[i];
        if (cut[i] != names[i]) {
            legend.emplace_back(cut[i], full[i]);
        }
    }
    return out;
}

std::string displayName(const Row& r, const Layout& layout)
{
    return layout.names == 0 ? r.metric : shortName(r.metric, layout.names == 2);
}

std::vector<std::string> tableLines(const std::vector<Row>& rows, const std::string& baseline,
                                    const std::string& candidate, const std::string& level, const Layout& layout,
                                    const Shown& metrics)
{
    TextTable table({"  metric", ">" + baseline, ">sd%", ">" + candidate, ">sd%", ">change%", ">" + level, "verdict"});
    table.setGaps(layout.tight ? std::vector<std::size_t>{1, 1, 1, 1, 1, 1, 1}
                               : std::vector<std::size_t>{1, 1, 2, 1, 2, 1, 2});
    for (const auto& r : rows) {
        std::vector<std::string> cells = {(r.primary ? "* " : "  ") + metrics.at(displayName(r, layout))};
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
            longestMetric = std::max(longestMetric, columns(shortName(c->metric, true)));
        }
    }
    const std::string level = fmt::format("{:g}% CI", (1 - a.options.compare.alpha) * 100);
    // Every block with one layout, so a variant and a metric have one short name throughout.
    auto render = [&](const Layout& layout, Tables& into) {
        const std::vector<std::string> names(variants.begin(), variants.end());
        const Shown variantShown = shortened(names, names, layout.variantLimit, into.renamed);
        std::vector<std::string> shown;  // the metrics' names as the layout shows them, once each
        std::vector<std::string> full;
        for (const auto& block : rows) {
            for (const auto& r : block) {
                if (std::find(shown.begin(), shown.end(), displayName(r, layout)) == shown.end()) {
                    shown.push_back(displayName(r, layout));
                    full.push_back(r.metric);
                }
            }
        }
        const Shown metricShown = shortened(shown, full, layout.metricLimit, into.renamedMetrics);
        into.blocks.clear();
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            into.blocks.push_back(tableLines(rows[i], variantShown.at(blocks[i].baseline),
                                             variantShown.at(blocks[i].candidate), level, layout, metricShown));
        }
    };
    auto fits = [](const std::vector<std::vector<std::string>>& tables) {
        return std::all_of(tables.begin(), tables.end(), [](const auto& lines) {
            return std::all_of(lines.begin(), lines.end(), [](const auto& l) { return columns(l) <= kWidth; });
        });
    };
    std::vector<Layout> layouts = {{0}, {1}, {2}, {2, true}, {2, true, true}};
    for (std::size_t limit = 12; limit >= 6; --limit) {
        layouts.push_back({2, false, false, limit});
        layouts.push_back({2, true, false, limit});
        layouts.push_back({2, true, true, limit});
    }
    for (std::size_t metricLimit = longestMetric; metricLimit >= 8; --metricLimit) {
        for (std::size_t limit = 12; limit >= 6; --limit) {
            layouts.push_back({2, true, true, limit, metricLimit});
        }
    }
    for (const auto& layout : layouts) {
        render(layout, out);
        if (fits(out.blocks)) {
            return out;
        }
    }
    return out;  // the narrowest tried: wider only for intervals beyond any layout
}

}  // namespace nf::engine::compact
