// noisefloor list | show: read stored runs.

#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/cli/cli.h"
#include "app/cli/run_lookup.h"
#include "data/run_store.h"
#include "data/schema.h"
#include "engine/report/run_summary.h"
#include "engine/report/run_text.h"
#include "engine/report/text_table.h"

namespace nf::cli {

namespace {

nlohmann::json rowJson(const engine::RunRow& r)
{
    return {{"id", r.id},
            {"label", r.label},
            {"workload", r.workload},
            {"status", engine::toString(r.status)},
            {"status_reason", r.statusReason},
            {"started_at", r.startedAt},
            {"ended_at", r.endedAt},
            {"host", r.host},
            {"kernel", r.kernel},
            {"cpu_model", r.cpuModel},
            {"tool_version", r.toolVersion},
            {"variants", r.variants},
            {"repetitions", r.repetitions},
            {"sweep",
             r.sweepId.empty()
                 ? nlohmann::json(nullptr)
                 : nlohmann::json{
                       {"id", r.sweepId}, {"param", r.sweepParam}, {"value", r.sweepValue}, {"index", r.sweepIndex}}}};
}

// Loads RUN ("last" or an id); prints the error and sets *status on failure.
std::optional<engine::RunRecord> loadNamedRun(const Context& ctx, const std::string& name, int* status)
{
    auto db = openExisting(ctx);
    if (!db) {
        *status = failWith(db.error());
        return std::nullopt;
    }
    auto run = cli::loadNamedRun(*db, name);
    if (!run) {
        *status = failWith(run.error());
        return std::nullopt;
    }
    return std::move(*run);
}

int listRuns(const Context& ctx, const std::string& format)
{
    if (!std::filesystem::exists(databasePath(ctx))) {
        if (format == "json") {
            std::cout << "[]\n";
        } else {
            std::cout << "no runs yet (" << databasePath(ctx) << " does not exist)\n";
        }
        return 0;
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadOnly);
    if (!db) {
        return fail(kExitRuntime, db.error().message);
    }
    auto runs = data::listRuns(*db);
    if (!runs) {
        return fail(kExitRuntime, runs.error().message);
    }
    if (format == "json") {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : *runs) {
            out.push_back(rowJson(r));
        }
        std::cout << out.dump(2) << '\n';
        return 0;
    }
    engine::TextTable table({">id", "started", "status", "workload", ">variants", ">reps", "label", "sweep point"});
    for (const auto& r : *runs) {
        table.addRow({std::to_string(r.id), r.startedAt, std::string(engine::toString(r.status)), r.workload,
                      std::to_string(r.variants), std::to_string(r.repetitions), r.label,
                      r.sweepId.empty() ? "" : r.sweepParam + "=" + r.sweepValue});
    }
    table.write(std::cout);
    return 0;
}

int showRun(const Context& ctx, const std::string& name, const std::string& format)
{
    int status = 0;
    auto run = loadNamedRun(ctx, name, &status);
    if (!run) {
        return status;
    }
    if (format == "json") {
        nlohmann::json variants = nlohmann::json::array();
        const auto code = codeSizes(*run);
        for (std::size_t v = 0; v < run->data.variantNames.size(); ++v) {
            nlohmann::json variant = {{"name", run->data.variantNames[v]}, {"params", run->variantParams.at(v)}};
            if (code[v].bytes) {
                variant["code_bytes"] = *code[v].bytes;
                variant["code_bytes_delta"] =
                    code[v].deltaBytes ? nlohmann::json(*code[v].deltaBytes) : nlohmann::json(nullptr);
                variant["code_symbols"] = code[v].symbols;
            }
            variants.push_back(std::move(variant));
        }
        nlohmann::json out = rowJson(run->row);
        out["spec"] = engine::toJson(run->spec);
        out["environment"] = run->environment.json;
        out["warnings"] = run->warnings;
        out["variants"] = variants;
        out["summary"] = engine::summaryJson(run->data);
        if (run->spec.pmu.simulated) {
            out[engine::kSimulatedCountersKey] = engine::simulatedCountersNote(run->spec.pmu);  // sorts first
        }
        std::cout << out.dump(2) << '\n';
        return 0;
    }
    engine::printRunText(*run, databasePath(ctx), std::cout);
    return 0;
}

}  // namespace

Command addListCommand(CLI::App& app, Context& ctx)
{
    auto format = std::make_shared<std::string>("text");
    auto* sub = app.add_subcommand("list", "List stored runs, newest first");
    sub->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
    return {sub, [format, &ctx] { return listRuns(ctx, *format); }};
}

Command addShowCommand(CLI::App& app, Context& ctx)
{
    auto run = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>("text");
    auto* sub = app.add_subcommand("show", "Show a run: spec, environment, variants and per-metric summaries");
    sub->add_option("run", *run, "Run id, or 'last'")->required();
    sub->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
    return {sub, [run, format, &ctx] { return showRun(ctx, *run, *format); }};
}

}  // namespace nf::cli
