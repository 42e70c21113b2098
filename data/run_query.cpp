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
#include "data/sample_checksum.h"
#include "data/schema.h"

namespace nf::data {

namespace {

// The runs columns engine::RunRow holds, with the variant and repetition counts and the sweep
// point from the spec; readRow() reads them by name. The sweep's values are cast as readRow reads
// them whatever type a hand-edited spec gave them.
constexpr const char* kRowColumns =
    "SELECT r.id, r.label, r.workload, r.status, r.status_reason, r.started_at, r.ended_at, r.host, r.kernel, "
    "r.cpu_model, r.tool_version, r.pid, r.pid_start, "
    "(SELECT count(*) FROM variants v WHERE v.run_id = r.id) AS variant_count, "
    "(SELECT count(DISTINCT p.idx) FROM repetitions p WHERE p.run_id = r.id) AS repetition_count, "
    "CAST(coalesce(json_extract(r.spec_json, '$.sweep.id'), '') AS TEXT) AS sweep_id, "
    "CAST(coalesce(json_extract(r.spec_json, '$.sweep.param'), '') AS TEXT) AS sweep_param, "
    "CAST(coalesce(json_extract(r.spec_json, '$.sweep.value'), '') AS TEXT) AS sweep_value, "
    "CAST(coalesce(json_extract(r.spec_json, '$.sweep.index'), -1) AS INTEGER) AS sweep_index, "
    "CAST(coalesce(json_extract(r.spec_json, '$.sweep.points'), 0) AS INTEGER) AS sweep_points";

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

Result<engine::RunRow> readRow(const Row& r, const std::string& host)
{
    engine::RunRow row;
    row.id = NF_TRY(r.get<std::int64_t>("id"));
    row.label = NF_TRY(r.get<std::string>("label"));
    row.workload = NF_TRY(r.get<std::string>("workload"));
    const auto statusText = NF_TRY(r.get<std::string>("status"));
    const auto status = engine::parseRunStatus(statusText);
    row.status = status ? *status : engine::RunStatus::Failed;
    row.statusReason = status ? NF_TRY(r.get<std::string>("status_reason")) : "unknown status '" + statusText + "'";
    row.startedAt = NF_TRY(r.get<std::string>("started_at"));
    row.endedAt = NF_TRY(r.get<std::optional<std::string>>("ended_at")).value_or("");
    row.host = NF_TRY(r.get<std::string>("host"));
    row.kernel = NF_TRY(r.get<std::string>("kernel"));
    row.cpuModel = NF_TRY(r.get<std::string>("cpu_model"));
    row.toolVersion = NF_TRY(r.get<std::string>("tool_version"));
    row.pid = NF_TRY(r.get<std::int64_t>("pid"));
    const auto identity = NF_TRY(r.get<std::string>("pid_start"));
    row.bootId = identity.substr(0, identity.find('/') == std::string::npos ? 0 : identity.find('/'));
    if (row.workload.rfind("import:", 0) == 0) {  // the boot that imported it, not the one it measured
        row.bootId.clear();
    }
    resolveLiveness(row, identity, host);
    row.variants = NF_TRY(r.get<int>("variant_count"));
    row.repetitions = NF_TRY(r.get<int>("repetition_count"));
    row.sweepId = NF_TRY(r.get<std::string>("sweep_id"));
    row.sweepParam = NF_TRY(r.get<std::string>("sweep_param"));
    row.sweepValue = NF_TRY(r.get<std::string>("sweep_value"));
    row.sweepIndex = static_cast<int>(NF_TRY(r.get<std::int64_t>("sweep_index")));
    row.sweepPoints = static_cast<int>(NF_TRY(r.get<std::int64_t>("sweep_points")));
    return row;
}

// Every row of a kRowColumns query.
template <typename... Params>
Result<std::vector<engine::RunRow>> readRows(Database& db, const std::string& sql, const Params&... params)
{
    const std::string host = currentHost();
    std::vector<engine::RunRow> rows;
    NF_TRY(db.forEachRow(sql, params..., [&](const Row& row) -> Result<void> {
        rows.push_back(NF_TRY(readRow(row, host)));
        return {};
    }));
    return rows;
}

nlohmann::json parseJson(const std::string& text)
{
    auto json = nlohmann::json::parse(text, nullptr, false);
    return json.is_discarded() ? nlohmann::json() : json;
}

// A file read as it is from before schema 9 names the generator's count as migration 9 renames it
// (gen_packets, gen_pps): read under the names every later run has, so that it compares with them.
void renameOfferedCount(engine::RunRecord& run)
{
    const auto renamed = [](std::string& name, const char* from, const char* to) {
        if (name == from) {
            name = to;
        }
    };
    for (auto& q : run.data.layout.quantities) {
        renamed(q, "gen_packets", engine::quantity::kOfferedPackets);
    }
    for (auto& m : run.data.layout.metrics) {
        if (m.name == "gen_pps") {
            m.name = "offered_pps";
            m.description = "packets the generator offered per second (sent, or XDP_TX verdicts)";
        }
        renamed(m.numerator, "gen_packets", engine::quantity::kOfferedPackets);
    }
    renamed(run.spec.primaryMetric, "gen_pps", "offered_pps");
    if (run.decision) {
        renamed(run.decision->metric, "gen_pps", "offered_pps");
    }
}

Result<void> loadLayout(Database& db, engine::RunRecord& run)
{
    engine::RunData& data = run.data;
    for (auto& [name, params] : NF_TRY(db.query<std::string, std::string>(
             "SELECT name, params_json FROM variants WHERE run_id = ? ORDER BY idx", run.row.id))) {
        data.variantNames.push_back(std::move(name));
        run.variantParams.push_back(parseJson(params));
    }
    data.layout.quantities =
        NF_TRY(db.query<std::string>("SELECT name FROM quantities WHERE run_id = ? ORDER BY idx", run.row.id));
    return db.forEachRow(
        "SELECT name, unit, numerator, denominator, scale, higher_is_better, description, alias_of "
        "FROM metrics WHERE run_id = ? ORDER BY idx",
        run.row.id, [&](const Row& m) -> Result<void> {
            data.layout.metrics.push_back({.name = NF_TRY(m.get<std::string>("name")),
                                           .unit = NF_TRY(m.get<std::string>("unit")),
                                           .numerator = NF_TRY(m.get<std::string>("numerator")),
                                           .denominator = NF_TRY(m.get<std::string>("denominator")),
                                           .scale = NF_TRY(m.get<double>("scale")),
                                           .higherIsBetter = NF_TRY(m.get<bool>("higher_is_better")),
                                           .description = NF_TRY(m.get<std::string>("description")),
                                           .aliasOf = NF_TRY(m.get<std::string>("alias_of"))});
            return {};
        });
}

// A database of schema 1 or 2, opened read-only (not migrated), has no summaries table.
Result<void> loadSummaries(Database& db, engine::RunRecord& run)
{
    if (NF_TRY(storedSchemaVersion(db)) < 3) {
        return {};
    }
    const auto rows = NF_TRY(db.query<int, int, std::string, double, double, double>(
        "SELECT v.idx, p.idx, q.name, s.n, s.mean, s.se FROM summaries s "
        "JOIN repetitions p ON p.id = s.repetition_id JOIN variants v ON v.id = p.variant_id "
        "JOIN quantities q ON q.id = s.quantity_id WHERE p.run_id = ? ORDER BY p.seq, q.idx",
        run.row.id));
    for (const auto& [variant, repetition, quantity, n, mean, se] : rows) {
        run.data.summaries.push_back({variant, repetition, quantity, n, mean, se});
    }
    return {};
}

// A repetitions row of the run: its samples' variant and repetition index.
struct RepetitionRow {
    std::int64_t id = 0;
    int variant = 0;
    int index = 0;
    int layout = -1;    // the code placement it ran in; -1 when none was recorded
    std::string state;  // the tested settings before and after (JSON); "" when none were read
};

// In the order they were stored (seq).
Result<std::vector<RepetitionRow>> loadRepetitions(Database& db, std::int64_t runId)
{
    std::vector<RepetitionRow> reps;
    // Schema 8 on: the placement (a file read as it is from before has none).
    const auto version = NF_TRY(storedSchemaVersion(db));
    const char* layout = version >= 8 ? "coalesce(p.layout, -1)" : "-1";
    // Schema 9 on: the tested settings.
    const char* state = version >= 9 ? "coalesce(p.state_json, '')" : "''";
    NF_TRY(db.forEachRow(std::string("SELECT p.id, v.idx, p.idx, ") + layout + ", " + state +
                             " FROM repetitions p JOIN variants v ON v.id = p.variant_id "
                             "WHERE p.run_id = ? ORDER BY p.seq",
                         runId, [&](const Statement& s) {
                             reps.push_back({s.int64(0), static_cast<int>(s.int64(1)), static_cast<int>(s.int64(2)),
                                             static_cast<int>(s.int64(3)), s.text(4)});
                         }));
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

Error damagedSample(const Database& db, const engine::RunRecord& run, const engine::Sample& sample)
{
    return Error{"cannot load run " + std::to_string(run.row.id) + " from " + db.path() + ": sample " +
                 std::to_string(sample.index) + " of repetition " + std::to_string(sample.repetition) +
                 " does not match its checksum (the file was changed after it was written, or is damaged)"};
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
    if (NF_TRY(storedSchemaVersion(db)) < 2) {
        return {};
    }
    run.warnings =
        NF_TRY(db.query<std::string>("SELECT text FROM run_warnings WHERE run_id = ? ORDER BY seq", run.row.id));
    return {};
}

Result<void> loadSamples(Database& db, engine::RunRecord& run)
{
    const auto reps = NF_TRY(loadRepetitions(db, run.row.id));
    // Schema 6 on: each row's checksum (a file read as it is from before has none).
    const char* checksum = NF_TRY(storedSchemaVersion(db)) >= 6 ? "checksum" : "NULL";
    auto stmt = NF_TRY(db.prepare(std::string("SELECT idx, coalesce(pair, -1), start_s, duration_s, vals, ") +
                                  checksum + " FROM samples WHERE repetition_id = ? ORDER BY idx"));
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
        if (rep.layout >= 0) {
            run.data.layouts[{rep.variant, rep.index}] = rep.layout;
        }
        // Every variant's row of a unit holds the unit's reading: each unit once.
        if (!rep.state.empty() &&
            (&rep == reps.data() || rep.state != (&rep - 1)->state || rep.index != (&rep - 1)->index)) {
            auto state = nlohmann::json::parse(rep.state, nullptr, false);
            if (!state.is_discarded()) {
                run.data.testedStates.emplace_back(rep.index, std::move(state));
            }
        }
        const std::size_t from = table.size();
        const auto read = static_cast<std::size_t>(&rep - reps.data());
        if (from != 0 && table.capacity() - from < from / read) {
            // Repetitions tend to be the same size: make room for the rest, estimated from those
            // read, rather than growing every column step by step; past the estimate, by half.
            table.reserve(std::max(from / read * reps.size(), table.capacity() + table.capacity() / 2));
        }
        NF_TRY(stmt.bind(1, rep.id).forEachRow([&](const Statement& sample) -> Result<void> {
            row.variant = rep.variant;
            row.repetition = rep.index;
            row.index = static_cast<int>(sample.int64(0));
            row.pair = static_cast<int>(sample.int64(1));
            row.start = sample.real(2);
            row.duration = sample.real(3);
            const std::span<const unsigned char> blob = sample.blob(4);
            if (blob.size() != width * kValueBytes) {
                return badBlob(db, run, row, blob.size());
            }
            if (!sample.isNull(5) && sample.int64(5) != sampleChecksum(row, blob)) {
                return damagedSample(db, run, row);
            }
            decodeValues(blob, row.values.data());
            table.append(row);
            return {};
        }));
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
    return readRows(db, std::string(kRowColumns) + " FROM runs r ORDER BY r.started_at DESC, r.id DESC");
}

Result<std::vector<engine::RunRow>> sweepRuns(Database& db, const std::string& sweepId)
{
    return readRows(db,
                    std::string(kRowColumns) +
                        " FROM runs r WHERE json_extract(r.spec_json, '$.sweep.id') = ? "
                        "ORDER BY json_extract(r.spec_json, '$.sweep.index'), r.id",
                    sweepId);
}

Result<engine::RunRecord> loadRun(Database& db, std::int64_t id)
{
    ReadSnapshot snapshot(db);
    engine::RunRecord run;
    {
        auto stmt = NF_TRY(
            db.prepare(std::string(kRowColumns) + ", r.spec_json, r.environment_json FROM runs r WHERE r.id = ?"));
        if (!NF_TRY(stmt.bind(1, id).step())) {
            return Error{"no run " + std::to_string(id) + " in " + db.path()};
        }
        const Row row(stmt);
        run.row = NF_TRY(readRow(row, currentHost()));
        auto spec = engine::experimentSpecFromJson(parseJson(NF_TRY(row.get<std::string>("spec_json"))));
        if (!spec) {
            return Error{"run " + std::to_string(id) + " in " + db.path() + ": " + spec.error().message};
        }
        run.spec = std::move(*spec);
        run.environment = engine::RunEnvironment::fromJson(parseJson(NF_TRY(row.get<std::string>("environment_json"))));
    }
    NF_TRY(loadLayout(db, run));
    NF_TRY(loadSamples(db, run));
    NF_TRY(loadDecision(db, run));
    NF_TRY(loadProfile(db, run));
    if (NF_TRY(storedSchemaVersion(db)) < 9) {
        renameOfferedCount(run);
    }
    NF_TRY(loadWarnings(db, run));
    NF_TRY(loadSummaries(db, run));
    return run;
}

}  // namespace nf::data
