#include "data/export.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace nf::data {
namespace {

// Integers exactly (counter values), everything else in the shortest form that reads back equal.
std::string formatNumber(double value)
{
    if (!std::isfinite(value)) {
        return {};
    }
    char text[64];
    if (value == std::trunc(value) && std::fabs(value) < 9007199254740992.0) {  // 2^53
        auto [end, ec] = std::to_chars(text, text + sizeof text, static_cast<long long>(value));
        return ec == std::errc() ? std::string(text, end) : std::string();
    }
    auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    return ec == std::errc() ? std::string(text, end) : std::string();
}

std::string formatNumber(const std::optional<double>& value)
{
    return value ? formatNumber(*value) : std::string();
}

// RFC 4180: quote a field holding a comma, quote, CR or LF, doubling the quotes inside.
std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos) {
        return text;
    }
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"') {
            quoted += '"';
        }
        quoted += c;
    }
    return quoted + '"';
}

std::optional<double> sampleMetric(const engine::RunData& data, const engine::MetricSpec& metric,
                                   const engine::Sample& sample)
{
    return engine::metricValue(metric, data.layout.quantities, {&sample.values});
}

std::string variantName(const engine::RunData& data, int variant)
{
    if (variant < 0 || static_cast<std::size_t>(variant) >= data.variantNames.size()) {
        return std::to_string(variant);
    }
    return data.variantNames[static_cast<std::size_t>(variant)];
}

// A metric that is its own quantity per run, where every sample is one run (an imported perf stat
// run: metric "cycles" = quantity "cycles" / "runs"): the quantity's column already holds it, and a
// second column of the same name would repeat it.
bool repeatsQuantity(const engine::RunData& data, const engine::MetricSpec& metric)
{
    const auto& q = data.layout.quantities;
    const auto runs = std::find(q.begin(), q.end(), metric.denominator);
    if (metric.name != metric.numerator || metric.scale != 1.0 || metric.denominator != "runs" || runs == q.end()) {
        return false;
    }
    const auto at = static_cast<std::size_t>(runs - q.begin());
    return std::all_of(data.samples.begin(), data.samples.end(),
                       [&](const engine::Sample& s) { return at < s.values.size() && s.values[at] == 1.0; });
}

// The metric columns the CSV writes (false: the metric repeats its quantity's column).
std::vector<bool> metricColumns(const engine::RunData& data)
{
    std::vector<bool> write;
    for (const engine::MetricSpec& metric : data.layout.metrics) {
        write.push_back(!repeatsQuantity(data, metric));
    }
    return write;
}

void writeCsvHeader(const engine::RunData& data, const std::vector<bool>& write, std::ostream& out)
{
    out << "run,variant,repetition,sample,pair,start_s,duration_s";
    for (std::size_t m = 0; m < data.layout.metrics.size(); ++m) {
        if (write[m]) {
            out << ',' << csvField(data.layout.metrics[m].name);
        }
    }
    for (const std::string& quantity : data.layout.quantities) {
        out << ',' << csvField(quantity);
    }
    out << '\n';
}

void writeCsvRow(const engine::RunRecord& run, const engine::Sample& sample, const std::vector<bool>& write,
                 std::ostream& out)
{
    const engine::RunData& data = run.data;
    out << run.row.id << ',' << csvField(variantName(data, sample.variant)) << ',' << sample.repetition << ','
        << sample.index << ',' << (sample.pair >= 0 ? std::to_string(sample.pair) : std::string()) << ','
        << formatNumber(sample.start) << ',' << formatNumber(sample.duration);
    for (std::size_t m = 0; m < data.layout.metrics.size(); ++m) {
        if (write[m]) {
            out << ',' << formatNumber(sampleMetric(data, data.layout.metrics[m], sample));
        }
    }
    for (std::size_t q = 0; q < data.layout.quantities.size(); ++q) {
        out << ',' << (q < sample.values.size() ? formatNumber(sample.values[q]) : std::string());
    }
    out << '\n';
}

// JSON has no NaN: undefined values become null.
nlohmann::json jsonNumber(double value)
{
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json();
}

nlohmann::json rowJson(const engine::RunRow& row)
{
    return {
        {"id", row.id},
        {"label", row.label},
        {"workload", row.workload},
        {"status", std::string(engine::toString(row.status))},
        {"status_reason", row.statusReason},
        {"started_at", row.startedAt},
        {"ended_at", row.endedAt.empty() ? nlohmann::json() : nlohmann::json(row.endedAt)},
        {"host", row.host},
        {"kernel", row.kernel},
        {"cpu_model", row.cpuModel},
        {"tool_version", row.toolVersion},
        {"pid", row.pid},
        {"variants", row.variants},
        {"repetitions", row.repetitions},
    };
}

