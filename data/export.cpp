#include "data/export.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
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

// The run's metrics with their quantities' columns, found once for every row.
struct RowMetric {
    const engine::MetricSpec* spec;
    std::optional<engine::MetricColumns> columns;  // nullopt: a quantity is not stored
};

std::vector<RowMetric> rowMetrics(const engine::RunData& data)
{
    std::vector<RowMetric> metrics;
    for (const engine::MetricSpec& metric : data.layout.metrics) {
        auto columns = engine::metricColumns(metric, data.layout.quantities);
        if (columns && std::max(columns->numerator, columns->denominator) >= data.samples.quantities()) {
            columns.reset();
        }
        metrics.push_back({&metric, columns});
    }
    return metrics;
}

// The metric's value in one row, as metricValue gives it for a row (a sum from zero, so -0 is 0);
// nullopt where it is undefined.
std::optional<double> rowMetric(const engine::RunTable& table, const RowMetric& metric, std::size_t row)
{
    if (!metric.columns) {
        return std::nullopt;
    }
    const double value = engine::metricRatio(*metric.spec, 0.0 + table.value(row, metric.columns->numerator),
                                             table.value(row, metric.columns->denominator));
    return std::isnan(value) ? std::nullopt : std::optional<double>(value);
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
bool repeatsQuantity(const engine::RunTable& table, const RowMetric& metric)
{
    const engine::MetricSpec& spec = *metric.spec;
    if (spec.name != spec.numerator || spec.scale != 1.0 || spec.denominator != "runs" || !metric.columns) {
        return false;
    }
    for (std::size_t row = 0; row < table.size(); ++row) {
        if (table.value(row, metric.columns->denominator) != 1.0) {
            return false;
        }
    }
    return true;
}

// The metrics the CSV writes a column for: all but those that repeat their quantity's column.
std::vector<RowMetric> csvMetrics(const engine::RunData& data)
{
    std::vector<RowMetric> metrics = rowMetrics(data);
    std::erase_if(metrics, [&](const RowMetric& m) { return repeatsQuantity(data.samples, m); });
    return metrics;
}

void writeCsvHeader(const engine::RunData& data, const std::vector<RowMetric>& metrics, std::ostream& out)
{
    out << "run,variant,repetition,sample,pair,layout,start_s,duration_s";
    for (const RowMetric& metric : metrics) {
        out << ',' << csvField(metric.spec->name);
    }
    for (const std::string& quantity : data.layout.quantities) {
        out << ',' << csvField(quantity);
    }
    out << '\n';
}

void writeCsvRow(const engine::RunRecord& run, const std::vector<RowMetric>& metrics, std::size_t row,
                 std::ostream& out)
{
    const engine::RunData& data = run.data;
    const engine::RunTable& table = data.samples;
    const int pair = table.pair(row);
    const int layout = data.layoutOf(table.variant(row), table.repetition(row));
    out << run.row.id << ',' << csvField(variantName(data, table.variant(row))) << ',' << table.repetition(row) << ','
        << table.index(row) << ',' << (pair >= 0 ? std::to_string(pair) : std::string()) << ','
        << (layout >= 0 ? std::to_string(layout) : std::string()) << ',' << formatNumber(table.start(row)) << ','
        << formatNumber(table.duration(row));
    for (const RowMetric& metric : metrics) {
        out << ',' << formatNumber(rowMetric(table, metric, row));
    }
    for (std::size_t q = 0; q < data.layout.quantities.size(); ++q) {
        out << ',' << (q < table.quantities() ? formatNumber(table.value(row, q)) : std::string());
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

nlohmann::json sampleJson(const engine::RunData& data, const std::vector<RowMetric>& rowMetrics, std::size_t row)
{
    const engine::RunTable& table = data.samples;
    nlohmann::json quantities = nlohmann::json::object();
    for (std::size_t q = 0; q < data.layout.quantities.size(); ++q) {
        quantities[data.layout.quantities[q]] = q < table.quantities() ? jsonNumber(table.value(row, q)) : nullptr;
    }
    nlohmann::json metrics = nlohmann::json::object();
    for (const RowMetric& metric : rowMetrics) {
        std::optional<double> value = rowMetric(table, metric, row);
        metrics[metric.spec->name] = value ? jsonNumber(*value) : nlohmann::json();
    }
    const int pair = table.pair(row);
    const int layout = data.layoutOf(table.variant(row), table.repetition(row));
    return {{"variant", table.variant(row)},
            {"variant_name", variantName(data, table.variant(row))},
            {"repetition", table.repetition(row)},
            {"index", table.index(row)},
            {"pair", pair >= 0 ? nlohmann::json(pair) : nlohmann::json()},
            {"layout", layout >= 0 ? nlohmann::json(layout) : nlohmann::json()},
            {"start_s", jsonNumber(table.start(row))},
            {"duration_s", jsonNumber(table.duration(row))},
            {"quantities", quantities},
            {"metrics", metrics}};
}

// What a write gives: an Error once the stream has failed (a full disk, a closed pipe), which
// stops a CSV export at the row it failed on.
Result<void> written(const std::ostream& out)
{
    if (!out) {
        return Error{"the export could not be written"};
    }
    return {};
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

Result<void> writeCsv(const engine::RunRecord& run, std::ostream& out)
{
    if (run.spec.pmu.simulated) {
        out << "# " << engine::simulatedCountersNote(run.spec.pmu) << '\n';
    }
    if (run.data.summarised()) {
        writeSummaryCsv(run, out);
        return written(out);
    }
    const auto metrics = csvMetrics(run.data);
    writeCsvHeader(run.data, metrics, out);
    for (std::size_t row = 0; row < run.data.samples.size() && out; ++row) {
        writeCsvRow(run, metrics, row, out);
    }
    return written(out);
}

Result<void> writeJson(const engine::RunRecord& run, std::ostream& out)
{
    nlohmann::json samples = nlohmann::json::array();
    const auto metrics = rowMetrics(run.data);
    for (std::size_t row = 0; row < run.data.samples.size(); ++row) {
        samples.push_back(sampleJson(run.data, metrics, row));
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
    // Invalid UTF-8 in a name is replaced, never thrown: dump cannot fail but for the stream.
    out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return written(out);
}

Result<void> writeFolded(const engine::RunRecord& run, std::ostream& out)
{
    const auto& data = run.data;
    if (!data.profile) {
        return Error{"run " + std::to_string(run.row.id) + " has no profile (run it with --profile)"};
    }
    const auto& profile = *data.profile;
    for (const auto& [variant, stacks] : profile.foldedByVariant(true)) {
        for (const auto& [stack, n] : stacks) {
            out << data.variantNames.at(static_cast<std::size_t>(variant)) << ';' << stack << ' ' << n << '\n';
        }
    }
    if (!out) {
        return Error{"cannot write the folded stacks"};
    }
    return {};
}

}  // namespace nf::data
