// Copying runs between databases with ATTACH: the rows of every per-run table, the ids of runs,
// variants, quantities and repetitions renumbered through temporary maps.

#include "data/run_copy.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "data/schema.h"
#include "data/sqlite_uri.h"

namespace nf::data {

namespace {

// The columns of `table` in the main database, without those named in `leaveOut`.
Result<std::vector<std::string>> columnsOf(Database& db, const std::string& table,
                                           const std::set<std::string>& leaveOut)
{
    auto stmt = db.prepare("SELECT name FROM pragma_table_info(?1)");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, table);
    std::vector<std::string> columns;
    for (;;) {
        auto row = stmt->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            break;
        }
        if (auto name = stmt->text(0); !leaveOut.contains(name)) {
            columns.push_back(std::move(name));
        }
    }
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
// FROM src.TABLE s <from> WHERE <where>.
Result<void> copyRows(Database& db, const std::string& table,
                      const std::vector<std::pair<std::string, std::string>>& set, const std::string& from,
                      const std::string& where, std::int64_t oldRun, std::int64_t newRun)
{
    std::set<std::string> leaveOut{"id"};
    for (const auto& [column, expr] : set) {
        leaveOut.insert(column);
    }
    auto rest = columnsOf(db, table, leaveOut);
    if (!rest) {
        return rest.error();
    }
    std::string names;
    std::string values;
    for (const auto& [column, expr] : set) {
        names += (names.empty() ? "" : ", ") + column;
        values += (values.empty() ? "" : ", ") + expr;
    }
    if (!rest->empty()) {
        names += (names.empty() ? "" : ", ") + joined(*rest, "");
        values += (values.empty() ? "" : ", ") + joined(*rest, "s.");
    }
    auto stmt = db.prepare("INSERT INTO main." + table + " (" + names + ") SELECT " + values + " FROM src." + table +
                           " s " + from + " WHERE " + where);
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, oldRun).bind(2, newRun);
    return stmt->run();
}

Result<std::int64_t> single(Database& db, const std::string& sql, std::int64_t a)
{
    auto stmt = db.prepare(sql);
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, a);
    auto row = stmt->step();
    if (!row) {
        return row.error();
    }
    return *row && !stmt->isNull(0) ? stmt->int64(0) : 0;
}

// One run: its row, then every table that hangs off it, with ids renumbered.
Result<std::int64_t> copyOne(Database& db, std::int64_t oldRun, const std::string& origin)
{
    const std::string env =
        origin.empty() ? std::string("s.environment_json")
                       : "json_set(s.environment_json, '$.copied_from', json_object('origin', ?3, 'run', s.id))";
    auto columns = columnsOf(db, "runs", {"id", "environment_json"});
    if (!columns) {
        return columns.error();
    }
    auto insert = db.prepare("INSERT INTO main.runs (environment_json, " + joined(*columns, "") + ") SELECT " + env +
                             ", " + joined(*columns, "s.") + " FROM src.runs s WHERE s.id = ?1");
    if (!insert) {
        return insert.error();
    }
    insert->bind(1, oldRun);
    if (!origin.empty()) {
        insert->bind(3, origin);
    }
    if (auto r = insert->run(); !r) {
        return r.error();
    }
    const std::int64_t newRun = db.lastInsertId();
    const std::string byRun = "s.run_id = ?1";
    const std::pair<std::string, std::string> run{"run_id", "?2"};
    for (const char* table : {"variants", "quantities", "metrics", "run_warnings", "decisions", "decision_looks"}) {
        if (auto r = copyRows(db, table, {run}, "", byRun, oldRun, newRun); !r) {
            return r.error();
        }
    }
    // Variants and quantities are found again here by their index in the run.
    auto r = copyRows(db, "repetitions",
                      {run,
                       {"variant_id",
                        "(SELECT v.id FROM main.variants v JOIN src.variants sv ON sv.idx = v.idx "
                        "WHERE v.run_id = ?2 AND sv.id = s.variant_id)"}},
                      "", byRun, oldRun, newRun);
    if (!r) {
        return r.error();
    }
    if (auto m = db.exec("DELETE FROM temp.repetition_map; DELETE FROM temp.quantity_map"); !m) {
        return m.error();
    }
    auto maps = db.prepare(
        "INSERT INTO temp.repetition_map SELECT sr.id, r.id FROM src.repetitions sr "
        "JOIN src.variants sv ON sv.id = sr.variant_id JOIN main.variants v ON v.run_id = ?2 AND v.idx = sv.idx "
        "JOIN main.repetitions r ON r.variant_id = v.id AND r.idx = sr.idx WHERE sr.run_id = ?1");
    auto quantities = db.prepare(
        "INSERT INTO temp.quantity_map SELECT sq.id, q.id FROM src.quantities sq "
        "JOIN main.quantities q ON q.run_id = ?2 AND q.idx = sq.idx WHERE sq.run_id = ?1");
    if (!maps || !quantities) {
        return !maps ? maps.error() : quantities.error();
    }
    maps->bind(1, oldRun).bind(2, newRun);
    quantities->bind(1, oldRun).bind(2, newRun);
    if (auto m = maps->run(); !m) {
        return m.error();
    }
    if (auto m = quantities->run(); !m) {
        return m.error();
    }
    const std::string rep = "JOIN temp.repetition_map rm ON rm.old = s.repetition_id";
    if (auto m = copyRows(db, "samples", {{"repetition_id", "rm.new"}}, rep, "1", oldRun, newRun); !m) {
        return m.error();
    }
    if (auto m = copyRows(db, "summaries", {{"repetition_id", "rm.new"}, {"quantity_id", "qm.new"}},
                          rep + " JOIN temp.quantity_map qm ON qm.old = s.quantity_id", "1", oldRun, newRun);
        !m) {
        return m.error();
    }
    return newRun;
}

