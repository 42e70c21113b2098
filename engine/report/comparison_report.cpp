#include "engine/report/comparison_report.h"

#include <set>
#include <sstream>

#include "engine/report/evidence_context.h"

namespace nf::engine {

namespace {

std::string displayName(const RunRecord& run, const std::string& variant, bool withRunId)
{
    const std::string runPart = withRunId || run.row.label.empty() ? "run" + std::to_string(run.row.id) : run.row.label;
    return variant == "default" ? runPart : runPart + ":" + variant;
}

// Every chosen variant, named uniquely: by label where the labels tell them apart, else by run id.
std::vector<RunVariant> chosenVariants(const std::vector<RunChoice>& choices)
{
    std::vector<RunVariant> out;
    for (const bool withRunId : {false, true}) {
        out.clear();
        std::set<std::string> names;
        for (const auto& c : choices) {
            for (std::size_t v = 0; v < c.run->data.variantNames.size(); ++v) {
                const auto& name = c.run->data.variantNames[v];
                if (c.variant.empty() || c.variant == name) {
                    out.push_back({displayName(*c.run, name, withRunId), &c.run->data, static_cast<int>(v)});
                    names.insert(out.back().name);
                }
            }
        }
        if (names.size() == out.size()) {
            break;
        }
    }
    return out;
}

}  // namespace

Result<ComparisonReport> compareRuns(const std::vector<RunChoice>& choices, const std::vector<std::string>& metrics,
                                     const AnalysisOptions& options)
{
    if (choices.empty()) {
        return Error{"nothing to compare"};
    }
    ComparisonReport report;
    if (choices.size() == 1 && choices.front().variant.empty()) {
        const auto& run = *choices.front().run;
        auto input = analysisInput(run.data, run.spec.interleaved(), metrics);
        if (!input) {
            return input.error();
        }
        auto analysis = analyze(*input, options);
        if (!analysis) {
            return analysis.error();
        }
        report.analysis = std::move(*analysis);
        report.context = contextForRun(run, *input);
        return report;
    }
    auto input = analysisInputAcross(chosenVariants(choices), metrics);
    if (!input) {
        return input.error();
    }
    auto analysis = analyze(*input, options);
    if (!analysis) {
        return analysis.error();
    }
    std::vector<const RunRecord*> runs;
    for (const auto& c : choices) {
        if (runs.empty() || runs.back() != c.run) {
            runs.push_back(c.run);
        }
    }
    report.analysis = std::move(*analysis);
    report.context = contextForRuns(runs);
    report.acrossRuns = true;
    return report;
}

void writeComparison(const ComparisonReport& report, const std::string& format, std::ostream& out)
{
    const std::string& simulated = report.context.simulatedCounters;
    if (format == "json") {
        auto json = evidenceJson(report.analysis, report.context);
        if (!simulated.empty()) {
            json[kSimulatedCountersKey] = simulated;  // the first key: upper case sorts first
        }
        out << json.dump(2) << '\n';
    } else if (format == "csv") {
        if (!simulated.empty()) {
            out << "# " << simulated << '\n';
        }
        writeEvidenceCsv(report.analysis, out);
    } else {
        writeEvidenceText(report.analysis, report.context, out);
    }
}

std::string comparisonText(const ComparisonReport& report)
{
    std::ostringstream out;
    writeComparison(report, "text", out);
    return out.str();
}

}  // namespace nf::engine
