// What the analysis reads from stored runs (engine/analysis/analysis.h): the metrics asked for,
// per variant its repetition values, its chunk values by alternation round (without preempted
// chunks) and its perf stat -r summaries; across runs and pooled under labels too.

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <tuple>
#include <utility>

#include "engine/analysis/analysis.h"

namespace nf::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Result<std::vector<MetricSpec>> chooseMetrics(const RunLayout& layout, const std::vector<std::string>& names)
{
    std::vector<MetricSpec> chosen;
    if (names.empty()) {
        // Unit conversions of another metric and per-CPU or device breakdowns are compared only when
        // named, or when the run's primary metric (its first) is one.
        for (const auto& m : layout.metrics) {
            if ((m.aliasOf.empty() && !isBreakdown(m)) || &m == &layout.metrics.front()) {
                chosen.push_back(m);
            }
        }
        return chosen;
    }
    std::vector<std::string> available;
    for (const auto& m : layout.metrics) {
        available.push_back(m.name);
    }
    for (const auto& name : names) {
        const auto it = std::find_if(layout.metrics.begin(), layout.metrics.end(),
                                     [&](const MetricSpec& m) { return m.name == name; });
        if (it == layout.metrics.end()) {
            return Error{"--metric " + name +
                         ": not measured in this run (metrics: " + fmt::format("{}", fmt::join(available, ", ")) + ")"};
        }
        chosen.push_back(*it);
    }
    return chosen;
}

}  // namespace

namespace {

// Every quantity's total per variant and repetition over the rows the chunk cut keeps, each summed
// in row order. Group variant * slots + slot holds the rows of that variant in that repetition slot.
struct RepetitionTotals {
    std::size_t slots = 0;
    std::size_t width = 0;
    std::vector<char> held;    // per group: it has a row
    std::vector<double> sums;  // per group, `width` totals

    bool has(std::size_t variant, std::size_t slot) const { return held[variant * slots + slot] != 0; }
    double at(std::size_t variant, std::size_t slot, std::size_t quantity) const
    {
        return sums[(variant * slots + slot) * width + quantity];
    }
};

RepetitionTotals repetitionTotals(const RunTable& table, std::size_t variants, const std::vector<bool>& leftOut)
{
    const RepetitionSlots slots(table);
    RepetitionTotals totals{slots.count(), table.quantities(), {}, {}};
    totals.held.assign(variants * totals.slots, 0);
    totals.sums.assign(variants * totals.slots * totals.width, 0.0);
    std::vector<std::span<const double>> columns;
    for (std::size_t q = 0; q < totals.width; ++q) {
        columns.push_back(table.column(q));
    }
    const auto vs = table.variants();
    const auto reps = table.repetitions();
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (leftOut[i]) {
            continue;
        }
        const std::size_t group = vs[i] * totals.slots + slots.slot(reps[i]);
        totals.held[group] = 1;
        double* sums = &totals.sums[group * totals.width];
        for (std::size_t q = 0; q < totals.width; ++q) {
            sums[q] += columns[q][i];
        }
    }
    return totals;
}

// Adds one run variant's chunks, and those the cut leaves out, to the input's counts (runs
// compared across: each brings its own).
void countCut(const ChunkCut& cut, std::size_t variant, AnalysisInput& in)
{
    if (variant >= cut.chunksOf.size()) {
        return;
    }
    in.chunks += cut.chunksOf[variant];
    in.preemptedChunks += cut.hitOf[variant];
    in.keptPreempted = in.keptPreempted || cut.keptAll;
}

// Per variant, packets received over packets the generator offered, from its repetitions' totals;
// left empty unless every variant has a generator count.
void receivedShares(const RunLayout& layout, const RepetitionTotals& totals, AnalysisInput& in)
{
    const int received = layout.quantityIndex(quantity::kPackets);
    const int offered = layout.quantityIndex(quantity::kOfferedPackets);
    if (received < 0 || offered < 0) {
        return;
    }
    std::vector<double> shares;
    for (std::size_t v = 0; v < in.variants.size(); ++v) {
        double got = 0;
        double out = 0;
        for (std::size_t slot = 0; slot < totals.slots; ++slot) {
            if (totals.has(v, slot)) {
                got += totals.at(v, slot, static_cast<std::size_t>(received));
                out += totals.at(v, slot, static_cast<std::size_t>(offered));
            }
        }
        if (!(out > 0)) {
            return;
        }
        shares.push_back(got / out);
    }
    in.receivedShare = std::move(shares);
}

