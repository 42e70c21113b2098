#include "engine/model/experiment_spec.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/model/parameter.h"

namespace nf::engine {

bool validVariantName(const std::string& name)
{
    if (name.empty() || name.size() > 64) {
        return false;
    }
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '-' || c == '.';
        if (!ok) {
            return false;
        }
    }
    return true;
}

namespace {

// A field that does not hold what the spec needs; experimentSpecFromJson turns it into an Error.
struct BadField {
    std::string message;
};

// `value` as a T when it is an integer T holds (an integral float such as 5.0 too), else BadField:
// a plain cast would wrap 4294967297 to 1, and is undefined for 1e300.
template <typename T>
T integer(const nlohmann::json& value, const std::string& key)
{
    using Limits = std::numeric_limits<T>;
    bool fits = false;
    if (value.is_number_unsigned()) {
        fits = value.get<std::uint64_t>() <= static_cast<std::uint64_t>(Limits::max());
    } else if (value.is_number_integer()) {
        const auto v = value.get<std::int64_t>();
        fits = v >= static_cast<std::int64_t>(Limits::min()) &&
               (v < 0 || static_cast<std::uint64_t>(v) <= static_cast<std::uint64_t>(Limits::max()));
    } else if (value.is_number_float()) {
        const double v = value.get<double>();
        fits = v == std::trunc(v) && v >= static_cast<double>(Limits::min()) && v < std::ldexp(1.0, Limits::digits);
    }
    if (!fits) {
        throw BadField{key + " " + value.dump() + ": expected an integer from " + std::to_string(Limits::min()) +
                       " to " + std::to_string(Limits::max())};
    }
    return value.is_number_float() ? static_cast<T>(value.get<double>()) : value.get<T>();
}

}  // namespace

std::string_view toString(Order order)
{
    switch (order) {
        case Order::Interleaved: return "interleaved";
        case Order::Random: return "random";
        case Order::Blocked: return "blocked";
    }
    return "interleaved";
}

Result<Order> parseOrder(std::string_view text)
{
    for (auto o : {Order::Interleaved, Order::Random, Order::Blocked}) {
        if (toString(o) == text) {
            return o;
        }
    }
    return Error{std::string(text) + ": expected interleaved, random or blocked"};
}

std::string_view toString(CountersMode mode)
{
    return mode == CountersMode::User ? "user" : "all";
}

Result<CountersMode> parseCountersMode(std::string_view text)
{
    for (auto m : {CountersMode::User, CountersMode::All}) {
        if (toString(m) == text) {
            return m;
        }
    }
    return Error{"'" + std::string(text) + "': expected user (user mode only) or all (user and kernel mode)"};
}

std::string_view describe(CountersMode mode)
{
    return mode == CountersMode::User ? "user mode (kernel excluded)" : "user and kernel mode";
}

Result<std::map<std::string, std::string>> parseOverrides(std::string_view text)
{
    std::map<std::string, std::string> overrides;
    std::string_view rest = text;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        auto kv = NF_TRY(parseAssignment(rest.substr(0, comma)));
        if (!overrides.emplace(kv.first, kv.second).second) {
            return Error{"'" + kv.first + "' set twice"};
        }
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (comma != std::string_view::npos && rest.empty()) {
            return Error{"trailing ','"};
        }
    }
    if (overrides.empty()) {
        return Error{"expected NAME or NAME:key=value[,key=value...]"};
    }
    return overrides;
}

std::string toString(const PmuChoice& pmu)
{
    if (!pmu.simulated) {
        return "perf";
    }
    const PmuChoice defaults;
    std::string settings;
    const auto add = [&](const std::string& kv) { settings += (settings.empty() ? ":" : ",") + kv; };
    if (pmu.running != defaults.running) {
        add("running=" + nlohmann::json(pmu.running).dump());
    }
    if (pmu.periodMs != defaults.periodMs) {
        add("period_ms=" + nlohmann::json(pmu.periodMs).dump());
    }
    if (pmu.failRead != defaults.failRead) {
        add("fail_read=" + std::to_string(pmu.failRead));
    }
    return "simulated" + settings;
}

std::string simulatedCountersNote(const PmuChoice& pmu)
{
    if (!pmu.simulated) {
        return "";
    }
    std::string note =
        "SIMULATED counters (--pmu " + toString(pmu) +
        "): cycles, instructions, branches, branch-misses and cache-misses were made up from the TSC and the "
        "operation count at fixed rates; they test noisefloor, not this machine";
    if (pmu.running < 1) {
        note += "; counted " + nlohmann::json(pmu.running * 100).dump() + "% of every " +
                nlohmann::json(pmu.periodMs).dump() + " ms (multiplexed)";
    }
    return note;
}

