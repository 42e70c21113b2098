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

bool earlier(const engine::Sample& a, const engine::Sample& b)
{
    return a.start < b.start;
}

// Puts the samples in start order as each repetitions row is appended. Rows come in seq order,
// each in idx order, and ties keep that order: the order of ORDER BY start_s, seq, idx. Rows of one
// repetition interleave in time (alternating variants) but rows of different repetitions rarely
// do, so merging only the overlapping tail keeps this about linear. Should rows overlap more than
// that (the budget runs out), the rest are appended as they come and one stable sort orders all.
class StartOrder {
public:
    explicit StartOrder(std::vector<engine::Sample>& samples) : m_samples(samples) {}

    // samples[from, end) is the row just appended.
    void rowAdded(std::size_t from)
    {
        auto first = m_samples.begin() + static_cast<std::ptrdiff_t>(from);
        if (!m_merging || first == m_samples.end()) {
            return;
        }
        if (!std::is_sorted(first, m_samples.end(), earlier)) {
            std::stable_sort(first, m_samples.end(), earlier);
        }
        m_budget += kBudgetPerSample * (m_samples.size() - from);
        auto overlap = std::upper_bound(m_samples.begin(), first, *first, earlier);
        const auto moves = static_cast<std::size_t>(m_samples.end() - overlap);
        if (overlap == first) {
            return;
        }
        if (moves > m_budget) {
            m_merging = false;
            return;
        }
        m_budget -= moves;
        std::inplace_merge(overlap, first, m_samples.end(), earlier);
    }

    void finish()
    {
        if (!m_merging) {
            std::stable_sort(m_samples.begin(), m_samples.end(), earlier);
        }
    }

private:
    static constexpr std::size_t kBudgetPerSample = 4;
    std::vector<engine::Sample>& m_samples;
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
    auto reps = loadRepetitions(db, run.row.id);
    if (!reps) {
        return reps.error();
    }
    auto stmt =
        db.prepare("SELECT idx, pair, start_s, duration_s, vals FROM samples WHERE repetition_id = ? ORDER BY idx");
    if (!stmt) {
        return stmt.error();
    }
    const std::size_t width = run.data.layout.quantities.size();
    std::vector<engine::Sample>& samples = run.data.samples;
    StartOrder order(samples);
    for (const RepetitionRow& rep : *reps) {
        const std::size_t from = samples.size();
        if (from != 0 && samples.capacity() == from) {
            // Repetitions tend to be the same size: make room for the rest, estimated from those read.
            const auto read = static_cast<std::size_t>(&rep - reps->data());
            samples.reserve(from / read * reps->size());
        }
        stmt->bind(1, rep.id);
        for (;;) {
            auto row = stmt->step();
            if (!row) {
                return row.error();
            }
            if (!*row) {
                break;
            }
            engine::Sample& sample = samples.emplace_back();
            sample.variant = rep.variant;
            sample.repetition = rep.index;
            sample.index = static_cast<int>(stmt->int64(0));
            sample.pair = stmt->isNull(1) ? -1 : static_cast<int>(stmt->int64(1));
            sample.start = stmt->real(2);
            sample.duration = stmt->real(3);
            std::span<const unsigned char> blob = stmt->blob(4);
            if (blob.size() != width * kValueBytes) {
                return badBlob(db, run, sample, blob.size());
            }
            sample.values.resize(width);
            decodeValues(blob, sample.values.data());
        }
        stmt->reset();
        order.rowAdded(from);
    }
    order.finish();
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