// Alternation rounds (repetition, pair), numbered in order. Stored runs list samples in time
// order, so rounds usually arrive sorted: a row's round is then counted as the rows go by, and
// nothing is kept per row. Otherwise each row's round is found once and kept.
class Rounds {
public:
    explicit Rounds(const RunTable& table) : m_reps(table.repetitions()), m_pairs(table.pairs())
    {
        const auto ordered =
            forEachOrdered([](std::size_t /*row*/, std::size_t /*round*/, bool inOrder) { return inOrder; });
        if (ordered) {
            m_count = *ordered;
        } else {
            numberEachRow();
        }
    }

    std::size_t count() const { return m_count; }

    // f(row, round) for every row in a round, in row order.
    template <class F>
    void forEachRow(F f) const
    {
        if (m_ofRow.empty()) {
            (void)forEachOrdered([&](std::size_t row, std::size_t round, bool /*inOrder*/) {
                f(row, round);
                return true;
            });
            return;
        }
        for (std::size_t i = 0; i < m_pairs.size(); ++i) {
            if (m_pairs[i] >= 0) {
                f(i, std::size_t{m_ofRow[i]});
            }
        }
    }

private:
    // g(row, round, inOrder) while g returns true, numbering rounds as they come; inOrder is false
    // for a row whose round comes before the one of the row before it. The number of rounds when
    // every row was seen.
    template <class G>
    std::optional<std::size_t> forEachOrdered(G g) const
    {
        std::pair<int, int> last{};
        std::size_t count = 0;
        for (std::size_t i = 0; i < m_pairs.size(); ++i) {
            if (m_pairs[i] < 0) {
                continue;
            }
            const std::pair key{m_reps[i], m_pairs[i]};
            if (count == 0 || last < key) {
                ++count;
                last = key;
            }
            if (!g(i, count - 1, key == last)) {
                return std::nullopt;
            }
        }
        return count;
    }

    void numberEachRow()
    {
        std::vector<std::pair<int, int>> keys;
        for (std::size_t i = 0; i < m_pairs.size(); ++i) {
            if (m_pairs[i] >= 0) {
                keys.emplace_back(m_reps[i], m_pairs[i]);
            }
        }
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        m_ofRow.assign(m_pairs.size(), 0);
        for (std::size_t i = 0; i < m_pairs.size(); ++i) {
            if (m_pairs[i] >= 0) {
                const std::pair key{m_reps[i], m_pairs[i]};
                m_ofRow[i] = static_cast<std::uint32_t>(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin());
            }
        }
        m_count = keys.size();
    }

    std::span<const std::int32_t> m_reps;
    std::span<const std::int32_t> m_pairs;
    std::size_t m_count = 0;
    std::vector<std::uint32_t> m_ofRow;  // only when the rows are not in round order
};

// The placement of every pair and repetition value (RunData::layouts), aligned with them.
void addLayouts(const RunData& data, const Rounds& rounds, const RepetitionTotals& totals, AnalysisInput& in)
{
    const RunTable& table = data.samples;
    const std::size_t nv = in.variants.size();
    const RepetitionSlots slots(table);
    in.repetitionLayouts.assign(nv, {});
    in.pairLayouts.assign(nv, std::vector<int>(rounds.count(), -1));
    for (std::size_t v = 0; v < nv; ++v) {
        for (std::size_t slot = 0; slot < totals.slots; ++slot) {
            if (totals.has(v, slot)) {
                in.repetitionLayouts[v].push_back(data.layoutOf(static_cast<int>(v), slots.repetition(slot)));
            }
        }
    }
    const auto variants = table.variants();
    const auto reps = table.repetitions();
    rounds.forEachRow([&](std::size_t i, std::size_t round) {
        in.pairLayouts[variants[i]][round] = data.layoutOf(variants[i], reps[i]);
    });
}

