#include "run_text.h"

#include <algorithm>

#include <fmt/format.h>

#include "report.h"

namespace nf::cli {

namespace {

std::string join(const nlohmann::json& array, const char* sep = ", ")
{
    std::string out;
    for (const auto& x : array) {
        out += (out.empty() ? "" : sep) + (x.is_string() ? x.get<std::string>() : x.dump());
    }
    return out;
}

void printSchedule(const nlohmann::json& spec, const nlohmann::json& env, std::ostream& out)
{
    const auto& m = env.value("measurement", nlohmann::json::object());
    const double chunk = spec.value("chunk", nlohmann::json(0)).is_number() ? spec["chunk"].get<double>() : 0;
    std::string how = chunk > 0 ? fmt::format("alternating {:g} ms chunks", chunk * 1e3)
                                : fmt::format("samples every {:g} s", spec.value("interval", 0.0));
    out << fmt::format("  {} variant(s) x {} repetition(s) x {:g} s, {}, order {}, warmup {:g} s\n",
                       spec["variants"].size(), spec.value("repetitions", 0), spec.value("duration", 0.0), how,
                       spec.value("order", std::string("?")), spec.value("warmup", 0.0));
    out << fmt::format("  worker CPU {}, seed {}\n", m.value("worker_cpu", -1),
                       spec.value("seed", nlohmann::json()).dump());
}

void printCounters(const nlohmann::json& env, std::ostream& out)
{
    const auto& c = env.value("counters", nlohmann::json::object());
    out << "  counters on " << c.value("target", std::string("?")) << ": "
        << (c.value("opened", nlohmann::json::array()).empty() ? "none" : join(c["opened"])) << '\n';
    for (const auto& line : missingCounters(env)) {
        out << "  not measured: " << line << '\n';
    }
}

void printClock(const nlohmann::json& env, std::ostream& out)
{
    const auto& t = env.value("tsc", nlohmann::json::object());
    const auto& m = env.value("measurement", nlohmann::json::object());
    if (t.empty()) {
        return;
    }
    out << fmt::format("  TSC {:.1f} MHz{}, read overhead {:g} ticks; harness loop {:.2f} ticks/op (not subtracted)\n",
                       t.value("hz", 0.0) / 1e6, t.value("invariant", false) ? " (invariant)" : " (NOT invariant)",
                       t.value("read_overhead_ticks", 0.0), m.value("loop_overhead_ticks_per_op", 0.0));
}

void printCodeSizes(const data::StoredRun& run, std::ostream& out)
{
    const auto sizes = codeSizes(run);
    const bool any = std::any_of(sizes.begin(), sizes.end(), [](const CodeSize& c) { return c.bytes.has_value(); });
    if (!any) {
        return;
    }
    out << "  code size of each variant's hot functions (ELF symbol table):\n";
    for (const auto& c : sizes) {
        if (!c.bytes) {
            out << "    " << c.variant << ": " << (c.error.empty() ? "not recorded" : c.error) << '\n';
            continue;
        }
        std::string parts;
        for (const auto& s : c.symbols) {
            parts += (parts.empty() ? "" : ", ") + s.value("name", std::string()) + " " +
                     std::to_string(s.value("bytes", std::uint64_t{0}));
        }
        const std::string delta = c.deltaBytes ? fmt::format(" ({:+d})", *c.deltaBytes) : "";
        out << fmt::format("    {}: {} bytes{}: {}\n", c.variant, *c.bytes, delta, parts);
    }
}

}  // namespace

std::vector<CodeSize> codeSizes(const data::StoredRun& run)
{
    const auto code = run.environment.value("measurement", nlohmann::json::object()).value("code", nlohmann::json());
    std::vector<CodeSize> out;
    std::optional<std::uint64_t> base;
    for (const auto& name : run.data.variantNames) {
        CodeSize c{name, {}, {}, nlohmann::json::array(), ""};
        const auto own = code.is_object() ? code.value(name, nlohmann::json::object()) : nlohmann::json::object();
        if (own.contains("bytes")) {
            c.bytes = own["bytes"].get<std::uint64_t>();
            c.symbols = own.value("symbols", nlohmann::json::array());
            if (base) {
                c.deltaBytes = static_cast<std::int64_t>(*c.bytes) - static_cast<std::int64_t>(*base);
            } else {
                base = c.bytes;
            }
        }
        c.error = own.value("error", std::string());
        out.push_back(std::move(c));
    }
    return out;
}

std::vector<std::string> missingCounters(const nlohmann::json& env)
{
    const auto& c = env.value("counters", nlohmann::json::object());
    // Group the missing counters by reason so a machine without a PMU reads as one line.
    std::vector<std::pair<std::string, std::string>> byReason;
    for (const auto& u : c.value("unsupported", nlohmann::json::array())) {
        const auto reason = u.value("reason", std::string());
        auto it = std::find_if(byReason.begin(), byReason.end(), [&](const auto& p) { return p.first == reason; });
        if (it == byReason.end()) {
            byReason.emplace_back(reason, u.value("name", std::string()));
        } else {
            it->second += ", " + u.value("name", std::string());
        }
    }
    std::vector<std::string> lines;
    lines.reserve(byReason.size());
    for (const auto& [reason, names] : byReason) {
        lines.push_back(names + " (" + reason + ")");
    }
    return lines;
}

void printRunHeader(const data::StoredRun& run, std::ostream& out)
{
    const auto& r = run.row;
    out << fmt::format("run {}  {}  {}{}\n", r.id, r.workload, engine::toString(r.status),
                       r.label.empty() ? "" : "  label: " + r.label);
    if (!r.statusReason.empty()) {
        out << "  " << r.statusReason << '\n';
    }
    out << fmt::format("  started {}{}, host {}, kernel {}\n", r.startedAt,
                       r.endedAt.empty() ? "" : ", ended " + r.endedAt, r.host, r.kernel);
    out << "  CPU " << r.cpuModel << '\n';
    printSchedule(run.spec, run.environment, out);
    if (!r.sweepId.empty()) {
        out << fmt::format("  sweep {}: point {} of {}, {}={} ('noisefloor compare --sweep {}' for every point)\n",
                           r.sweepId, r.sweepIndex + 1, run.spec["sweep"].value("points", 0), r.sweepParam,
                           r.sweepValue, r.id);
    }
    for (std::size_t v = 0; v < run.data.variantNames.size(); ++v) {
        std::string params;
        if (v < run.variantParams.size()) {
            for (const auto& [k, value] : run.variantParams[v].items()) {
                params += (params.empty() ? "" : " ") + k + "=" +
                          (value.is_string() ? value.get<std::string>() : value.dump());
            }
        }
        const auto measurement = run.environment.value("measurement", nlohmann::json::object());
        const auto facts = measurement.value("variant_facts", nlohmann::json::object())
                               .value(run.data.variantNames[v], nlohmann::json::object());
        std::string said;
        for (const auto& [k, value] : facts.items()) {
            said +=
                (said.empty() ? "" : ", ") + k + " " + (value.is_string() ? value.get<std::string>() : value.dump());
        }
        out << "  variant " << run.data.variantNames[v] << ": " << params << (said.empty() ? "" : " (" + said + ")")
            << '\n';
    }
    printCodeSizes(run, out);
    printCounters(run.environment, out);
    printClock(run.environment, out);
}

void printRunText(const data::StoredRun& run, const std::string& dbPath, std::ostream& out)
{
    const auto& r = run.row;
    printRunHeader(run, out);
    out << '\n';
    engine::writeSummaryText(run.data, out);
    out << fmt::format(
        "\nn counts repetitions; each repetition's value is its total of the numerator over its "
        "total of the denominator.\nstored as run {} in {}\n",
        r.id, dbPath);
}

}  // namespace nf::cli
