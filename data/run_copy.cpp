// Copying runs between databases with ATTACH: the rows of every per-run table, the ids of runs,
// variants, quantities and repetitions renumbered through temporary maps.

#include "data/run_copy.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "data/private_dir.h"
#include "data/process_identity.h"
#include "data/schema.h"
#include "data/sqlite_uri.h"
#include "engine/model/experiment_spec.h"

namespace nf::data {

namespace {

// The columns of `table` in the main database, without those named in `leaveOut`.
Result<std::vector<std::string>> columnsOf(Database& db, const std::string& table,
                                           const std::set<std::string>& leaveOut)
{
    auto columns = NF_TRY(db.query<std::string>("SELECT name FROM pragma_table_info(?1)", table));
    std::erase_if(columns, [&](const std::string& name) { return leaveOut.contains(name); });
    return columns;
}

std::string joined(const std::vector<std::string>& names, const std::string& prefix)
{
    std::string out;
    for (const auto& n : names) {
        out += (out.empty() ? "" : ", ") + prefix + n;
    }
    return out;
}

// INSERT INTO main.TABLE (remapped..., the other columns) SELECT (their expressions..., s.<column>)
// FROM src.TABLE s <from> WHERE <where>, with ?1 the source's run id and ?2 the copy's where the
// expressions use them.
Result<void> copyRows(Database& db, const std::string& table,
                      const std::vector<std::pair<std::string, std::string>>& set, const std::string& from,
                      const std::string& where, std::int64_t oldRun, std::int64_t newRun)
{
    std::set<std::string> leaveOut{"id"};
    for (const auto& [column, expr] : set) {
        leaveOut.insert(column);
    }
    const auto rest = NF_TRY(columnsOf(db, table, leaveOut));
    std::string names;
    std::string values;
    for (const auto& [column, expr] : set) {
        names += (names.empty() ? "" : ", ") + column;
        values += (values.empty() ? "" : ", ") + expr;
    }
    if (!rest.empty()) {
        names += (names.empty() ? "" : ", ") + joined(rest, "");
        values += (values.empty() ? "" : ", ") + joined(rest, "s.");
    }
    auto stmt = NF_TRY(db.prepare("INSERT INTO main." + table + " (" + names + ") SELECT " + values + " FROM src." +
                                  table + " s " + from + " WHERE " + where));
    const std::int64_t runs[] = {oldRun, newRun};
    for (int index = 1; index <= std::min(stmt.parameterCount(), 2); ++index) {
        stmt.bind(index, runs[index - 1]);
    }
    return stmt.run();
}

// One run: its row, then every table that hangs off it, with ids renumbered.
Result<std::int64_t> copyOne(Database& db, std::int64_t oldRun, const std::string& origin)
{
    const std::string env =
        origin.empty() ? std::string("s.environment_json")
                       : "json_set(s.environment_json, '$.copied_from', json_object('origin', ?3, 'run', s.id))";
    const auto columns = NF_TRY(columnsOf(db, "runs", {"id", "environment_json"}));
    auto insert = NF_TRY(db.prepare("INSERT INTO main.runs (environment_json, " + joined(columns, "") + ") SELECT " +
                                    env + ", " + joined(columns, "s.") + " FROM src.runs s WHERE s.id = ?1"));
    insert.bind(1, oldRun);
    if (!origin.empty()) {
        insert.bind(3, origin);
    }
    NF_TRY(insert.run());
    const std::int64_t newRun = db.lastInsertId();
    const std::string byRun = "s.run_id = ?1";
    const std::pair<std::string, std::string> run{"run_id", "?2"};
    for (const char* table : {"variants", "quantities", "metrics", "run_warnings", "decisions", "decision_looks",
                              "profiles", "profile_symbols", "profile_chunks", "profile_stacks", "import_blocks"}) {
        NF_TRY(copyRows(db, table, {run}, "", byRun, oldRun, newRun));
    }
    // A profile's symbols are found again by their name in the run.
    NF_TRY(copyRows(db, "profile_counts",
                    {run,
                     {"symbol_id",
                      "(SELECT m.id FROM main.profile_symbols m JOIN src.profile_symbols ss ON ss.name = m.name "
                      "WHERE m.run_id = ?2 AND ss.id = s.symbol_id)"}},
                    "", byRun, oldRun, newRun));
    // Variants and quantities are found again here by their index in the run.
    NF_TRY(copyRows(db, "repetitions",
                    {run,
                     {"variant_id",
                      "(SELECT v.id FROM main.variants v JOIN src.variants sv ON sv.idx = v.idx "
                      "WHERE v.run_id = ?2 AND sv.id = s.variant_id)"}},
                    "", byRun, oldRun, newRun));
    NF_TRY(db.exec("DELETE FROM temp.repetition_map; DELETE FROM temp.quantity_map"));
    NF_TRY(
        db.run("INSERT INTO temp.repetition_map SELECT sr.id, r.id FROM src.repetitions sr "
               "JOIN src.variants sv ON sv.id = sr.variant_id JOIN main.variants v ON v.run_id = ?2 AND v.idx = sv.idx "
               "JOIN main.repetitions r ON r.variant_id = v.id AND r.idx = sr.idx WHERE sr.run_id = ?1",
               oldRun, newRun));
    NF_TRY(
        db.run("INSERT INTO temp.quantity_map SELECT sq.id, q.id FROM src.quantities sq "
               "JOIN main.quantities q ON q.run_id = ?2 AND q.idx = sq.idx WHERE sq.run_id = ?1",
               oldRun, newRun));
    const std::string rep = "JOIN temp.repetition_map rm ON rm.old = s.repetition_id";
    NF_TRY(copyRows(db, "samples", {{"repetition_id", "rm.new"}}, rep, "1", oldRun, newRun));
    NF_TRY(copyRows(db, "summaries", {{"repetition_id", "rm.new"}, {"quantity_id", "qm.new"}},
                    rep + " JOIN temp.quantity_map qm ON qm.old = s.quantity_id", "1", oldRun, newRun));
    return newRun;
}

// Every table of `db` with a column that points at a run or a repetition.
Result<std::set<std::string>> tablesHoldingRuns(Database& db)
{
    const auto tables = NF_TRY(
        db.query<std::string>("SELECT DISTINCT m.name FROM main.sqlite_master m JOIN pragma_table_info(m.name) c "
                              "WHERE m.type = 'table' AND c.name IN ('run_id', 'repetition_id')"));
    return std::set<std::string>(tables.begin(), tables.end());
}

// Run `id` of the attached source as the readers here need it: a spec that reads as one, each
// sample's value blob 8 bytes per quantity of the run, and each sample row as it was written (its
// checksum; the source is at this schema, so every row has one).
Result<void> checkSourceRun(Database& db, std::int64_t id)
{
    const auto spec =
        NF_TRY(db.queryOne<std::string>("SELECT CAST(spec_json AS TEXT) FROM src.runs WHERE id = ?1", id));
    if (!spec) {
        return Error{"it has no row"};
    }
    const auto json = nlohmann::json::parse(*spec, nullptr, false);
    if (json.is_discarded()) {
        return Error{"its spec is not JSON"};
    }
    if (auto parsed = engine::experimentSpecFromJson(json); !parsed) {
        return Error{"its spec is not a spec: " + parsed.error().message};
    }
    const auto wrong = NF_TRY(db.queryOne<std::int64_t>(
        "SELECT count(*) FROM src.samples s JOIN src.repetitions r ON r.id = s.repetition_id WHERE r.run_id = ?1 "
        "AND (typeof(s.vals) <> 'blob' OR length(s.vals) <> 8 * (SELECT count(*) FROM src.quantities q "
        "WHERE q.run_id = ?1))",
        id));
    if (wrong && *wrong > 0) {
        return Error{std::to_string(*wrong) +
                     " of its samples have a value blob whose length is not 8 bytes per quantity"};
    }
    const auto damaged = NF_TRY(db.queryOne<std::int64_t>(
        "SELECT count(*) FROM src.samples s JOIN src.repetitions r ON r.id = s.repetition_id WHERE r.run_id = ?1 "
        "AND s.checksum IS NOT nf_sample_checksum(s.idx, s.pair, s.start_s, s.duration_s, s.vals)",
        id));
    if (damaged && *damaged > 0) {
        return Error{std::to_string(*damaged) +
                     " of its samples do not match their checksums (the file was changed after they were written, "
                     "or is damaged)"};
    }
    return {};
}

// The source as a database of this schema: the file itself, or an upgraded copy in a private
// temporary directory (removed with the Source).
struct Source {
    std::string path;
    std::optional<PrivateDir> temporary;
};

Result<Source> openSource(const std::string& fromPath)
{
    Database src = NF_TRY(openStore(fromPath, Database::Mode::ReadOnly));
    if (NF_TRY(storedSchemaVersion(src)) == schemaVersion()) {
        return Source{fromPath, std::nullopt};
    }
    PrivateDir dir = NF_TRY(
        PrivateDir::createTemporary("noisefloor-copy").withContext("cannot upgrade a copy of " + fromPath + ": "));
    const std::string copy = dir.file("source.db");  // VACUUM INTO makes it, and refuses a file that exists
    NF_TRY(src.run("VACUUM INTO ?1", copy).withContext("cannot upgrade a copy of " + fromPath + ": "));
    NF_TRY(openStore(copy));
    return Source{copy, std::move(dir)};
}

}  // namespace

const std::vector<std::string>& perRunTables()
{
    static const std::vector<std::string> tables = {
        "runs",           "variants",       "quantities",     "metrics",        "repetitions", "samples",
        "summaries",      "run_warnings",   "decisions",      "decision_looks", "profiles",    "profile_symbols",
        "profile_chunks", "profile_counts", "profile_stacks", "import_blocks"};
    return tables;
}

Result<std::vector<CopiedRun>> copyRuns(Database& to, const std::string& fromPath,
                                        const std::vector<std::int64_t>& runs, const std::string& origin,
                                        const std::stop_token& stop, bool checkIntegrity)
{
    Source source = NF_TRY(openSource(fromPath));
    struct Cleanup {  // made before ATTACH: an upgraded copy goes even when ATTACH fails
        Database& db;
        Source& source;
        ~Cleanup()
        {
            sqlite3_progress_handler(db.handle(), 0, nullptr, nullptr);
            (void)db.exec("DETACH DATABASE src");
            source.temporary.reset();  // after the detach: the copy's directory and all in it
        }
    };
    const Cleanup cleanup{to, source};
    // A stop interrupts whatever statement runs (a huge or hostile source can keep one busy).
    sqlite3_progress_handler(
        to.handle(), 10000,
        [](void* token) { return static_cast<const std::stop_token*>(token)->stop_requested() ? 1 : 0; },
        const_cast<std::stop_token*>(&stop));  // NOLINT(cppcoreguidelines-pro-type-const-cast): only read
    auto stopped = [&] { return Error{"stopped before the copy was committed; nothing was stored"}; };
    // Read-only: a copy never takes the source's write lock (a run may be storing there).
    NF_TRY(to.run("ATTACH DATABASE ?1 AS src", fileUri(source.path, "mode=ro"))
               .withContext("cannot read " + fromPath + ": "));
    if (checkIntegrity) {
        auto problems = to.query<std::string>("PRAGMA src.integrity_check(1)");
        if (stop.stop_requested()) {
            return stopped();
        }
        if (!problems) {
            return Error{fromPath + " cannot be checked: " + problems.error().message};
        }
        if (problems->size() != 1 || problems->front() != "ok") {
            std::string first = problems->empty() ? std::string("no answer") : problems->front();
            if (const auto nl = first.rfind('\n'); nl != std::string::npos) {  // "*** in database src ***\n..."
                first.erase(0, nl + 1);
            }
            return Error{fromPath + " fails SQLite's integrity check (" + first + "); nothing was copied"};
        }
    }
    // A table this copy does not know would be left behind: refuse rather than copy half a run.
    for (const auto& table : NF_TRY(tablesHoldingRuns(to))) {
        if (std::find(perRunTables().begin(), perRunTables().end(), table) == perRunTables().end()) {
            return Error{"cannot copy runs: table " + table + " is not known to the copy"};
        }
    }
    NF_TRY(
        to.exec("CREATE TEMP TABLE IF NOT EXISTS repetition_map (old INTEGER PRIMARY KEY, new INTEGER); "
                "CREATE TEMP TABLE IF NOT EXISTS quantity_map (old INTEGER PRIMARY KEY, new INTEGER)"));
    std::vector<std::int64_t> ids = runs;
    if (ids.empty()) {
        ids = NF_TRY(to.query<std::int64_t>("SELECT id FROM src.runs ORDER BY id"));
    }
    auto tx = NF_TRY(Transaction::begin(to));
    std::vector<CopiedRun> copied;
    for (const auto id : ids) {
        CopiedRun& c = copied.emplace_back();
        c.sourceId = id;
        const auto status = NF_TRY(to.queryOne<std::string>("SELECT status FROM src.runs WHERE id = ?1", id));
        if (!status) {
            return Error{fromPath + " has no run " + std::to_string(id)};
        }
        if (*status == "running") {
            c.skipped = "still running there";
            continue;
        }
        const auto here = NF_TRY(to.queryOne<std::int64_t>(
            "SELECT r.id FROM main.runs r JOIN src.runs s ON s.id = ?1 WHERE r.started_at = s.started_at "
            "AND r.host = s.host AND r.workload = s.workload AND r.label = s.label AND r.spec_json = s.spec_json "
            "AND json_extract(r.environment_json, '$.lava.job') IS json_extract(s.environment_json, '$.lava.job')",
            id));
        if (here) {
            c.skipped = "already here as run " + std::to_string(*here);
            continue;
        }
        if (auto readable = checkSourceRun(to, id); !readable) {
            if (stop.stop_requested()) {
                return stopped();
            }
            return Error{"run " + std::to_string(id) + " of " + fromPath +
                         " cannot be read (nothing was copied): " + readable.error().message};
        }
        auto one = copyOne(to, id, origin);
        if (stop.stop_requested()) {
            return stopped();
        }
        c.id = NF_TRY(std::move(one).withContext("cannot copy run " + std::to_string(id) + " of " + fromPath + ": "));
    }
    if (stop.stop_requested()) {
        return stopped();
    }
    NF_TRY(tx.commit());
    return copied;
}

Result<void> writeRunDatabase(Database& from, std::int64_t id, const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
        return Error{path + " exists; a run database is written only to a new file"};
    }
    Database out = NF_TRY(openStore(path));
    auto written = [&]() -> Result<void> {
        // The database this process reads already: its whole-file check is not this export's to make.
        const auto copied = NF_TRY(copyRuns(out, from.path(), {id}, "", {}, false));
        if (copied.front().id == 0) {
            return Error{"run " + std::to_string(id) + " is " + copied.front().skipped};
        }
        // One file, no -wal beside it: it is sent as it is.
        return out.exec("PRAGMA journal_mode = DELETE");
    }();
    if (!written) {
        for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
            std::filesystem::remove(path + suffix, ec);
        }
    }
    return written;
}

