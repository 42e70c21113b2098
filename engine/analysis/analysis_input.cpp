// What the analysis reads from stored runs (engine/analysis/analysis.h): the metrics asked for,
// per variant its repetition values, its chunk values by alternation round (without preempted
// chunks) and its perf stat -r summaries; across runs and pooled under labels too.

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "engine/analysis/analysis.h"

namespace nf::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Result<std::vector<MetricSpec>> chooseMetrics(const RunLayout& layout, const std::vector<std::string>& names)
{
    std::vector<MetricSpec> chosen;
    if (names.empty()) {
        // Unit conversions of another metric and per-CPU or device breakdowns are compared only when
        // named.
        for (const auto& m : layout.metrics) {
            if (m.aliasOf.empty() && !isBreakdown(m)) {
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

// Which chunks to leave out of the pairs: those the measuring thread did not run through. Either
// it was switched out (its context-switches count is above zero) or the whole CPU stalled (the
// chunk took more than 1.5 times its variant's median chunk: a hypervisor that deschedules the
// vCPU leaves no trace in the guest's counters). Chunks are calibrated to one length per variant,
// so the cut is the same relative to every variant's own speed. When any variant would lose more
// than 90% of its chunks (a variant that blocks by design, a machine too busy to measure on),
// every chunk is kept and the report says so.
ChunkCut preemptedChunks(const std::vector<Sample>& samples, int q, std::size_t nv)
{
    ChunkCut out{std::vector<bool>(samples.size(), false), 0, 0, false};
    std::vector<std::vector<double>> durations(nv);
    for (const auto& s : samples) {
        if (s.pair >= 0) {
            durations.at(static_cast<std::size_t>(s.variant)).push_back(s.duration);
        }
    }
    std::vector<double> limit(nv, 0);
    for (std::size_t v = 0; v < nv; ++v) {
        limit[v] = durations[v].empty() ? 0 : 1.5 * median(durations[v]);
    }
    std::vector<std::size_t> chunks(nv, 0);
    std::vector<std::size_t> hit(nv, 0);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto& s = samples[i];
        if (s.pair < 0) {
            continue;
        }
        const auto v = static_cast<std::size_t>(s.variant);
        ++chunks.at(v);
        const auto col = static_cast<std::size_t>(q);
        const bool switched = q >= 0 && col < s.values.size() && s.values[col] > 0;
        if (switched || s.duration > limit[v]) {
            out.leftOut[i] = true;
            ++hit.at(v);
        }
    }
    for (std::size_t v = 0; v < nv; ++v) {
        out.chunks += chunks[v];
        out.hit += hit[v];
        if (10 * hit[v] > 9 * chunks[v]) {
            out.keptAll = true;
        }
    }
    if (out.keptAll) {
        std::fill(out.leftOut.begin(), out.leftOut.end(), false);
    }
    return out;
}

namespace {

// Per variant, packets received over packets the generator offered, from its repetitions' totals;
// left empty unless every variant has a generator count.
void receivedShares(const RunLayout& layout, const std::vector<std::map<int, std::vector<double>>>& repTotals,
                    AnalysisInput& in)
{
    const int received = layout.quantityIndex(quantity::kPackets);
    const int offered = layout.quantityIndex(quantity::kGenPackets);
    if (received < 0 || offered < 0) {
        return;
    }
    std::vector<double> shares;
    for (const auto& reps : repTotals) {
        double got = 0;
        double out = 0;
        for (const auto& [rep, totals] : reps) {
            got += totals[static_cast<std::size_t>(received)];
            out += totals[static_cast<std::size_t>(offered)];
        }
        if (!(out > 0)) {
            return;
        }
        shares.push_back(got / out);
    }
    in.receivedShare = std::move(shares);
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
    auto metrics = chooseMetrics(data.layout, names);
    if (!metrics) {
        return metrics.error();
    }
    AnalysisInput in;
    in.variants = data.variantNames;
    in.metrics = *metrics;
    const std::size_t nv = data.variantNames.size();
    const std::size_t width = data.layout.quantities.size();
    // Totals per (variant, repetition) in one pass over the samples.
    std::vector<std::map<int, std::vector<double>>> repTotals(nv);
    for (const auto& s : data.samples) {
        auto& totals = repTotals.at(static_cast<std::size_t>(s.variant))[s.repetition];
        totals.resize(width, 0.0);
        for (std::size_t q = 0; q < width && q < s.values.size(); ++q) {
            totals[q] += s.values[q];
        }
    }
    receivedShares(data.layout, repTotals, in);
    // Alternation rounds (repetition, pair), numbered in order; each sample's round found once.
    std::vector<std::pair<int, int>> rounds;
    for (const auto& s : data.samples) {
        if (s.pair >= 0) {
            rounds.emplace_back(s.repetition, s.pair);
        }
    }
    // Stored runs list samples in time order, so rounds usually arrive sorted: no sort needed then.
    const bool ordered = std::is_sorted(rounds.begin(), rounds.end());
    if (!ordered) {
        std::sort(rounds.begin(), rounds.end());
    }
    rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
    std::vector<std::size_t> roundOf(data.samples.size(), 0);
    std::size_t next = 0;
    for (std::size_t i = 0; i < data.samples.size(); ++i) {
        const auto& s = data.samples[i];
        if (s.pair < 0) {
            continue;
        }
        const std::pair key{s.repetition, s.pair};
        if (ordered) {
            while (rounds[next] != key) {
                ++next;
            }
            roundOf[i] = next;
        } else {
            roundOf[i] = static_cast<std::size_t>(std::lower_bound(rounds.begin(), rounds.end(), key) - rounds.begin());
        }
    }
    in.alternating = !rounds.empty();
    auto cut = in.alternating ? preemptedChunks(data.samples, data.layout.quantityIndex("context-switches"), nv)
                              : ChunkCut{std::vector<bool>(data.samples.size(), false), 0, 0, false};
    in.chunks = cut.chunks;
    in.preemptedChunks = cut.hit;
    in.keptPreempted = cut.keptAll;
    const auto& preempted = cut.leftOut;
    in.repetitions.assign(in.metrics.size(), std::vector<std::vector<double>>(nv));
    in.pairs.assign(in.metrics.size(), std::vector<std::vector<double>>(nv));
    for (std::size_t m = 0; m < in.metrics.size(); ++m) {
        const auto& metric = in.metrics[m];
        const auto num = static_cast<std::size_t>(data.layout.quantityIndex(metric.numerator));
        const auto den = static_cast<std::size_t>(data.layout.quantityIndex(metric.denominator));
        for (std::size_t v = 0; v < nv; ++v) {
            for (const auto& [rep, totals] : repTotals[v]) {
                in.repetitions[m][v].push_back(metricRatio(metric, totals[num], totals[den]));
            }
            if (in.alternating) {
                in.pairs[m][v].assign(rounds.size(), kNaN);
            }
        }
        if (!in.alternating) {
            continue;
        }
        for (std::size_t i = 0; i < data.samples.size(); ++i) {
            const auto& s = data.samples[i];
            if (s.pair >= 0 && !preempted[i]) {
                in.pairs[m][static_cast<std::size_t>(s.variant)][roundOf[i]] =
                    metricRatio(metric, s.values[num], s.values[den]);
            }
        }
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
    auto metrics = chooseMetrics(selection.front().data->layout, names);
    if (!metrics) {
        return metrics.error();
    }
    AnalysisInput in;
    for (const auto& metric : *metrics) {
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
        for (std::size_t m = 0; m < in.metrics.size(); ++m) {
            const auto& ms = rv.data->layout.metrics;
            const auto it =
                std::find_if(ms.begin(), ms.end(), [&](const MetricSpec& x) { return x.name == in.metrics[m].name; });
            in.repetitions[m].push_back(rv.data->repetitionValues(rv.variant, *it));
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
                                          const std::vector<std::string>& metrics)
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
    auto across = analysisInputAcross(flat, metrics);
    if (!across) {
        return across.error();
    }
    AnalysisInput in;
    in.variants = names;
    in.metrics = across->metrics;
    in.repetitions.assign(in.metrics.size(), std::vector<std::vector<double>>(groups.size()));
    in.pairs.assign(in.metrics.size(), std::vector<std::vector<double>>(groups.size()));
    in.runs.assign(in.metrics.size(), std::vector<std::vector<RunValues>>(groups.size()));
    in.runFloors.assign(in.metrics.size(), std::nullopt);
    for (std::size_t m = 0; m < in.metrics.size(); ++m) {
        std::size_t i = 0;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            for (std::size_t r = 0; r < groups[g].size(); ++r) {
                const auto& values = across->repetitions[m][i++];
                in.repetitions[m][g].insert(in.repetitions[m][g].end(), values.begin(), values.end());
                const bool known = g < boots.size() && r < boots[g].size();
                in.runs[m][g].push_back({known ? boots[g][r] : std::string(), values});
            }
        }
    }
    in.unit = "run";
    return in;
}

}  // namespace nf::engine
