// Reading stored runs: listRuns and loadRun.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "data/process_identity.h"
#include "data/run_store.h"
#include "data/sample_blob.h"
#include "data/schema.h"

namespace nf::data {

namespace {

// The runs columns engine::RunRow holds, with the variant and repetition counts; readRow() reads them.
constexpr const char* kRowColumns =
    "SELECT r.id, r.label, r.workload, r.status, r.status_reason, r.started_at, r.ended_at, r.host, "
    "r.kernel, r.cpu_model, r.tool_version, r.pid, "
    "(SELECT count(*) FROM variants v WHERE v.run_id = r.id), "
    "(SELECT count(DISTINCT p.idx) FROM repetitions p WHERE p.run_id = r.id), r.pid_start, "
    "coalesce(json_extract(r.spec_json, '$.sweep.id'), ''), coalesce(json_extract(r.spec_json, '$.sweep.param'), ''), "
    "coalesce(json_extract(r.spec_json, '$.sweep.value'), ''), coalesce(json_extract(r.spec_json, '$.sweep.index'), "
    "-1)";

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

// Holds the connection's mutex through a long read. SQLite takes it in every call (each step and
// each column of a row); taken again by the thread that holds it, it is only a count, not an
// atomic operation. A connection opened without a mutex has none (sqlite3_mutex_enter(NULL) does
// nothing).
class ConnectionLock {
public:
    explicit ConnectionLock(const Database& db) : m_mutex(sqlite3_db_mutex(db.handle()))
    {
        sqlite3_mutex_enter(m_mutex);
    }
    ~ConnectionLock() { sqlite3_mutex_leave(m_mutex); }
    ConnectionLock(const ConnectionLock&) = delete;
    ConnectionLock& operator=(const ConnectionLock&) = delete;

private:
    sqlite3_mutex* m_mutex;
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
void resolveLiveness(engine::RunRow& row, const std::string& identity, const std::string& host)
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

engine::RunRow readRow(const Statement& stmt, const std::string& host)
{
    engine::RunRow row;
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
    const std::string identity = stmt.text(14);
    row.bootId = identity.substr(0, identity.find('/') == std::string::npos ? 0 : identity.find('/'));
    resolveLiveness(row, identity, host);
    row.sweepId = stmt.text(15);
    row.sweepParam = stmt.text(16);
    row.sweepValue = stmt.text(17);
    row.sweepIndex = static_cast<int>(stmt.int64(18));
    return row;
}

// Every row a kRowColumns query returns.
Result<std::vector<engine::RunRow>> readRows(Statement& stmt)
{
    const std::string host = currentHost();
    std::vector<engine::RunRow> rows;
    for (;;) {
        auto row = stmt.step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            return rows;
        }
        rows.push_back(readRow(stmt, host));
    }
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

Result<void> loadLayout(Database& db, engine::RunRecord& run)
{
    engine::RunData& data = run.data;
    auto variants = forEachRow(db, "SELECT name, params_json FROM variants WHERE run_id = ? ORDER BY idx", run.row.id,
                               [&](const Statement& s) {
                                   data.variantNames.push_back(s.text(0));
                                   run.variantParams.push_back(parseJson(s.text(1)));
                               });
    if (!variants) {
        return variants;
    }
    auto quantities = forEachRow(db, "SELECT name FROM quantities WHERE run_id = ? ORDER BY idx", run.row.id,
                                 [&](const Statement& s) { data.layout.quantities.push_back(s.text(0)); });
    if (!quantities) {
        return quantities;
    }
    return forEachRow(db,
                      "SELECT name, unit, numerator, denominator, scale, higher_is_better, description, alias_of "
                      "FROM metrics WHERE run_id = ? ORDER BY idx",
                      run.row.id, [&](const Statement& s) {
                          data.layout.metrics.push_back({s.text(0), s.text(1), s.text(2), s.text(3), s.real(4),
                                                         s.int64(5) != 0, s.text(6), s.text(7)});
                      });
}

// A repetitions row of the run: its samples' variant and repetition index.
struct RepetitionRow {
    std::int64_t id = 0;
    int variant = 0;
    int index = 0;
};

// In the order they were stored (seq).
Result<std::vector<RepetitionRow>> loadRepetitions(Database& db, std::int64_t runId)
{
    std::vector<RepetitionRow> reps;
    auto rows = forEachRow(db,
                           "SELECT p.id, v.idx, p.idx FROM repetitions p JOIN variants v ON v.id = p.variant_id "
                           "WHERE p.run_id = ? ORDER BY p.seq",
                           runId, [&](const Statement& s) {
                               reps.push_back({s.int64(0), static_cast<int>(s.int64(1)), static_cast<int>(s.int64(2))});
                           });
    if (!rows) {
        return rows.error();
    }
    return reps;
}

Error badBlob(const Database& db, const engine::RunRecord& run, const engine::Sample& sample, std::size_t bytes)
{
    const std::vector<std::string>& names = run.data.variantNames;
    const auto variant = static_cast<std::size_t>(sample.variant);
    const std::size_t width = run.data.layout.quantities.size();
    return Error{"cannot load run " + std::to_string(run.row.id) + " from " + db.path() + ": sample " +
                 std::to_string(sample.index) + " of variant " +
                 (variant < names.size() ? names[variant] : std::to_string(sample.variant)) + " in repetition " +
                 std::to_string(sample.repetition) + " has " + std::to_string(bytes) + " bytes of values, expected " +
                 std::to_string(width * kValueBytes) + " (" + std::to_string(width) + " quantities)"};
}

// The rows' start order, built as each repetitions row is appended to the table. Rows come in seq
// order, each in idx order, and ties keep that order: the order of ORDER BY start_s, seq, idx.
// Rows of one repetition interleave in time (alternating variants) but rows of different
// repetitions rarely do, so merging only the overlapping tail keeps this about linear. Should rows
// overlap more than that (the budget runs out), the rest are appended as they come and one stable
// sort orders all. The order holds row numbers, so merging moves 4 bytes per row, not rows.
class StartOrder {
public:
    explicit StartOrder(const engine::RunTable& table) : m_table(table) {}