Result<void> deleteRun(Database& db, std::int64_t id)
{
    auto tx = NF_TRY(Transaction::begin(db));
    // Read straight from the row: a run whose spec or environment is unreadable must still go.
    const auto row = NF_TRY(db.queryOne<std::string, std::int64_t, std::string, std::string>(
        "SELECT status, pid, CAST(pid_start AS TEXT), host FROM runs WHERE id = ?1", id));
    if (!row) {
        return Error{"no run " + std::to_string(id)};
    }
    const auto& [status, pid, identity, host] = *row;
    char here[256] = {};
    const bool sameHost = host.empty() || (::gethostname(here, sizeof here - 1) == 0 && host == here);
    if (status == "running" && sameHost && writerAlive(pid, identity)) {
        return Error{"run " + std::to_string(id) + " is running (pid " + std::to_string(pid) +
                     "); stop it first, or wait until it ends"};
    }
    // Rows that hang off a repetition first, then the repetitions, then the rest of the run's rows.
    const auto tables = NF_TRY(db.query<std::string, std::int64_t>(
        "SELECT m.name, max(c.name = 'run_id') FROM main.sqlite_master m JOIN pragma_table_info(m.name) c "
        "WHERE m.type = 'table' AND c.name IN ('run_id', 'repetition_id') GROUP BY m.name"));
    for (const auto& [table, hasRunId] : tables) {
        if (hasRunId == 0) {
            NF_TRY(db.run("DELETE FROM main." + table +
                              " WHERE repetition_id IN (SELECT id FROM main.repetitions WHERE run_id = ?1)",
                          id));
        }
    }
    NF_TRY(db.run("DELETE FROM main.repetitions WHERE run_id = ?1", id));
    for (const auto& [table, hasRunId] : tables) {
        if (hasRunId != 0 && table != "repetitions") {
            NF_TRY(db.run("DELETE FROM main." + table + " WHERE run_id = ?1", id));
        }
    }
    NF_TRY(db.run("DELETE FROM main.runs WHERE id = ?1", id));
    return tx.commit();
}

}  // namespace nf::data
