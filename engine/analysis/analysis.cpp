// The analysis of an AnalysisInput (engine/analysis/analysis.h): per-variant statistics, drift
// warnings, and every variant's comparisons against the baseline, metric by metric.

#include "engine/analysis/analysis.h"

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <future>
#include <thread>

#include "engine/analysis/layout_factor.h"
#include "engine/analysis/multiplicity.h"
#include "engine/analysis/setup_factor.h"
#include "engine/stats/robust.h"

namespace nf::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

// Whether every pair has both values and both are finite: alignPairs would copy them as they are.
bool allFinitePairs(const std::vector<double>& a, const std::vector<double>& b)
{
    const auto isFinite = [](double x) { return std::isfinite(x); };
    return a.size() == b.size() && std::all_of(a.begin(), a.end(), isFinite) &&
           std::all_of(b.begin(), b.end(), isFinite);
}

// Pairs where both values are finite; with dropOutliers, without pairs whose log ratio is an outlier.
std::size_t alignPairs(const std::vector<double>& a, const std::vector<double>& b, bool dropOutliers,
                       std::vector<double>& outA, std::vector<double>& outB)
{
    outA.reserve(std::min(a.size(), b.size()));
    outB.reserve(std::min(a.size(), b.size()));
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
    // The move relative to the first third's size, with the sign of last - first: with negative
    // values last / first - 1 has the opposite sign.
    const double change = first != 0 ? (last - first) / std::fabs(first) * 100 : 0;
    if (corr.p < 0.01 && std::fabs(change) >= 0.1) {
        warnings.push_back(
            fmt::format("drift: {} {} moved {:+.2f}% from the first to the last third of the run "
                        "(Spearman rho {:.2f} over {} {}s{}); interleaving keeps the comparison fair, "
                        "but absolute values moved",
                        variant, metric.name, change, corr.rho, all.size(), unit,
                        values.size() < all.size() ? fmt::format(" in {} groups", values.size()) : ""));
    }
}

// A receiver that takes nearly everything offered is not what limits the rate: pps is then the
// generator's, and a difference in it is one in what was offered (on a veth testbed each variant's
// offered rate has its own noise), not in the variants.
constexpr double kKeptUpShare = 0.99;

void keptUpWarning(const AnalysisInput& in, std::vector<std::string>& warnings)
{
    const auto& share = in.receivedShare;
    if (in.variants.size() < 2 || share.size() != in.variants.size() ||
        !std::all_of(share.begin(), share.end(), [](double s) { return s >= kKeptUpShare; })) {
        return;
    }
    std::vector<std::string> each;
    for (std::size_t v = 0; v < share.size(); ++v) {
        each.push_back(fmt::format("{} {:.2f}%", in.variants[v], 100 * share[v]));
    }
    warnings.push_back(fmt::format(
        "pps is the generator's rate, not the variants': the receiver kept up, every variant took at least "
        "{:.0f}% of the packets offered ({}); offer more than the receiver takes, or compare per-packet cost",
        100 * kKeptUpShare, fmt::join(each, ", ")));
}