    // Rows [from, size) of the table are the row just appended.
    void rowAdded(std::size_t from)
    {
        for (std::size_t i = from; i < m_table.size(); ++i) {
            m_order.push_back(static_cast<std::uint32_t>(i));
        }
        auto first = m_order.begin() + static_cast<std::ptrdiff_t>(from);
        if (!m_merging || first == m_order.end()) {
            return;
        }
        const auto earlier = this->earlier();
        if (!std::is_sorted(first, m_order.end(), earlier)) {
            std::stable_sort(first, m_order.end(), earlier);
        }
        m_budget += kBudgetPerSample * (m_order.size() - from);
        auto overlap = std::upper_bound(m_order.begin(), first, *first, earlier);
        const auto moves = static_cast<std::size_t>(m_order.end() - overlap);
        if (overlap == first) {
            return;
        }
        if (moves > m_budget) {
            m_merging = false;
            return;
        }
        m_budget -= moves;
        std::inplace_merge(overlap, first, m_order.end(), earlier);
    }

    // The order, or nothing when the rows already are in it.
    std::vector<std::uint32_t> finish()
    {
        if (!m_merging) {
            std::stable_sort(m_order.begin(), m_order.end(), earlier());
        }
        for (std::size_t i = 0; i < m_order.size(); ++i) {
            if (m_order[i] != i) {
                return std::move(m_order);
            }
        }
        return {};
    }

private:
    // Compares rows by start: made anew each time, as appending may move the column.
    struct Earlier {
        std::span<const double> starts;
        bool operator()(std::uint32_t a, std::uint32_t b) const { return starts[a] < starts[b]; }
    };
    Earlier earlier() const { return Earlier{m_table.starts()}; }