Result<PmuChoice> parsePmu(std::string_view text)
{
    PmuChoice pmu;
    if (text == "perf") {
        return pmu;
    }
    const auto colon = text.find(':');
    if (text.substr(0, colon) != "simulated") {
        return Error{"'" + std::string(text) + "': expected perf or simulated[:running=F,period_ms=P,fail_read=N]"};
    }
    pmu.simulated = true;
    if (colon == std::string_view::npos) {
        return pmu;
    }
    auto settings = parseOverrides(text.substr(colon + 1));
    if (!settings) {
        return Error{"'" + std::string(text) + "': " + settings.error().message};
    }
    for (const auto& [key, value] : *settings) {
        char* end = nullptr;
        const double number = std::strtod(value.c_str(), &end);
        if (value.empty() || end != value.c_str() + value.size()) {
            return Error{"'" + std::string(text) + "': " + key + "=" + value + " is not a number"};
        }
        if (key == "running") {
            pmu.running = number;
        } else if (key == "period_ms") {
            pmu.periodMs = number;
        } else if (key == "fail_read") {
            if (number != std::trunc(number) || number < 0 || number > 1e9) {
                return Error{"'" + std::string(text) + "': fail_read=" + value + " is not a count of reads"};
            }
            pmu.failRead = static_cast<int>(number);
        } else {
            return Error{"'" + std::string(text) + "': no setting '" + key +
                         "' (the simulated PMU takes running, period_ms and fail_read)"};
        }
    }
    return pmu;
}

Result<VariantSpec> parseVariant(std::string_view text)
{
    VariantSpec v;
    const auto colon = text.find(':');
    v.name = std::string(text.substr(0, colon));
    if (!validVariantName(v.name)) {
        return Error{"'" + std::string(text) + "': a variant name is 1-64 letters, digits, '_', '-' or '.'"};
    }
    if (colon == std::string_view::npos) {
        return v;
    }
    auto overrides = parseOverrides(text.substr(colon + 1));
    if (!overrides) {
        return Error{std::string(text) + ": " + overrides.error().message};
    }
    v.overrides = std::move(*overrides);
    return v;
}

nlohmann::json toJson(const ExperimentSpec& spec)
{
    nlohmann::json variants = nlohmann::json::array();
    for (const auto& v : spec.variants) {
        variants.push_back({{"name", v.name}, {"overrides", v.overrides}});
    }
    nlohmann::json j = {
        {"workload", spec.workload},       {"params", spec.params},     {"variants", variants},
        {"repetitions", spec.repetitions}, {"duration", spec.duration}, {"warmup", spec.warmup},
        {"interval", spec.interval},       {"cpus", spec.cpus},         {"counters", spec.counters},
        {"order", toString(spec.order)},   {"label", spec.label},
    };
    j["pmu"] = toString(spec.pmu);
    j["chunk"] = spec.chunk ? nlohmann::json(*spec.chunk) : nlohmann::json(nullptr);
    j["seed"] = spec.seed ? nlohmann::json(*spec.seed) : nlohmann::json(nullptr);
    if (!spec.primaryMetric.empty()) {  // written only when chosen
        j["primary_metric"] = spec.primaryMetric;
    }
    if (!spec.housekeeping.empty()) {  // written only when given
        j["housekeeping"] = spec.housekeeping;
    }
    if (spec.shareCpus) {  // written only when set, so runs that did not share read as before
        j["share_cpus"] = true;
    }
    if (spec.until) {  // written only when set: "until": "decided", "max_time", "margin", "alpha"
        j["until"] = "decided";
        j["max_time"] = spec.until->maxTime;
        j["margin"] = spec.until->marginPct;
        j["alpha"] = spec.until->alpha;
    }
    if (spec.layouts) {  // written only when resolved or given, so older runs read as before
        j["layouts"] = *spec.layouts;
    }
    if (spec.setups) {  // written only when given or resolved, so older runs read as before
        j["setups"] = *spec.setups;
    }
    if (spec.profileHz) {
        j["profile_hz"] = *spec.profileHz;
    }
    // Always written, null while unresolved: a spec without the key is one from before the option,
    // which counted user and kernel mode.
    j["counters_mode"] = spec.countersMode ? nlohmann::json(toString(*spec.countersMode)) : nlohmann::json(nullptr);
    if (spec.sweep) {
        const auto& s = *spec.sweep;
        j["sweep"] = {{"id", s.id}, {"param", s.param}, {"value", s.value}, {"index", s.index}, {"points", s.points}};
    }
    return j;
}

