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
    "CAST(coalesce(json_extract(r.spec_json, '$.sweep.index'), -1) AS INTEGER) AS sweep_index";

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
    resolveLiveness(row, identity, host);
    row.variants = NF_TRY(r.get<int>("variant_count"));
    row.repetitions = NF_TRY(r.get<int>("repetition_count"));
    row.sweepId = NF_TRY(r.get<std::string>("sweep_id"));
    row.sweepParam = NF_TRY(r.get<std::string>("sweep_param"));
    row.sweepValue = NF_TRY(r.get<std::string>("sweep_value"));
    row.sweepIndex = static_cast<int>(NF_TRY(r.get<std::int64_t>("sweep_index")));
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
};

// In the order they were stored (seq).
Result<std::vector<RepetitionRow>> loadRepetitions(Database& db, std::int64_t runId)
{
    std::vector<RepetitionRow> reps;
    NF_TRY(
        db.forEachRow("SELECT p.id, v.idx, p.idx FROM repetitions p JOIN variants v ON v.id = p.variant_id "
                      "WHERE p.run_id = ? ORDER BY p.seq",
                      runId, [&](const Statement& s) {
                          reps.push_back({s.int64(0), static_cast<int>(s.int64(1)), static_cast<int>(s.int64(2))});
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
    if (NF_TRY(storedSchemaVersion(db)) < 2) {
        return {};
    }
    run.warnings =
        NF_TRY(db.query<std::string>("SELECT text FROM run_warnings WHERE run_id = ? ORDER BY seq", run.row.id));
    return {};
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
    NF_TRY(loadWarnings(db, run));
    NF_TRY(loadSummaries(db, run));
    return run;
}

}  // namespace nf::data