nlohmann::json layoutJson(const engine::RunLayout& layout)
{
    nlohmann::json metrics = nlohmann::json::array();
    for (const engine::MetricSpec& m : layout.metrics) {
        metrics.push_back({{"name", m.name},
                           {"unit", m.unit},
                           {"numerator", m.numerator},
                           {"denominator", m.denominator},
                           {"scale", m.scale},
                           {"higher_is_better", m.higherIsBetter},
                           {"description", m.description}});
    }
    return {{"quantities", layout.quantities}, {"metrics", metrics}};
}

nlohmann::json variantsJson(const engine::RunRecord& run)
{
    nlohmann::json variants = nlohmann::json::array();
    for (std::size_t i = 0; i < run.data.variantNames.size(); ++i) {
        nlohmann::json params = i < run.variantParams.size() ? run.variantParams[i] : nlohmann::json::object();
        variants.push_back({{"index", i}, {"name", run.data.variantNames[i]}, {"params", params}});
    }
    return variants;
}

nlohmann::json sampleJson(const engine::RunData& data, const engine::Sample& sample)
{
    nlohmann::json quantities = nlohmann::json::object();
    for (std::size_t q = 0; q < data.layout.quantities.size(); ++q) {
        quantities[data.layout.quantities[q]] = q < sample.values.size() ? jsonNumber(sample.values[q]) : nullptr;
    }
    nlohmann::json metrics = nlohmann::json::object();
    for (const engine::MetricSpec& metric : data.layout.metrics) {
        std::optional<double> value = sampleMetric(data, metric, sample);
        metrics[metric.name] = value ? jsonNumber(*value) : nlohmann::json();
    }
    return {{"variant", sample.variant},
            {"variant_name", variantName(data, sample.variant)},
            {"repetition", sample.repetition},
            {"index", sample.index},
            {"pair", sample.pair >= 0 ? nlohmann::json(sample.pair) : nlohmann::json()},
            {"start_s", jsonNumber(sample.start)},
            {"duration_s", jsonNumber(sample.duration)},
            {"quantities", quantities},
            {"metrics", metrics}};
}

// A run stored as summaries (perf stat -r N) has no values per run of the tool: its export is one
// row per summary and quantity, each marked "summary", with n, mean, standard error and stddev.
void writeSummaryCsv(const engine::RunRecord& run, std::ostream& out)
{
    out << "run,variant,repetition,row,quantity,n,mean,se,stddev\n";
    for (const engine::SummaryStat& s : run.data.summaries) {
        out << run.row.id << ',' << csvField(variantName(run.data, s.variant)) << ',' << s.repetition << ",summary,"
            << csvField(s.quantity) << ',' << formatNumber(s.n) << ',' << formatNumber(s.mean) << ','
            << formatNumber(s.se) << ',' << formatNumber(s.se * std::sqrt(s.n)) << '\n';
    }
}

nlohmann::json summariesJson(const engine::RunData& data)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const engine::SummaryStat& s : data.summaries) {
        rows.push_back({{"row", "summary"},
                        {"variant", s.variant},
                        {"variant_name", variantName(data, s.variant)},
                        {"repetition", s.repetition},
                        {"quantity", s.quantity},
                        {"n", s.n},
                        {"mean", jsonNumber(s.mean)},
                        {"se", jsonNumber(s.se)},
                        {"stddev", jsonNumber(s.se * std::sqrt(s.n))}});
    }
    return rows;
}

}  // namespace

void writeCsv(const engine::RunRecord& run, std::ostream& out)
{
    try {
        if (run.spec.pmu.simulated) {
            out << "# " << engine::simulatedCountersNote(run.spec.pmu) << '\n';
        }
        if (run.data.summarised()) {
            writeSummaryCsv(run, out);
            return;
        }
        const auto write = metricColumns(run.data);
        writeCsvHeader(run.data, write, out);
        for (const engine::Sample& sample : run.data.samples) {
            writeCsvRow(run, sample, write, out);
        }
    } catch (const std::exception&) {
        out.setstate(std::ios::failbit);  // the caller sees a failed stream, never an exception
    }
}

void writeJson(const engine::RunRecord& run, std::ostream& out)
{
    try {
        nlohmann::json samples = nlohmann::json::array();
        for (const engine::Sample& sample : run.data.samples) {
            samples.push_back(sampleJson(run.data, sample));
        }
        nlohmann::json doc = {
            {"run", rowJson(run.row)},      {"spec", engine::toJson(run.spec)}, {"environment", run.environment.json},
            {"warnings", run.warnings},     {"variants", variantsJson(run)},    {"layout", layoutJson(run.data.layout)},
            {"samples", std::move(samples)}};
        if (run.spec.pmu.simulated) {
            doc[engine::kSimulatedCountersKey] = engine::simulatedCountersNote(run.spec.pmu);  // sorts first
        }
        if (run.data.summarised()) {
            // The samples hold the summaries' means; the summaries are what was measured.
            doc["stored_as"] = "summaries";
            doc["summaries"] = summariesJson(run.data);
        }
        out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } catch (const std::exception&) {
        out.setstate(std::ios::failbit);
    }
}

}  // namespace nf::data
