#include "engine/analysis/analysis.h"

#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <future>
#include <map>

#include "engine/stats/robust.h"

namespace nf::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string joined(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names) {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

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
            return Error{"--metric " + name + ": not measured in this run (metrics: " + joined(available) + ")"};
        }
        chosen.push_back(*it);
    }
    return chosen;
}

// Finite values of `xs` and the positions they came from.
std::vector<double> finite(const std::vector<double>& xs)
{
    std::vector<double> out;
    for (double x : xs) {
        if (std::isfinite(x)) {
            out.push_back(x);
        }
    }
    return out;
}

VariantStats variantStats(const std::string& variant, const MetricSpec& metric, std::vector<double> values,
                          const AnalysisOptions& o)
{
    VariantStats vs;
    vs.variant = variant;
    vs.metric = metric.name;
    vs.outliers = stats::outliers(values);
    if (o.dropOutliers && !vs.outliers.empty()) {
        for (auto it = vs.outliers.rbegin(); it != vs.outliers.rend(); ++it) {
            values.erase(values.begin() + static_cast<std::ptrdiff_t>(*it));
        }
        vs.dropped = vs.outliers.size();
    }
    vs.summary = summarize(values);
    vs.ciLow = vs.ciHigh = kNaN;
    if (values.size() >= 2) {
        const boost::math::students_t_distribution<double> t(static_cast<double>(values.size() - 1));
        const double half = boost::math::quantile(t, 1 - o.compare.alpha / 2) * vs.summary.stddev /
                            std::sqrt(static_cast<double>(values.size()));
        vs.ciLow = vs.summary.mean - half;
        vs.ciHigh = vs.summary.mean + half;
    }
    return vs;
}

// Pairs where both values are finite; with dropOutliers, without pairs whose log ratio is an outlier.
std::size_t alignPairs(const std::vector<double>& a, const std::vector<double>& b, bool dropOutliers,
                       std::vector<double>& outA, std::vector<double>& outB)
{
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        if (std::isfinite(a[i]) && std::isfinite(b[i])) {
            outA.push_back(a[i]);
            outB.push_back(b[i]);
        }
    }
    if (!dropOutliers) {
        return 0;
    }
    std::vector<double> d(outA.size());
    for (std::size_t i = 0; i < d.size(); ++i) {
        d[i] = outA[i] > 0 && outB[i] > 0 ? std::log(outB[i] / outA[i]) : 0;
    }
    const auto out = stats::outliers(d);
    for (auto it = out.rbegin(); it != out.rend(); ++it) {
        outA.erase(outA.begin() + static_cast<std::ptrdiff_t>(*it));
        outB.erase(outB.begin() + static_cast<std::ptrdiff_t>(*it));
    }
    return out.size();
}

// Medians of up to 200 consecutive groups of `values` (time order kept): drift shows in them
// without chunk-to-chunk noise, and a million chunks cost one pass.
std::vector<double> binMedians(const std::vector<double>& values)
{
    constexpr std::size_t kBins = 200;
    if (values.size() <= kBins) {
        return values;
    }
    std::vector<double> bins;
    for (std::size_t b = 0; b < kBins; ++b) {
        const auto first = values.begin() + static_cast<std::ptrdiff_t>(b * values.size() / kBins);
        const auto last = values.begin() + static_cast<std::ptrdiff_t>((b + 1) * values.size() / kBins);
        bins.push_back(median(std::vector<double>(first, last)));
    }
    return bins;
}

void checkDrift(const std::string& variant, const MetricSpec& metric, const std::vector<double>& inOrder,
                const std::string& unit, std::vector<std::string>& warnings)
{
    const auto all = finite(inOrder);
    const auto values = binMedians(all);
    if (values.size() < 6) {
        return;
    }
    std::vector<double> position(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        position[i] = static_cast<double>(i);
    }
    const auto corr = stats::spearman(values, position);
    const std::size_t third = values.size() / 3;
    const double first =
        median(std::vector<double>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(third)));
    const double last = median(std::vector<double>(values.end() - static_cast<std::ptrdiff_t>(third), values.end()));
    const double change = first != 0 ? (last / first - 1) * 100 : 0;
    if (corr.p < 0.01 && std::fabs(change) >= 0.1) {
        warnings.push_back(
            fmt::format("drift: {} {} moved {:+.2f}% from the first to the last third of the run "
                        "(Spearman rho {:.2f} over {} {}s{}); interleaving keeps the comparison fair, "
                        "but absolute values moved",
                        variant, metric.name, change, corr.rho, all.size(), unit,
                        values.size() < all.size() ? fmt::format(" in {} groups", values.size()) : ""));
    }
}

