#include "app/cli/run_lookup.h"

#include <filesystem>

#include "data/schema.h"
#include "engine/analysis/text_input.h"

namespace nf::cli {

namespace {

constexpr int kUsageMark = -2;  // Error::errnum of a usage error

}  // namespace

std::string databasePath(const Context& ctx)
{
    return ctx.dbPath.empty() ? data::defaultDatabasePath() : ctx.dbPath;
}

Error usageError(std::string message)
{
    return Error{std::move(message), kUsageMark};
}

int failWith(const Error& error)
{
    return fail(error.errnum == kUsageMark ? kExitUsage : kExitRuntime, error.message);
}

Result<data::Database> openExisting(const Context& ctx)
{
    const std::string path = databasePath(ctx);
    if (!std::filesystem::exists(path)) {
        return Error{path + " does not exist (no runs recorded there yet)"};
    }
    return openDatabase(ctx, data::Database::Mode::ReadOnly);
}

Result<engine::RunRecord> loadNamedRun(data::Database& db, const std::string& name)
{
    auto parsed = engine::parseRunId(name);
    if (!parsed) {
        return usageError(parsed.error().message);
    }
    std::int64_t id = *parsed;
    if (id == 0) {
        auto runs = NF_TRY(data::listRuns(db));
        if (runs.empty()) {
            return Error{"no runs in " + db.path()};
        }
        id = runs.front().id;
    }
    return data::loadRun(db, id);
}

Result<engine::RunRecord> loadRunWithLabel(data::Database& db, const std::string& label)
{
    auto runs = NF_TRY(data::listRuns(db));
    for (const auto& r : runs) {  // newest first
        if (r.label == label) {
            return data::loadRun(db, r.id);
        }
    }
    return usageError("--label " + label + ": no run with that label in " + db.path());
}

Result<std::vector<engine::RunRecord>> loadRunsWithLabel(data::Database& db, const std::string& label)
{
    auto runs = NF_TRY(data::listRuns(db));
    std::vector<engine::RunRecord> out;
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {  // oldest first
        if (it->label == label && it->status == engine::RunStatus::Complete) {
            auto run = NF_TRY(data::loadRun(db, it->id));
            out.push_back(std::move(run));
        }
    }
    if (out.empty()) {
        return usageError("--label " + label + ": no complete run with that label in " + db.path());
    }
    return out;
}

}  // namespace nf::cli