    static constexpr std::size_t kBudgetPerSample = 4;
    const engine::RunTable& m_table;
    std::vector<std::uint32_t> m_order;
    std::size_t m_budget = 0;
    bool m_merging = true;
};

// One query per repetitions row, driven by the (repetition_id, idx) index: no sort in SQLite, and
// each row's variant and repetition come from the row it belongs to, not from a lookup.
// Schema 2 on: the run's warnings in the order they were said. An older database read as it is has
// none stored.
Result<void> loadWarnings(Database& db, engine::RunRecord& run)
{
    auto version = storedSchemaVersion(db);
    if (!version) {
        return version.error();
    }
    if (*version < 2) {
        return {};
    }
    auto stmt = db.prepare("SELECT text FROM run_warnings WHERE run_id = ? ORDER BY seq");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, run.row.id);
    for (;;) {
        auto row = stmt->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            return {};
        }
        run.warnings.push_back(stmt->text(0));
    }
}

Result<void> loadSamples(Database& db, engine::RunRecord& run)
{
    const auto reps = NF_TRY(loadRepetitions(db, run.row.id));
    auto stmt = NF_TRY(db.prepare(
        "SELECT idx, coalesce(pair, -1), start_s, duration_s, vals FROM samples WHERE repetition_id = ? ORDER BY idx"));
    const std::size_t width = run.data.layout.quantities.size();
    engine::RunTable& table = run.data.samples;
    table = engine::RunTable(width);
    StartOrder order(table);
    engine::Sample row;  // each row is decoded here and appended: nothing is allocated per sample
    row.values.resize(width);
    const ConnectionLock lock(db);
    for (const RepetitionRow& rep : reps) {
        if (rep.variant < 0 || rep.variant > engine::RunTable::kMaxVariant) {
            return Error{"cannot load run " + std::to_string(run.row.id) + " from " + db.path() + ": variant index " +
                         std::to_string(rep.variant) + " out of range"};
        }
        const std::size_t from = table.size();
        const auto read = static_cast<std::size_t>(&rep - reps.data());
        if (from != 0 && table.capacity() - from < from / read) {
            // Repetitions tend to be the same size: make room for the rest, estimated from those
            // read, rather than growing every column step by step; past the estimate, by half.
            table.reserve(std::max(from / read * reps.size(), table.capacity() + table.capacity() / 2));
        }
        stmt.bind(1, rep.id);
        while (NF_TRY(stmt.step())) {
            row.variant = rep.variant;
            row.repetition = rep.index;
            row.index = static_cast<int>(stmt.int64(0));
            row.pair = static_cast<int>(stmt.int64(1));
            row.start = stmt.real(2);
            row.duration = stmt.real(3);
            std::span<const unsigned char> blob = stmt.blob(4);
            if (blob.size() != width * kValueBytes) {
                return badBlob(db, run, row, blob.size());
            }
            decodeValues(blob, row.values.data());
            table.append(row);
        }
        stmt.reset();
        order.rowAdded(from);
    }
    if (const auto reordered = order.finish(); !reordered.empty()) {
        table.reorder(reordered);
    }
    return {};
}

}  // namespace

Result<std::vector<engine::RunRow>> listRuns(Database& db)
{
    auto stmt = db.prepare(std::string(kRowColumns) + " FROM runs r ORDER BY r.started_at DESC, r.id DESC");
    if (!stmt) {
        return stmt.error();
    }
    return readRows(*stmt);
}

Result<std::vector<engine::RunRow>> sweepRuns(Database& db, const std::string& sweepId)
{
    auto stmt = db.prepare(std::string(kRowColumns) +
                           " FROM runs r WHERE json_extract(r.spec_json, '$.sweep.id') = ? "
                           "ORDER BY json_extract(r.spec_json, '$.sweep.index'), r.id");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, sweepId);
    return readRows(*stmt);
}

Result<engine::RunRecord> loadRun(Database& db, std::int64_t id)
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
    engine::RunRecord run;
    run.row = readRow(*stmt, currentHost());
    auto spec = engine::experimentSpecFromJson(parseJson(stmt->text(19)));
    if (!spec) {
        return Error{"run " + std::to_string(id) + " in " + db.path() + ": " + spec.error().message};
    }
    run.spec = std::move(*spec);
    run.environment = engine::RunEnvironment::fromJson(parseJson(stmt->text(20)));
    stmt->reset();
    if (auto layout = loadLayout(db, run); !layout) {
        return layout.error();
    }
    if (auto samples = loadSamples(db, run); !samples) {
        return samples.error();
    }
    if (auto decision = loadDecision(db, run); !decision) {
        return decision.error();
    }
    if (auto warnings = loadWarnings(db, run); !warnings) {
        return warnings.error();
    }
    // A database of schema 1 or 2, opened read-only (not migrated), has no summaries table.
    auto version = storedSchemaVersion(db);
    if (!version) {
        return version.error();
    }
    const bool hasSummaries = *version >= 3;
    auto summaries =
        !hasSummaries
            ? Result<void>{}
            : forEachRow(
                  db,
                  "SELECT v.idx, p.idx, q.name, s.n, s.mean, s.se FROM summaries s "
                  "JOIN repetitions p ON p.id = s.repetition_id JOIN variants v ON v.id = p.variant_id "
                  "JOIN quantities q ON q.id = s.quantity_id WHERE p.run_id = ? ORDER BY p.seq, q.idx",
                  id, [&](const Statement& s) {
                      run.data.summaries.push_back({static_cast<int>(s.int64(0)), static_cast<int>(s.int64(1)),
                                                    s.text(2), static_cast<double>(s.int64(3)), s.real(4), s.real(5)});
                  });
    if (!summaries) {
        return summaries.error();
    }
    return run;
} catch (const std::exception& e) {
    return Error{"cannot load run " + std::to_string(id) + " from " + db.path() + ": " + e.what()};
}

}  // namespace nf::data