// Every table of `db` with a column that points at a run or a repetition.
Result<std::set<std::string>> tablesHoldingRuns(Database& db)
{
    auto stmt = db.prepare(
        "SELECT DISTINCT m.name FROM main.sqlite_master m JOIN pragma_table_info(m.name) c "
        "WHERE m.type = 'table' AND c.name IN ('run_id', 'repetition_id')");
    if (!stmt) {
        return stmt.error();
    }
    std::set<std::string> tables;
    for (;;) {
        auto row = stmt->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            return tables;
        }
        tables.insert(stmt->text(0));
    }
}

// The source as a database of this schema: the file itself, or an upgraded temporary copy.
struct Source {
    std::string path;
    std::string temporary;  // removed by the caller
};

Result<Source> openSource(const std::string& fromPath)
{
    auto src = openStore(fromPath, Database::Mode::ReadOnly);
    if (!src) {
        return src.error();
    }
    auto version = storedSchemaVersion(*src);
    if (!version) {
        return version.error();
    }
    if (*version == schemaVersion()) {
        return Source{fromPath, {}};
    }
    std::string copy = (std::filesystem::temp_directory_path() / "noisefloor-copy-XXXXXX").string();
    const int fd = ::mkstemp(copy.data());
    if (fd < 0) {
        return Error::fromErrno("cannot make a temporary file to upgrade " + fromPath);
    }
    ::close(fd);
    std::filesystem::remove(copy);
    auto vacuum = src->prepare("VACUUM INTO ?1");
    if (!vacuum) {
        return vacuum.error();
    }
    vacuum->bind(1, copy);
    if (auto r = vacuum->run(); !r) {
        return Error{"cannot upgrade a copy of " + fromPath + ": " + r.error().message};
    }
    if (auto upgraded = openStore(copy); !upgraded) {
        std::filesystem::remove(copy);
        return upgraded.error();
    }
    return Source{copy, copy};
}

}  // namespace

const std::vector<std::string>& perRunTables()
{
    static const std::vector<std::string> tables = {"runs",        "variants",      "quantities", "metrics",
                                                    "repetitions", "samples",       "summaries",  "run_warnings",
                                                    "decisions",   "decision_looks"};
    return tables;
}

