#include "engine/model/run_environment.h"

#include <algorithm>

namespace nf::engine {

namespace {

template <typename T>
T valueOr(const nlohmann::json& object, const char* key, T fallback)
{
    if (!object.is_object()) {
        return fallback;
    }
    const auto it = object.find(key);
    if (it == object.end()) {
        return fallback;
    }
    try {
        return it->get<T>();
    } catch (const nlohmann::json::exception&) {
        return fallback;
    }
}

std::vector<std::string> strings(const nlohmann::json& array)
{
    std::vector<std::string> out;
    if (array.is_array()) {
        for (const auto& x : array) {
            if (x.is_string()) {
                out.push_back(x.get<std::string>());
            }
        }
    }
    return out;
}

std::vector<NotMeasured> groupByReason(const nlohmann::json& unsupported)
{
    std::vector<NotMeasured> out;
    if (!unsupported.is_array()) {
        return out;
    }
    for (const auto& u : unsupported) {
        const auto reason = valueOr<std::string>(u, "reason", "");
        const auto name = valueOr<std::string>(u, "name", "");
        auto it = std::find_if(out.begin(), out.end(), [&](const NotMeasured& n) { return n.reason == reason; });
        if (it == out.end()) {
            out.push_back({name, reason});
        } else {
            it->counters += ", " + name;
        }
    }
    return out;
}

// The stored "rate" of an import --rate (rate_join.cpp): the figure as given, or the rate file's
// metric, tool and path.
std::string rateOrigin(const nlohmann::json& rate)
{
    if (!rate.is_object()) {
        return "";
    }
    if (const auto figure = valueOr<std::string>(rate, "figure", ""); !figure.empty()) {
        return "--rate " + figure;
    }
    return valueOr<std::string>(rate, "metric", "the rate") + " of " + valueOr<std::string>(rate, "tool", "?") +
           " output in " + valueOr<std::string>(rate, "file", "?");
}

}  // namespace

std::vector<std::string> RunEnvironment::notMeasuredLines() const
{
    std::vector<std::string> lines;
    lines.reserve(notMeasured.size());
    for (const auto& n : notMeasured) {
        lines.push_back(n.counters + " (" + n.reason + ")");
    }
    return lines;
}

std::string RunEnvironment::whyNotOpened(const std::string& counter) const
{
    for (const auto& [name, reason] : unsupported) {
        if (name == counter) {
            return reason;
        }
    }
    return "";
}

nlohmann::json RunEnvironment::section(const char* name) const
{
    const auto it = json.is_object() ? json.find(name) : json.end();
    return it != json.end() && it->is_object() ? *it : nlohmann::json::object();
}

RunEnvironment RunEnvironment::fromJson(nlohmann::json j)
{
    RunEnvironment env;
    env.json = j.is_object() ? std::move(j) : nlohmann::json::object();
    const auto system = env.section("system");
    env.hypervisor = valueOr(system, "hypervisor", false);
    env.boost = valueOr<std::string>(system, "boost", "");
    const auto tsc = env.section("tsc");
    if (!tsc.empty()) {
        env.tscHz = valueOr(tsc, "hz", 0.0);
        env.tscInvariant = valueOr(tsc, "invariant", true);
    }
    const auto measurement = env.section("measurement");
    env.workerCpu = valueOr(measurement, "worker_cpu", -1);
    const auto counters = env.section("counters");
    env.counterTarget = valueOr<std::string>(counters, "target", "");
    if (auto mode = parseCountersMode(valueOr<std::string>(counters, "mode", "")); mode) {
        env.countersMode = *mode;
        env.counterTarget +=
            (env.counterTarget.empty() ? "" : ", ") + std::string("hardware events in ") + std::string(describe(*mode));
    }
    env.countersOpened = strings(counters.value("opened", nlohmann::json::array()));
    const auto unsupported = counters.value("unsupported", nlohmann::json::array());
    env.notMeasured = groupByReason(unsupported);
    if (unsupported.is_array()) {
        for (const auto& u : unsupported) {
            env.unsupported.emplace_back(valueOr<std::string>(u, "name", ""), valueOr<std::string>(u, "reason", ""));
        }
    }
    const auto tool = env.section("tool");
    env.toolVersion = valueOr<std::string>(tool, "version", "");
    env.commandLine = valueOr<std::string>(tool, "command_line", "");
    const auto imp = env.section("import");
    if (env.json.contains("import")) {
        env.import = ImportOrigin{
            .format = valueOr<std::string>(imp, "format", "?"),
            .files = strings(imp.value("files", nlohmann::json())),
            .hostFrom = valueOr<std::string>(imp, "host_from", "unknown"),
            .kernelFrom = valueOr<std::string>(imp, "kernel_from", "unknown"),
            .reconstructed = valueOr(imp, "reconstructed", false),
            .detected = valueOr<std::string>(imp, "detected", ""),
            .tool = valueOr<std::string>(imp, "tool", ""),
            .toolVersion = valueOr<std::string>(imp, "tool_version", ""),
            .summaries = valueOr(imp, "summaries", false),
            .notes = strings(imp.value("notes", nlohmann::json())),
            .rate = rateOrigin(imp.value("rate", nlohmann::json())),
        };
        env.kind = MeasurementKind::Import;
    } else if (valueOr<std::string>(measurement, "kind", "") == "live") {
        env.kind = MeasurementKind::Live;
    } else if (measurement.contains("commands")) {
        env.kind = MeasurementKind::Command;
    }
    return env;
}

std::string ImportOrigin::describe() const
{
    std::string names;
    for (const auto& f : files) {
        names += (names.empty() ? "" : ", ") + f;
    }
    std::string how = detected;
    if (!toolVersion.empty()) {
        how += (how.empty() ? "" : ", ") + std::string("version ") + toolVersion;
    }
    return format + " output in " + names + (how.empty() ? "" : " (" + how + ")");
}

}  // namespace nf::engine
