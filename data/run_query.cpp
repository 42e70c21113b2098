// Reading stored runs: listRuns and loadRun.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "process_identity.h"
#include "run_store.h"

namespace nf::data {

namespace {

// The runs columns RunRow holds, with the variant and repetition counts; readRow() reads them.
constexpr const char* kRowColumns =
    "SELECT r.id, r.label, r.workload, r.status, r.status_reason, r.started_at, r.ended_at, r.host, "
    "r.kernel, r.cpu_model, r.tool_version, r.pid, "
    "(SELECT count(*) FROM variants v WHERE v.run_id = r.id), "
    "(SELECT count(DISTINCT p.idx) FROM repetitions p WHERE p.run_id = r.id), r.pid_start";

// Reads of one run see one snapshot, even while its writer commits repetitions (WAL).
class ReadSnapshot {
public:
    explicit ReadSnapshot(Database& db) : m_db(db)
    {
        m_active = sqlite3_get_autocommit(db.handle()) != 0 && db.exec("BEGIN").ok();
    }
    ~ReadSnapshot()
    {
        if (m_active) {
            (void)m_db.exec("COMMIT");
        }
    }
    ReadSnapshot(const ReadSnapshot&) = delete;
    ReadSnapshot& operator=(const ReadSnapshot&) = delete;

private:
    Database& m_db;
    bool m_active = false;
};

std::string currentHost()
{
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) {
        return {};
    }
    return name;
}

// A 'running' run whose writer is gone (crash, SIGKILL, reboot) reads as aborted.
void resolveLiveness(RunRow& row, const std::string& identity, const std::string& host)
{
    if (row.status != engine::RunStatus::Running) {
        return;
    }
    std::string pid = std::to_string(row.pid);
    if (!row.host.empty() && !host.empty() && row.host != host) {
        row.status = engine::RunStatus::Aborted;
        row.statusReason = "writer (pid " + pid + " on " + row.host + ") is gone";
        return;
    }
    if (!writerAlive(row.pid, identity)) {
        row.status = engine::RunStatus::Aborted;
        row.statusReason = "writer (pid " + pid + ") is gone";
    }
}

RunRow readRow(const Statement& stmt, const std::string& host)
{
    RunRow row;
    row.id = stmt.int64(0);
    row.label = stmt.text(1);
    row.workload = stmt.text(2);
    auto status = engine::parseRunStatus(stmt.text(3));
    row.status = status ? *status : engine::RunStatus::Failed;
    row.statusReason = status ? stmt.text(4) : "unknown status '" + stmt.text(3) + "'";
    row.startedAt = stmt.text(5);
    row.endedAt = stmt.text(6);
    row.host = stmt.text(7);
    row.kernel = stmt.text(8);
    row.cpuModel = stmt.text(9);
    row.toolVersion = stmt.text(10);
    row.pid = stmt.int64(11);
    row.variants = static_cast<int>(stmt.int64(12));
    row.repetitions = static_cast<int>(stmt.int64(13));
    resolveLiveness(row, stmt.text(14), host);
    return row;
}

nlohmann::json parseJson(const std::string& text)
{
    auto json = nlohmann::json::parse(text, nullptr, false);
    return json.is_discarded() ? nlohmann::json() : json;
}

// Runs `sql` bound to the run id and calls onRow for each row.
template <typename OnRow>
Result<void> forEachRow(Database& db, const char* sql, std::int64_t runId, OnRow onRow)
{
    auto stmt = db.prepare(sql);
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, runId);
    for (;;) {
        auto row = stmt->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            return {};
        }
        onRow(*stmt);
    }
}