// The setup of every chunk pair of a live run side by side: each phase of a repetition starts its
// variants anew on traded places (engine/run/live_chunks.cpp), so a variant's setup changes where
// its repetition or its place does, in the order of the rounds.
void addSetups(const RunData& data, const Rounds& rounds, AnalysisInput& in)
{
    const int place = data.layout.quantityIndex(quantity::kPlace);
    const RunTable& table = data.samples;
    if (place < 0 || static_cast<std::size_t>(place) >= table.quantities()) {
        return;
    }
    const std::size_t nv = in.variants.size();
    // (round, repetition, place) of each variant's rows, then numbered in round order.
    std::vector<std::vector<std::tuple<std::size_t, int, double>>> seen(nv);
    const auto variants = table.variants();
    const auto reps = table.repetitions();
    const auto places = table.column(static_cast<std::size_t>(place));
    rounds.forEachRow([&](std::size_t i, std::size_t round) {
        if (std::isfinite(places[i])) {
            seen[variants[i]].emplace_back(round, reps[i], places[i]);
        }
    });
    in.pairSetups.assign(nv, std::vector<int>(rounds.count(), -1));
    for (std::size_t v = 0; v < nv; ++v) {
        std::sort(seen[v].begin(), seen[v].end());
        int setup = -1;
        std::pair<int, double> last{-1, std::nan("")};
        for (const auto& [round, rep, at] : seen[v]) {
            if (setup < 0 || std::pair{rep, at} != last) {
                ++setup;
                last = {rep, at};
            }
            in.pairSetups[v][round] = setup;
        }
    }
}

// ---- Runs stored as summaries (perf stat -r N): n, mean and standard error instead of values ----

// summaries[m][v] for every variant whose run is summarised; `variantOf` maps v to the variant
// index inside runs[v].
template <class VariantOf>
void addSummaries(AnalysisInput& in, const std::vector<const RunData*>& runs, VariantOf variantOf)
{
    in.summarised.assign(runs.size(), false);
    in.summaries.assign(in.metrics.size(), std::vector<std::optional<SummaryStats>>(runs.size()));
    for (std::size_t v = 0; v < runs.size(); ++v) {
        in.summarised[v] = runs[v]->summarised();
        if (!in.summarised[v]) {
            continue;
        }
        for (std::size_t m = 0; m < in.metrics.size(); ++m) {
            const auto it = std::find_if(runs[v]->layout.metrics.begin(), runs[v]->layout.metrics.end(),
                                         [&](const MetricSpec& x) { return x.name == in.metrics[m].name; });
            if (it == runs[v]->layout.metrics.end()) {
                continue;
            }
            if (const auto p = runs[v]->summaryOf(variantOf(v), *it)) {
                in.summaries[m][v] = SummaryStats{p->n, p->mean, p->stddev};
            } else {
                in.summaries[m][v] = SummaryStats{};  // no summary of this metric: nothing to test
            }
        }
    }
}

}  // namespace