Result<ExperimentSpec> experimentSpecFromJson(const nlohmann::json& j)
{
    if (!j.is_object()) {
        return Error{std::string("experiment spec: expected an object, not ") + j.type_name()};
    }
    try {
        ExperimentSpec spec;
        spec.workload = j.at("workload").get<std::string>();
        spec.params = j.value("params", std::map<std::string, std::string>{});
        for (const auto& v : j.at("variants")) {
            spec.variants.push_back(
                {v.at("name").get<std::string>(), v.value("overrides", std::map<std::string, std::string>{})});
        }
        if (j.contains("repetitions")) {
            spec.repetitions = integer<int>(j["repetitions"], "repetitions");
        }
        spec.duration = j.value("duration", spec.duration);
        spec.warmup = j.value("warmup", spec.warmup);
        spec.interval = j.value("interval", spec.interval);
        if (j.contains("cpus")) {
            if (!j["cpus"].is_array()) {
                throw BadField{"cpus " + j["cpus"].dump() + ": expected a list of CPU numbers"};
            }
            for (const auto& cpu : j["cpus"]) {
                spec.cpus.push_back(integer<int>(cpu, "cpus"));
            }
        }
        if (j.contains("housekeeping")) {
            if (!j["housekeeping"].is_array()) {
                throw BadField{"housekeeping " + j["housekeeping"].dump() + ": expected a list of CPU numbers"};
            }
            for (const auto& cpu : j["housekeeping"]) {
                spec.housekeeping.push_back(integer<int>(cpu, "housekeeping"));
            }
        }
        spec.shareCpus = j.value("share_cpus", false);
        spec.counters = j.value("counters", std::vector<std::string>{});
        if (j.contains("pmu") && !j["pmu"].is_null()) {
            auto pmu = parsePmu(j["pmu"].get<std::string>());
            if (!pmu) {
                throw BadField{"pmu " + pmu.error().message};
            }
            spec.pmu = *pmu;
        }
        auto order = NF_TRY(parseOrder(j.value("order", std::string("interleaved"))));
        spec.order = order;
        spec.label = j.value("label", std::string());
        spec.primaryMetric = j.value("primary_metric", std::string());
        if (j.contains("chunk") && !j["chunk"].is_null()) {
            spec.chunk = j["chunk"].get<double>();
        }
        if (j.contains("layouts") && !j["layouts"].is_null()) {
            spec.layouts = integer<int>(j["layouts"], "layouts");
        }
        if (j.contains("setups") && !j["setups"].is_null()) {
            spec.setups = integer<int>(j["setups"], "setups");
        }
        if (j.contains("profile_hz") && !j["profile_hz"].is_null()) {
            spec.profileHz = integer<int>(j["profile_hz"], "profile_hz");
        }
        if (!j.contains("counters_mode")) {
            spec.countersMode = CountersMode::All;  // written before the option: the only mode there was
        } else if (!j["counters_mode"].is_null()) {
            if (!j["counters_mode"].is_string()) {
                throw BadField{"counters_mode " + j["counters_mode"].dump() + ": expected \"user\" or \"all\""};
            }
            auto mode = parseCountersMode(j["counters_mode"].get<std::string>());
            if (!mode) {
                throw BadField{"counters_mode " + mode.error().message};
            }
            spec.countersMode = *mode;
        }
        if (j.contains("seed") && !j["seed"].is_null()) {
            spec.seed = integer<std::uint64_t>(j["seed"], "seed");
        }
        if (j.contains("until") && !j["until"].is_null()) {
            if (!j["until"].is_string() || j["until"].get<std::string>() != "decided") {
                throw BadField{"until " + j["until"].dump() + ": expected \"decided\""};
            }
            UntilDecided until;
            for (const auto& [key, field] : {std::pair{"max_time", &until.maxTime},
                                             std::pair{"margin", &until.marginPct}, std::pair{"alpha", &until.alpha}}) {
                if (j.contains(key)) {
                    if (!j[key].is_number()) {
                        throw BadField{std::string(key) + " " + j[key].dump() + ": expected a number"};
                    }
                    *field = j[key].get<double>();
                }
            }
            spec.until = until;
        } else {
            for (const char* key : {"max_time", "margin", "alpha"}) {
                if (j.contains(key)) {
                    throw BadField{std::string(key) + ": only with \"until\": \"decided\""};
                }
            }
        }
        if (j.contains("sweep") && !j["sweep"].is_null()) {
            const auto& s = j["sweep"];
            spec.sweep = SweepPoint{s.at("id").get<std::string>(), s.at("param").get<std::string>(),
                                    s.at("value").get<std::string>(), integer<int>(s.at("index"), "sweep.index"),
                                    integer<int>(s.at("points"), "sweep.points")};
        }
        return spec;
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("experiment spec: ") + e.what()};
    } catch (const BadField& e) {
        return Error{"experiment spec: " + e.message};
    }
}

std::optional<std::string> ExperimentSpec::pinnedLayout(std::size_t variant) const
{
    if (variant < variants.size()) {
        if (const auto it = variants[variant].overrides.find(kLayoutParam); it != variants[variant].overrides.end()) {
            return it->second;
        }
    }
    if (const auto it = params.find(kLayoutParam); it != params.end()) {
        return it->second;
    }
    return std::nullopt;
}

}  // namespace nf::engine