// Which chunks to leave out of the pairs: those the measuring thread did not run through. Either
// it was switched out (its context-switches count is above zero) or the whole CPU stalled (the
// chunk took more than 1.5 times its variant's median chunk: a hypervisor that deschedules the
// vCPU leaves no trace in the guest's counters). Chunks are calibrated to one length per variant,
// so the cut is the same relative to every variant's own speed. When any variant would lose more
// than 90% of its chunks (a variant that blocks by design, a machine too busy to measure on),
// every chunk is kept and the report says so.
std::vector<bool> preemptedChunks(const RunData& data, AnalysisInput& in)
{
    std::vector<bool> out(data.samples.size(), false);
    if (!in.alternating) {
        return out;
    }
    const int q = data.layout.quantityIndex("context-switches");
    const std::size_t nv = in.variants.size();
    std::vector<std::vector<double>> durations(nv);
    for (const auto& s : data.samples) {
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
    for (std::size_t i = 0; i < data.samples.size(); ++i) {
        const auto& s = data.samples[i];
        if (s.pair < 0) {
            continue;
        }
        const auto v = static_cast<std::size_t>(s.variant);
        ++chunks.at(v);
        const auto col = static_cast<std::size_t>(q);
        const bool switched = q >= 0 && col < s.values.size() && s.values[col] > 0;
        if (switched || s.duration > limit[v]) {
            out[i] = true;
            ++hit.at(v);
        }
    }
    for (std::size_t v = 0; v < nv; ++v) {
        in.chunks += chunks[v];
        in.preemptedChunks += hit[v];
        if (10 * hit[v] > 9 * chunks[v]) {
            in.keptPreempted = true;
        }
    }
    if (in.keptPreempted) {
        std::fill(out.begin(), out.end(), false);
    }
    return out;
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
    const auto preempted = preemptedChunks(data, in);
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

namespace {

// The statistics work in units of the baseline (scale-free), but the per-variant summaries are in
// the values' own units. Within 1e-150..1e150 every value and its square are normal doubles, so
// nothing under- or overflows; beyond it a value is refused rather than analysed wrong.
constexpr double kMaxAnalysedValue = 1e150;
constexpr double kMinAnalysedValue = 1e-150;

// The first value no test can take (infinite, or a magnitude outside the range above; 0 is fine);
// NaN is a missing value.
Result<void> checkMagnitudes(const AnalysisInput& in)
{
    for (const auto* values : {&in.repetitions, &in.pairs}) {
        for (std::size_t m = 0; m < values->size() && m < in.metrics.size(); ++m) {
            for (std::size_t v = 0; v < (*values)[m].size() && v < in.variants.size(); ++v) {
                for (double x : (*values)[m][v]) {
                    const double a = std::fabs(x);
                    if (std::isinf(x) || a > kMaxAnalysedValue) {
                        return Error{fmt::format("{} of {}: the value {} is too large to analyse (beyond 1e150)",
                                                 in.metrics[m].name, in.variants[v], x)};
                    }
                    if (a > 0 && a < kMinAnalysedValue) {
                        return Error{fmt::format("{} of {}: the value {} is too small to analyse (below 1e-150)",
                                                 in.metrics[m].name, in.variants[v], x)};
                    }
                }
            }
        }
    }
    return {};
}

const SummaryStats* summaryAt(const AnalysisInput& in, std::size_t m, std::size_t v)
{
    if (m >= in.summaries.size() || v >= in.summaries[m].size() || !in.summaries[m][v]) {
        return nullptr;
    }
    return &*in.summaries[m][v];
}

// A side of a comparison with summaries: its summary, or the statistics of its values.
SummaryStats sideStats(const AnalysisInput& in, std::size_t m, std::size_t v)
{
    if (const auto* s = summaryAt(in, m, v)) {
        return *s;
    }
    const auto values = finite(in.repetitions[m][v]);
    return {static_cast<double>(values.size()), mean(values), stddev(values)};
}

VariantStats summaryStats(const std::string& variant, const MetricSpec& metric, const SummaryStats& s,
                          const AnalysisOptions& o)
{
    VariantStats vs;
    vs.variant = variant;
    vs.metric = metric.name;
    vs.summary.n = static_cast<std::size_t>(s.n);
    vs.summary.mean = s.mean;
    vs.summary.stddev = s.stddev;
    vs.summary.median = vs.summary.min = vs.summary.max = kNaN;  // the runs were not printed
    vs.summary.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0;
    vs.ciLow = vs.ciHigh = kNaN;
    if (s.n >= 2) {
        const boost::math::students_t_distribution<double> t(s.n - 1);
        const double half = boost::math::quantile(t, 1 - o.compare.alpha / 2) * s.stddev / std::sqrt(s.n);
        vs.ciLow = s.mean - half;
        vs.ciHigh = s.mean + half;
    }
    return vs;
}

}  // namespace

Result<Analysis> analyze(const AnalysisInput& in, const AnalysisOptions& o)
{
    if (auto r = checkMagnitudes(in); !r) {
        return r.error();
    }
    Analysis a;
    a.options = o;
    std::size_t base = 0;
    if (!o.baseline.empty()) {
        const auto it = std::find(in.variants.begin(), in.variants.end(), o.baseline);
        if (it == in.variants.end()) {
            return Error{"--baseline " + o.baseline + ": no such variant (variants: " + joined(in.variants) + ")"};
        }
        base = static_cast<std::size_t>(it - in.variants.begin());
    }
    if (in.variants.size() < 2) {
        a.warnings.emplace_back("one variant: nothing to compare (add a second variant)");
    }
    if (in.preemptedChunks > 0) {
        const double pct = 100.0 * static_cast<double>(in.preemptedChunks) / static_cast<double>(in.chunks);
        a.warnings.push_back(
            in.keptPreempted
                ? fmt::format(
                      "the measuring thread was switched out or stalled in {} of {} chunks ({:.0f}%): too many to "
                      "leave out, so the chunk values include other tasks' time (a busy machine, or a "
                      "variant that blocks)",
                      in.preemptedChunks, in.chunks, pct)
                : fmt::format("{} of {} chunks ({:.1f}%) left out of the paired analysis: the measuring thread was "
                              "switched out (context-switches > 0) or stalled (over 1.5x the median chunk)",
                              in.preemptedChunks, in.chunks, pct));
    }
    for (std::size_t m = 0; m < in.metrics.size(); ++m) {
        for (std::size_t v = 0; v < in.variants.size(); ++v) {
            if (const auto* s = summaryAt(in, m, v)) {
                a.variants.push_back(summaryStats(in.variants[v], in.metrics[m], *s, o));
                continue;
            }
            a.variants.push_back(variantStats(in.variants[v], in.metrics[m], finite(in.repetitions[m][v]), o));
        }
    }
    if (std::find(in.summarised.begin(), in.summarised.end(), true) != in.summarised.end()) {
        a.warnings.emplace_back(
            "perf stat -r summaries: compared from n, mean and standard error (Welch's t, Fieller's ratio "
            "interval); rank tests need the runs and were not run");
    }
    for (std::size_t v = 0; v < in.variants.size(); ++v) {
        const auto& primaryMetric = in.metrics.front();
        checkDrift(in.variants[v], primaryMetric, in.alternating ? in.pairs[0][v] : in.repetitions[0][v],
                   in.alternating ? "chunk" : "repetition", a.warnings);
    }
    for (std::size_t c = 0; c < in.variants.size(); ++c) {
        if (c == base) {
            continue;
        }
        const bool pairedFirst = in.alternating || (in.pairedRepetitions && in.pairedPrimary);
        std::vector<std::size_t> primaries;
        std::vector<std::size_t> secondaries;
        // Metrics are independent of each other: compare them in parallel (a million chunk pairs
        // take a tenth of a second per metric), then collect them in metric order.
        std::vector<std::future<std::vector<Comparison>>> perMetric;
        for (std::size_t m = 0; m < in.metrics.size(); ++m) {
            perMetric.push_back(std::async(std::launch::async, [&, m] {
                std::vector<Comparison> results;
                if (summaryAt(in, m, base) != nullptr || summaryAt(in, m, c) != nullptr) {
                    results.push_back(compareSummaries(sideStats(in, m, base), sideStats(in, m, c), o.compare));
                    return results;
                }
                if (m < in.runs.size()) {
                    const auto& floor = m < in.runFloors.size() ? in.runFloors[m] : std::nullopt;
                    results.push_back(compareAcrossRuns(in.runs[m][base], in.runs[m][c], floor, o.compare));
                    return results;
                }
                if (in.alternating || in.pairedRepetitions) {
                    const auto& source = in.alternating ? in.pairs[m] : in.repetitions[m];
                    std::vector<double> pb;
                    std::vector<double> pc;
                    const std::size_t dropped = alignPairs(source[base], source[c], o.dropOutliers, pb, pc);
                    results.push_back(comparePaired(pb, pc, o.compare));
                    results.back().unit = in.pairUnit;
                    results.back().droppedOutliers = dropped;
                }
                results.push_back(
                    compareIndependent(finite(in.repetitions[m][base]), finite(in.repetitions[m][c]), o.compare));
                results.back().unit = in.unit;
                return results;
            }));
        }
        for (std::size_t m = 0; m < in.metrics.size(); ++m) {
            const auto& metric = in.metrics[m];
            for (auto& result : perMetric[m].get()) {
                const bool primary = (result.design == Design::Paired) == pairedFirst;
                (primary ? primaries : secondaries).push_back(a.comparisons.size());
                a.comparisons.push_back({metric.name, metric.unit, metric.higherIsBetter, in.variants[base],
                                         in.variants[c], primary, std::move(result)});
            }
        }
        for (auto* family : {&primaries, &secondaries}) {
            std::vector<Comparison*> members;
            for (auto i : *family) {
                members.push_back(&a.comparisons[i].result);
            }
            adjustAndDecide(members, o.compare, o.holm);
        }
    }
    return a;
}

}  // namespace nf::engine