Result<AnalysisInput> analysisInput(const RunData& data, bool interleaved, const std::vector<std::string>& names)
{
    AnalysisInput in;
    in.variants = data.variantNames;
    in.metrics = NF_TRY(chooseMetrics(data.layout, names));
    const RunTable& table = data.samples;
    const std::size_t nv = data.variantNames.size();
    if (table.variantCount() > nv || table.quantities() != data.layout.quantities.size()) {
        return Error{
            fmt::format("a table of {} quantities and variants up to {} in a run of {} quantities and {} variants",
                        table.quantities(), table.variantCount(), data.layout.quantities.size(), nv)};
    }
    const Rounds rounds(table);
    in.alternating = rounds.count() > 0;
    auto cut = chunkCut(data);
    const RepetitionTotals totals = repetitionTotals(table, nv, cut.leftOut);
    receivedShares(data.layout, totals, in);
    in.chunks = cut.chunks;
    in.preemptedChunks = cut.hit;
    in.keptPreempted = cut.keptAll;
    const auto& preempted = cut.leftOut;
    in.repetitions.assign(in.metrics.size(), std::vector<std::vector<double>>(nv));
    in.pairs.assign(in.metrics.size(), std::vector<std::vector<double>>(nv));
    const auto variants = table.variants();
    for (std::size_t m = 0; m < in.metrics.size(); ++m) {
        const auto& metric = in.metrics[m];
        const auto columns = metricColumns(metric, data.layout.quantities);
        const bool stored = columns && std::max(columns->numerator, columns->denominator) < table.quantities();
        for (std::size_t v = 0; v < nv; ++v) {
            for (std::size_t slot = 0; slot < totals.slots; ++slot) {
                if (totals.has(v, slot)) {
                    in.repetitions[m][v].push_back(stored ? metricRatio(metric, totals.at(v, slot, columns->numerator),
                                                                        totals.at(v, slot, columns->denominator))
                                                          : kNaN);
                }
            }
            if (in.alternating) {
                in.pairs[m][v].assign(rounds.count(), kNaN);
            }
        }
        if (!in.alternating || !stored) {
            continue;
        }
        const auto num = table.column(columns->numerator);
        const auto den = table.column(columns->denominator);
        auto& values = in.pairs[m];
        rounds.forEachRow([&](std::size_t i, std::size_t round) {
            if (!preempted[i]) {
                values[variants[i]][round] = metricRatio(metric, num[i], den[i]);
            }
        });
    }
    if (!data.layouts.empty()) {
        addLayouts(data, rounds, totals, in);
    }
    if (in.alternating) {
        addSetups(data, rounds, in);
    }
    in.pairedRepetitions = interleaved && !in.alternating;
    in.pairUnit = in.alternating ? "chunk pair" : "repetition pair";
    if (data.summarised()) {
        addSummaries(in, std::vector<const RunData*>(nv, &data), [](std::size_t v) { return static_cast<int>(v); });
    }
    return in;
}

Result<AnalysisInput> analysisInputAcross(const std::vector<RunVariant>& selection,
                                          const std::vector<std::string>& names)
{
    if (selection.empty()) {
        return Error{"nothing to compare"};
    }
    const auto metrics = NF_TRY(chooseMetrics(selection.front().data->layout, names));
    AnalysisInput in;
    for (const auto& metric : metrics) {
        const bool everywhere = std::all_of(selection.begin(), selection.end(), [&](const RunVariant& rv) {
            const auto& ms = rv.data->layout.metrics;
            return std::any_of(ms.begin(), ms.end(), [&](const MetricSpec& m) { return m.name == metric.name; });
        });
        if (everywhere) {
            in.metrics.push_back(metric);
        } else if (!names.empty()) {
            return Error{"--metric " + metric.name + ": not measured in every run compared"};
        }
    }
    if (in.metrics.empty()) {
        return Error{"the runs compared have no metric in common"};
    }
    in.repetitions.assign(in.metrics.size(), {});
    in.pairs.assign(in.metrics.size(), {});
    for (const auto& rv : selection) {
        in.variants.push_back(rv.name);
        const auto cut = chunkCut(*rv.data);
        countCut(cut, static_cast<std::size_t>(rv.variant), in);
        for (std::size_t m = 0; m < in.metrics.size(); ++m) {
            const auto& ms = rv.data->layout.metrics;
            const auto it =
                std::find_if(ms.begin(), ms.end(), [&](const MetricSpec& x) { return x.name == in.metrics[m].name; });
            in.repetitions[m].push_back(repetitionValues(*rv.data, cut, rv.variant, *it));
            in.pairs[m].emplace_back();
        }
    }
    std::vector<const RunData*> runs;
    runs.reserve(selection.size());
    for (const auto& rv : selection) {
        runs.push_back(rv.data);
    }
    if (std::any_of(runs.begin(), runs.end(), [](const RunData* d) { return d->summarised(); })) {
        addSummaries(in, runs, [&](std::size_t v) { return selection[v].variant; });
    }
    return in;
}

