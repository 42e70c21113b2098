// The steps of `noisefloor series` and their values (app/cli/series_steps.h).

#include "app/cli/series_steps.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "app/cli/run_lookup.h"
#include "engine/analysis/across_runs.h"
#include "engine/analysis/analysis.h"

namespace nf::cli {

std::string runName(const engine::RunRecord& run)
{
    return "run " + std::to_string(run.row.id) + (run.row.label.empty() ? "" : " '" + run.row.label + "'");
}

namespace {

// One step from a run: its only variant, or the one named after ':'.
Result<Step> stepOf(std::shared_ptr<engine::RunRecord> run, const std::string& variant, const std::string& asked,
                    std::string name)
{
    const auto& names = run->data.variantNames;
    if (variant.empty() && names.size() != 1) {
        return usageError(asked + ": " + runName(*run) + " has " + std::to_string(names.size()) +
                          " variants: name one as " + asked + ":VARIANT");
    }
    const std::string chosen = variant.empty() ? names.front() : variant;
    auto it = std::find(names.begin(), names.end(), chosen);
    if (it == names.end()) {
        return usageError(asked + ": " + runName(*run) + " has no variant '" + chosen + "'");
    }
    if (!variant.empty() && name.find(':') == std::string::npos) {
        name += ":" + variant;
    }
    return Step{std::move(name), std::move(run), static_cast<int>(it - names.begin()), {}};
}

// --label LABEL[:VARIANT]: every complete run with the label, each of which must have the variant;
// the newest is the step's run.
Result<Step> labelStep(data::Database& db, const std::string& label)
{
    auto runs = loadRunsWithLabel(db, label);
    std::string variant;
    const auto colon = label.rfind(':');
    if (!runs && colon != std::string::npos) {
        runs = loadRunsWithLabel(db, label.substr(0, colon));
        variant = label.substr(colon + 1);
    }
    if (!runs) {
        return runs.error();
    }
    std::vector<std::shared_ptr<engine::RunRecord>> pooled;
    for (auto& r : *runs) {
        pooled.push_back(std::make_shared<engine::RunRecord>(std::move(r)));
    }
    std::optional<Step> newest;
    for (const auto& r : pooled) {  // oldest first: the last one resolved is the newest
        auto step = NF_TRY(stepOf(r, variant, "--label " + label, label));
        newest = std::move(step);
    }
    newest->pooled = std::move(pooled);
    return std::move(*newest);
}

}  // namespace

std::vector<Step> variantSteps(const std::shared_ptr<engine::RunRecord>& run)
{
    std::vector<Step> steps;
    for (std::size_t v = 0; v < run->data.variantNames.size(); ++v) {
        steps.push_back({run->data.variantNames[v], run, static_cast<int>(v), {}});
    }
    return steps;
}

Result<std::vector<Step>> selectSteps(data::Database& db, const std::vector<std::string>& runs,
                                      const std::vector<std::string>& labels)
{
    if (!runs.empty() && !labels.empty()) {
        return usageError("give RUN arguments or --label, not both");
    }
    std::vector<Step> steps;
    for (const auto& label : labels) {
        auto step = NF_TRY(labelStep(db, label));
        steps.push_back(std::move(step));
    }
    if (runs.size() == 1 && runs.front().find(':') == std::string::npos) {  // the variants of one run
        auto run = NF_TRY(loadNamedRun(db, runs.front()));
        return variantSteps(std::make_shared<engine::RunRecord>(std::move(run)));
    }
    for (const auto& text : runs) {
        const auto colon = text.find(':');
        auto run = NF_TRY(loadNamedRun(db, text.substr(0, colon)));
        const std::string variant = colon == std::string::npos ? "" : text.substr(colon + 1);
        auto shared = std::make_shared<engine::RunRecord>(std::move(run));
        const std::string name = shared->row.label.empty() ? "run" + std::to_string(shared->row.id) : shared->row.label;
        auto step = NF_TRY(stepOf(shared, variant, "RUN " + text, name));
        steps.push_back(std::move(step));
    }
    return steps;
}

Result<engine::MetricSpec> chooseMetric(const std::vector<Step>& steps, const std::string& asked)
{
    const auto& metrics = steps.front().run->data.layout.metrics;
    for (const auto& m : metrics) {
        if (asked.empty() ? m.aliasOf.empty() : m.name == asked) {
            return m;
        }
    }
    return usageError(asked.empty() ? "the first step has no metric"
                                    : "--metric " + asked + ": not a metric of " + runName(*steps.front().run));
}

bool pooledDesign(const std::vector<Step>& steps)
{
    return std::any_of(steps.begin(), steps.end(), [](const Step& s) { return s.pooled.size() > 1; });
}

namespace {

// A run a step's values come from, and the metric as that run stores it.
struct Source {
    const engine::RunRecord* run;
    const engine::MetricSpec* metric;
};

// The metric in one of a step's runs, if that run holds its repetition values.
Result<Source> sourceOf(const Step& s, const engine::RunRecord& run, const engine::MetricSpec& metric)
{
    const auto& metrics = run.data.layout.metrics;
    auto it = std::find_if(metrics.begin(), metrics.end(), [&](const auto& m) { return m.name == metric.name; });
    if (it == metrics.end()) {
        return usageError("step " + s.name + " (" + runName(run) + ") has no metric " + metric.name);
    }
    if (run.data.summarised()) {
        return usageError("step " + s.name + " (" + runName(run) +
                          ") holds perf stat -r summaries, not the runs: series' permutation test needs the "
                          "values (compare the steps pairwise with noisefloor compare)");
    }
    return Source{&run, &*it};
}

// One run's repetition values of the metric (over its clean chunks), for the step's variant (looked up by name: pooled
// runs may list their variants in another order).
std::vector<double> repetitionValuesOf(const Step& s, const Source& from)
{
    const auto& names = from.run->data.variantNames;
    const auto& wanted = s.run->data.variantNames[static_cast<std::size_t>(s.variant)];
    const auto v = static_cast<int>(std::find(names.begin(), names.end(), wanted) - names.begin());
    return engine::repetitionValues(from.run->data, engine::chunkCut(from.run->data), v, *from.metric);
}

// The variants of one run that alternated them in chunks: per step, its chunk value in every round
// where each step has a positive one. Empty when the run did not alternate.
std::vector<engine::SeriesStep> chunkRoundsOf(const std::vector<Step>& steps, const engine::MetricSpec& metric)
{
    const auto& run = *steps.front().run;
    auto in = engine::analysisInput(run.data, run.spec.interleaved(), {metric.name});
    if (!in || !in->alternating || in->pairs.empty()) {
        return {};
    }
    const auto& rounds = in->pairs.front();  // [variant][round]
    std::vector<engine::SeriesStep> out;
    out.reserve(steps.size());
    for (const auto& s : steps) {
        out.push_back({s.name, {}});
    }
    for (std::size_t r = 0; !rounds.empty() && r < rounds.front().size(); ++r) {
        const bool complete = std::all_of(steps.begin(), steps.end(), [&](const Step& s) {
            const auto& v = rounds[static_cast<std::size_t>(s.variant)];
            return r < v.size() && v[r] > 0 && std::isfinite(v[r]);
        });
        for (std::size_t k = 0; complete && k < steps.size(); ++k) {
            out[k].values.push_back(rounds[static_cast<std::size_t>(steps[k].variant)][r]);
        }
    }
    return out;
}

}  // namespace

Result<SeriesValues> valuesOf(const std::vector<Step>& steps, const engine::MetricSpec& metric, bool oneRun)
{
    // Every run a step's values come from must hold them, whichever values are analysed.
    const bool pooled = pooledDesign(steps);
    std::vector<std::vector<Source>> sources;
    for (const auto& s : steps) {
        auto& of = sources.emplace_back();
        for (const auto& r : pooled ? s.pooled : std::vector{s.run}) {
            auto source = NF_TRY(sourceOf(s, *r, metric));
            of.push_back(source);
        }
    }
    if (oneRun && steps.front().run->spec.interleaved()) {
        if (auto rounds = chunkRoundsOf(steps, metric); !rounds.empty() && rounds.front().values.size() >= 2) {
            return SeriesValues{std::move(rounds), true};
        }
    }
    SeriesValues out;
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const auto& s = steps[k];
        if (!pooled) {
            out.steps.push_back({s.name, repetitionValuesOf(s, sources[k].front())});
            continue;
        }
        std::vector<engine::RunValues> runs;
        for (const auto& from : sources[k]) {
            auto values = repetitionValuesOf(s, from);
            std::erase_if(values, [](double x) { return !std::isfinite(x); });
            if (!values.empty()) {
                runs.push_back({from.run->row.bootId, std::move(values)});
            }
        }
        out.steps.push_back({s.name, engine::unitMeans(runs)});
    }
    return out;
}

}  // namespace nf::cli