Result<std::vector<CopiedRun>> copyRuns(Database& to, const std::string& fromPath,
                                        const std::vector<std::int64_t>& runs, const std::string& origin)
{
    auto source = openSource(fromPath);
    if (!source) {
        return source.error();
    }
    struct Cleanup {  // made before ATTACH: an upgraded copy goes even when ATTACH fails
        Database& db;
        std::string temporary;
        ~Cleanup()
        {
            (void)db.exec("DETACH DATABASE src");
            if (!temporary.empty()) {
                std::error_code ec;
                for (const char* suffix : {"", "-wal", "-shm"}) {
                    std::filesystem::remove(temporary + suffix, ec);
                }
            }
        }
    };
    const Cleanup cleanup{to, source->temporary};
    // Read-only: a copy never takes the source's write lock (a run may be storing there).
    auto attach = to.prepare("ATTACH DATABASE ?1 AS src");
    if (!attach) {
        return attach.error();
    }
    attach->bind(1, fileUri(source->path, "mode=ro"));
    if (auto r = attach->run(); !r) {
        return Error{"cannot read " + fromPath + ": " + r.error().message};
    }
    // A table this copy does not know would be left behind: refuse rather than copy half a run.
    auto holding = tablesHoldingRuns(to);
    if (!holding) {
        return holding.error();
    }
    for (const auto& table : *holding) {
        if (std::find(perRunTables().begin(), perRunTables().end(), table) == perRunTables().end()) {
            return Error{"cannot copy runs: table " + table + " is not known to the copy"};
        }
    }
    if (auto r = to.exec("CREATE TEMP TABLE IF NOT EXISTS repetition_map (old INTEGER PRIMARY KEY, new INTEGER); "
                         "CREATE TEMP TABLE IF NOT EXISTS quantity_map (old INTEGER PRIMARY KEY, new INTEGER)");
        !r) {
        return r.error();
    }
    std::vector<std::int64_t> ids = runs;
    if (ids.empty()) {
        auto all = to.prepare("SELECT id FROM src.runs ORDER BY id");
        if (!all) {
            return all.error();
        }
        for (;;) {
            auto row = all->step();
            if (!row) {
                return row.error();
            }
            if (!*row) {
                break;
            }
            ids.push_back(all->int64(0));
        }
    }
    auto tx = Transaction::begin(to);
    if (!tx) {
        return tx.error();
    }
    std::vector<CopiedRun> copied;
    for (const auto id : ids) {
        CopiedRun c;
        c.sourceId = id;
        auto status = to.prepare("SELECT status FROM src.runs WHERE id = ?1");
        if (!status) {
            return status.error();
        }
        status->bind(1, id);
        auto row = status->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            return Error{fromPath + " has no run " + std::to_string(id)};
        }
        if (status->text(0) == "running") {
            c.skipped = "still running there";
            copied.push_back(c);
            continue;
        }
        auto here =
            single(to,
                   "SELECT r.id FROM main.runs r JOIN src.runs s ON s.id = ?1 WHERE r.started_at = s.started_at "
                   "AND r.host = s.host AND r.workload = s.workload AND r.label = s.label "
                   "AND r.spec_json = s.spec_json",
                   id);
        if (!here) {
            return here.error();
        }
        if (*here != 0) {
            c.skipped = "already here as run " + std::to_string(*here);
            copied.push_back(c);
            continue;
        }
        auto newId = copyOne(to, id, origin);
        if (!newId) {
            return Error{"cannot copy run " + std::to_string(id) + " of " + fromPath + ": " + newId.error().message};
        }
        c.id = *newId;
        copied.push_back(c);
    }
    if (auto done = tx->commit(); !done) {
        return done.error();
    }
    return copied;
}

Result<void> writeRunDatabase(Database& from, std::int64_t id, const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
        return Error{path + " exists; a run database is written only to a new file"};
    }
    auto out = openStore(path);
    if (!out) {
        return out.error();
    }
    auto written = [&]() -> Result<void> {
        auto copied = copyRuns(*out, from.path(), {id}, "");
        if (!copied) {
            return copied.error();
        }
        if (copied->front().id == 0) {
            return Error{"run " + std::to_string(id) + " is " + copied->front().skipped};
        }
        // One file, no -wal beside it: it is sent as it is.
        return out->exec("PRAGMA journal_mode = DELETE");
    }();
    if (!written) {
        for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
            std::filesystem::remove(path + suffix, ec);
        }
    }
    return written;
}

}  // namespace nf::data