// Judges one comparison of a live run by the run's validity reasons that concern its variants: a
// reason makes it invalid unless it concerns rates only and the metric is not one (then it is
// stated beside the verdict). With --allow-invalid the verdict stands and the reasons are warnings.
void applyValidity(MetricComparison& mc, const MetricSpec& metric, const RunValidity& validity, bool allowInvalid)
{
    auto& v = mc.result.validity;
    v.assessed = true;
    for (const auto& r : validity.reasons) {
        const bool concerns =
            r.variants.empty() || std::find_if(r.variants.begin(), r.variants.end(), [&](const std::string& name) {
                                      return name == mc.baseline || name == mc.candidate;
                                  }) != r.variants.end();
        if (!concerns) {
            continue;
        }
        ValidityFinding finding{std::string(toString(r.code)), r.text};
        if (r.rateOnly && !isRateMetric(metric)) {
            v.stated.push_back(std::move(finding));
        } else {
            v.valid = false;
            v.reasons.push_back(std::move(finding));
        }
    }
    if (v.valid) {
        return;
    }
    if (allowInvalid) {
        for (const auto& r : v.reasons) {
            mc.result.warnings.push_back("invalid test, verdict kept (--allow-invalid): " + r.text);
        }
        return;
    }
    mc.result.verdict = Verdict::Invalid;
    mc.result.verdictReason = v.reasons.front().text;
}

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
    NF_TRY(checkMagnitudes(in));
    Analysis a;
    a.options = o;
    a.primaryMetric = in.metrics.empty() ? std::string() : in.metrics.front().name;
    std::size_t base = 0;
    if (!o.baseline.empty()) {
        const auto it = std::find(in.variants.begin(), in.variants.end(), o.baseline);
        if (it == in.variants.end()) {
            return Error{"--baseline " + o.baseline +
                         ": no such variant (variants: " + fmt::format("{}", fmt::join(in.variants, ", ")) + ")"};
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
                : fmt::format("{} of {} chunks ({:.1f}%) left out of the chunk pairs and the repetition values: the "
                              "measuring thread was switched out (context-switches > 0) or stalled (over 1.5x the "
                              "median chunk)",
                              in.preemptedChunks, in.chunks, pct));
    }
    if (!in.validity.cpuTimeKnown) {  // else the validity rules decide from the CPUs' work
        keptUpWarning(in, a.warnings);
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
        const auto& layoutsOf = in.alternating ? in.pairLayouts : in.repetitionLayouts;
        // Code layout is a factor: the cells of placements carry the verdict, the pairs beside it.
        const bool layoutFactor =
            in.layoutsPlanned > 0 && (in.alternating || in.pairedRepetitions) && std::max(base, c) < layoutsOf.size();
        // A live run side by side: its setups carry the verdict (pairs inside one share its draw).
        const bool setupFactor = !layoutFactor && in.alternating && std::max(base, c) < in.pairSetups.size();
        const Design primaryDesign = layoutFactor  ? Design::Layouts
                                     : setupFactor ? Design::Setups
                                     : pairedFirst ? Design::Paired
                                                   : Design::Independent;
        std::vector<std::size_t> primaries;
        std::vector<std::size_t> secondaries;
        // Metrics are independent of each other: compare them in parallel (a million chunk pairs
        // take a tenth of a second per metric), one per CPU at a time (more threads than CPUs
        // would only hold more copies of the pairs at once), then collect them in metric order.
        auto compareMetric = [&](std::size_t m, const CompareOptions& options) {
            std::vector<Comparison> results;
            if (summaryAt(in, m, base) != nullptr || summaryAt(in, m, c) != nullptr) {
                results.push_back(compareSummaries(sideStats(in, m, base), sideStats(in, m, c), options));
                return results;
            }
            if (m < in.runs.size()) {
                const auto& floor = m < in.runFloors.size() ? in.runFloors[m] : std::nullopt;
                const auto& layout = m < in.layoutFloors.size() ? in.layoutFloors[m] : std::nullopt;
                results.push_back(compareAcrossRuns(in.runs[m][base], in.runs[m][c], floor, options, layout));
                return results;
            }
            if (layoutFactor) {
                const auto& source = in.alternating ? in.pairs[m] : in.repetitions[m];
                results.push_back(compareAcrossLayouts(source[base], source[c], layoutsOf[base], layoutsOf[c],
                                                       in.layoutsPlanned, options));
            }
            if (setupFactor) {
                results.push_back(compareAcrossSetups(in.pairs[m][base], in.pairs[m][c], in.pairSetups[base], options));
            }
            if (in.alternating || in.pairedRepetitions) {
                const auto& source = in.alternating ? in.pairs[m] : in.repetitions[m];
                std::vector<double> pb;
                std::vector<double> pc;
                std::size_t dropped = 0;
                if (!o.dropOutliers && allFinitePairs(source[base], source[c])) {
                    results.push_back(comparePaired(source[base], source[c], options));  // nothing to align
                } else {
                    dropped = alignPairs(source[base], source[c], o.dropOutliers, pb, pc);
                    results.push_back(comparePaired(pb, pc, options));
                }
                results.back().unit = in.pairUnit;
                results.back().droppedOutliers = dropped;
            }
            results.push_back(
                compareIndependent(finite(in.repetitions[m][base]), finite(in.repetitions[m][c]), options));
            results.back().unit = in.unit;
            return results;
        };
        std::vector<std::vector<Comparison>> perMetric(in.metrics.size());
        std::atomic<std::size_t> next{0};
        std::vector<std::future<void>> workers;
        const std::size_t cpus = std::max(1U, std::thread::hardware_concurrency());
        for (std::size_t w = 0; w < std::min(cpus, in.metrics.size()); ++w) {
            workers.push_back(std::async(std::launch::async, [&] {
                for (std::size_t m = next++; m < perMetric.size(); m = next++) {
                    perMetric[m] = compareMetric(m, o.compare);
                }
            }));
        }
        for (auto& worker : workers) {
            worker.get();
        }
        std::vector<std::size_t> metricOf;
        for (std::size_t m = 0; m < in.metrics.size(); ++m) {
            const auto& metric = in.metrics[m];
            for (auto& result : perMetric[m]) {
                const bool primary = result.design == primaryDesign;
                (primary ? primaries : secondaries).push_back(a.comparisons.size());
                metricOf.push_back(m);
                a.comparisons.push_back({metric.name, metric.unit, metric.higherIsBetter, in.variants[base],
                                         in.variants[c], primary, std::move(result)});
            }
        }
        const std::size_t first = a.comparisons.size() - metricOf.size();
        const auto same = [&](std::size_t x, std::size_t y) {
            return oneQuantity(in.repetitions[x], in.repetitions[y]);
        };
        const auto again = [&](std::size_t m, Design design, const CompareOptions& wider) {
            auto results = compareMetric(m, wider);
            const auto it =
                std::find_if(results.begin(), results.end(), [&](const Comparison& r) { return r.design == design; });
            return std::move(*it);
        };
        for (auto* family : {&primaries, &secondaries}) {
            std::vector<FamilyMember> members;
            for (auto i : *family) {
                members.push_back({&a.comparisons[i].result, metricOf[i - first]});
            }
            decideFamily(members, 0, o.compare, o.holm, same, again);
        }
        if (in.validity.cpuTimeKnown || !in.validity.reasons.empty()) {
            for (std::size_t i = first; i < a.comparisons.size(); ++i) {
                applyValidity(a.comparisons[i], in.metrics[metricOf[i - first]], in.validity, o.allowInvalid);
            }
        }
    }
    return a;
}

}  // namespace nf::engine