Result<void> loadLayout(Database& db, StoredRun& run, std::unordered_map<std::int64_t, int>& variantOf,
                        std::unordered_map<std::int64_t, std::size_t>& quantityOf)
{
    engine::RunData& data = run.data;
    auto variants = forEachRow(db, "SELECT id, name, params_json FROM variants WHERE run_id = ? ORDER BY idx",
                               run.row.id, [&](const Statement& s) {
                                   variantOf[s.int64(0)] = static_cast<int>(data.variantNames.size());
                                   data.variantNames.push_back(s.text(1));
                                   run.variantParams.push_back(parseJson(s.text(2)));
                               });
    if (!variants) {
        return variants;
    }
    auto quantities = forEachRow(db, "SELECT id, name FROM quantities WHERE run_id = ? ORDER BY idx", run.row.id,
                                 [&](const Statement& s) {
                                     quantityOf[s.int64(0)] = data.layout.quantities.size();
                                     data.layout.quantities.push_back(s.text(1));
                                 });
    if (!quantities) {
        return quantities;
    }
    return forEachRow(db,
                      "SELECT name, unit, numerator, denominator, scale, higher_is_better, description "
                      "FROM metrics WHERE run_id = ? ORDER BY idx",
                      run.row.id, [&](const Statement& s) {
                          data.layout.metrics.push_back(
                              {s.text(0), s.text(1), s.text(2), s.text(3), s.real(4), s.int64(5) != 0, s.text(6)});
                      });
}

Result<void> loadSamples(Database& db, StoredRun& run, const std::unordered_map<std::int64_t, int>& variantOf,
                         const std::unordered_map<std::int64_t, std::size_t>& quantityOf)
{
    std::vector<engine::Sample>& samples = run.data.samples;
    std::unordered_map<std::int64_t, std::size_t> sampleOf;
    const std::size_t width = run.data.layout.quantities.size();
    auto rows = forEachRow(
        db,
        "SELECT s.id, p.variant_id, p.idx, s.idx, s.pair, s.start_s, s.duration_s FROM samples s "
        "JOIN repetitions p ON p.id = s.repetition_id WHERE p.run_id = ? ORDER BY s.start_s, p.seq, s.idx",
        run.row.id, [&](const Statement& s) {
            sampleOf[s.int64(0)] = samples.size();
            auto variant = variantOf.find(s.int64(1));
            samples.push_back({variant != variantOf.end() ? variant->second : -1, static_cast<int>(s.int64(2)),
                               static_cast<int>(s.int64(3)), s.isNull(4) ? -1 : static_cast<int>(s.int64(4)), s.real(5),
                               s.real(6), std::vector<double>(width, std::nan(""))});
        });
    if (!rows) {
        return rows;
    }
    return forEachRow(db,
                      "SELECT v.sample_id, v.quantity_id, v.value FROM sample_values v "
                      "JOIN samples s ON s.id = v.sample_id JOIN repetitions p ON p.id = s.repetition_id "
                      "WHERE p.run_id = ?",
                      run.row.id, [&](const Statement& s) {
                          auto sample = sampleOf.find(s.int64(0));
                          auto quantity = quantityOf.find(s.int64(1));
                          if (sample != sampleOf.end() && quantity != quantityOf.end() && !s.isNull(2)) {
                              samples[sample->second].values[quantity->second] = s.real(2);
                          }
                      });
}

}  // namespace

Result<std::vector<RunRow>> listRuns(Database& db)
{
    auto stmt = db.prepare(std::string(kRowColumns) + " FROM runs r ORDER BY r.started_at DESC, r.id DESC");
    if (!stmt) {
        return stmt.error();
    }
    std::string host = currentHost();
    std::vector<RunRow> rows;
    for (;;) {
        auto row = stmt->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            return rows;
        }
        rows.push_back(readRow(*stmt, host));
    }
}

Result<StoredRun> loadRun(Database& db, std::int64_t id)
try {
    ReadSnapshot snapshot(db);
    auto stmt = db.prepare(std::string(kRowColumns) + ", r.spec_json, r.environment_json FROM runs r WHERE r.id = ?");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, id);
    auto found = stmt->step();
    if (!found) {
        return found.error();
    }
    if (!*found) {
        return Error{"no run " + std::to_string(id) + " in " + db.path()};
    }
    StoredRun run;
    run.row = readRow(*stmt, currentHost());
    run.spec = parseJson(stmt->text(15));
    run.environment = parseJson(stmt->text(16));
    stmt->reset();
    std::unordered_map<std::int64_t, int> variantOf;
    std::unordered_map<std::int64_t, std::size_t> quantityOf;
    if (auto layout = loadLayout(db, run, variantOf, quantityOf); !layout) {
        return layout.error();
    }
    if (auto samples = loadSamples(db, run, variantOf, quantityOf); !samples) {
        return samples.error();
    }
    return run;
} catch (const std::exception& e) {
    return Error{"cannot load run " + std::to_string(id) + " from " + db.path() + ": " + e.what()};
}

}  // namespace nf::data