Result<AnalysisInput> analysisInputPooled(const std::vector<std::string>& names,
                                          const std::vector<std::vector<RunVariant>>& groups,
                                          const std::vector<std::vector<std::string>>& boots,
                                          const std::vector<std::string>& metrics,
                                          const std::vector<std::vector<std::string>>& pairs)
{
    std::vector<RunVariant> flat;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (groups[g].empty()) {
            return Error{names[g] + ": no runs"};
        }
        for (const auto& rv : groups[g]) {
            if (rv.data->summarised()) {
                return Error{rv.name +
                             " holds perf stat -r summaries: runs of summaries are not pooled (compare "
                             "them by run id)"};
            }
            flat.push_back(rv);
        }
    }
    const auto across = NF_TRY(analysisInputAcross(flat, metrics));
    AnalysisInput in;
    in.variants = names;
    in.chunks = across.chunks;
    in.preemptedChunks = across.preemptedChunks;
    in.keptPreempted = across.keptPreempted;
    in.metrics = across.metrics;
    in.repetitions.assign(in.metrics.size(), std::vector<std::vector<double>>(groups.size()));
    in.pairs.assign(in.metrics.size(), std::vector<std::vector<double>>(groups.size()));
    in.runs.assign(in.metrics.size(), std::vector<std::vector<RunValues>>(groups.size()));
    in.runFloors.assign(in.metrics.size(), std::nullopt);
    in.layoutFloors.assign(in.metrics.size(), std::nullopt);
    for (std::size_t m = 0; m < in.metrics.size(); ++m) {
        std::size_t i = 0;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            for (std::size_t r = 0; r < groups[g].size(); ++r) {
                const auto& values = across.repetitions[m][i++];
                in.repetitions[m][g].insert(in.repetitions[m][g].end(), values.begin(), values.end());
                const bool known = g < boots.size() && r < boots[g].size();
                const bool inLab = g < pairs.size() && r < pairs[g].size();
                in.runs[m][g].push_back(
                    {known ? boots[g][r] : std::string(), values, inLab ? pairs[g][r] : std::string()});
            }
        }
    }
    in.unit = "run";
    return in;
}

Result<void> putPrimaryFirst(AnalysisInput& in, const std::string& metric)
{
    const auto it = std::ranges::find_if(in.metrics, [&](const MetricSpec& m) { return m.name == metric; });
    if (it == in.metrics.end()) {
        std::vector<std::string> names;
        for (const auto& m : in.metrics) {
            names.push_back(m.name);
        }
        return Error{fmt::format("--primary {}: not among the metrics compared ({}); name it with --metric", metric,
                                 fmt::join(names, ", "))};
    }
    const auto at = static_cast<std::ptrdiff_t>(it - in.metrics.begin());
    const auto toFront = [at](auto& perMetric) {
        if (static_cast<std::ptrdiff_t>(perMetric.size()) > at) {
            std::rotate(perMetric.begin(), perMetric.begin() + at, perMetric.begin() + at + 1);
        }
    };
    toFront(in.metrics);
    toFront(in.repetitions);
    toFront(in.pairs);
    toFront(in.summaries);
    toFront(in.runs);
    toFront(in.runFloors);
    toFront(in.layoutFloors);
    return {};
}

Result<void> keepVariants(AnalysisInput& in, const std::vector<std::string>& names)
{
    std::vector<std::size_t> kept;
    for (const auto& name : names) {
        const auto it = std::ranges::find(in.variants, name);
        if (it == in.variants.end()) {
            return Error{
                fmt::format("no variant '{}' in the run (its variants: {})", name, fmt::join(in.variants, ", "))};
        }
        kept.push_back(static_cast<std::size_t>(it - in.variants.begin()));
    }
    const auto select = [&](auto& perVariant) {
        if (perVariant.empty()) {
            return;
        }
        std::remove_reference_t<decltype(perVariant)> chosen;
        chosen.reserve(kept.size());
        for (const auto v : kept) {
            chosen.push_back(perVariant[v]);
        }
        perVariant = std::move(chosen);
    };
    select(in.variants);
    select(in.receivedShare);
    select(in.summarised);
    select(in.pairLayouts);
    select(in.pairSetups);
    select(in.repetitionLayouts);
    for (auto* perMetric : {&in.repetitions, &in.pairs}) {
        for (auto& m : *perMetric) {
            select(m);
        }
    }
    for (auto& m : in.summaries) {
        select(m);
    }
    for (auto& m : in.runs) {
        select(m);
    }
    return {};
}

}  // namespace nf::engine
