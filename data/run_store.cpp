#include "data/run_store.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <exception>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <unordered_map>

#include "data/process_identity.h"
#include "data/sample_blob.h"
#include "nf_version.h"

namespace nf::data {
namespace {

// Strings from the system (hostnames, command lines) need not be UTF-8: never let dump() throw.
std::string dumpJson(const nlohmann::json& json)
{
    return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string utcNow()
{
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    if (std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
        return {};
    }
    return text;
}

// environment["system"][key] when it is a string, else "".
std::string systemFact(const nlohmann::json& environment, const char* key)
{
    if (!environment.is_object()) {
        return {};
    }
    auto system = environment.find("system");
    if (system == environment.end() || !system->is_object()) {
        return {};
    }
    auto value = system->find(key);
    return value != system->end() && value->is_string() ? value->get<std::string>() : std::string();
}

Result<void> insertRun(Database& db, const engine::RunStart& start)
{
    auto stmt = db.prepare(
        "INSERT INTO runs (label, workload, spec_json, status, started_at, host, kernel, cpu_model, "
        "environment_json, tool_version, pid, pid_start) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, start.spec.label)
        .bind(2, start.spec.workload)
        .bind(3, dumpJson(engine::toJson(start.spec)))
        .bind(4, utcNow())
        .bind(5, systemFact(start.environment, "hostname"))
        .bind(6, systemFact(start.environment, "kernel_release"))
        .bind(7, systemFact(start.environment, "cpu_model"))
        .bind(8, dumpJson(start.environment))
        .bind(9, NF_VERSION)
        .bind(10, static_cast<std::int64_t>(getpid()))
        .bind(11, processIdentity(getpid()));
    return stmt->run();
}

Result<std::vector<std::int64_t>> insertVariants(Database& db, std::int64_t runId, const engine::RunStart& start)
{
    auto stmt = db.prepare("INSERT INTO variants (run_id, idx, name, params_json) VALUES (?, ?, ?, ?)");
    if (!stmt) {
        return stmt.error();
    }
    std::vector<std::int64_t> ids;
    for (std::size_t i = 0; i < start.spec.variants.size(); ++i) {
        nlohmann::json params = i < start.variantParams.size() ? start.variantParams[i] : nlohmann::json::object();
        stmt->bind(1, runId).bind(2, static_cast<std::int64_t>(i)).bind(3, start.spec.variants[i].name);
        stmt->bind(4, dumpJson(params));
        if (auto done = stmt->run(); !done) {
            return done.error();
        }
        ids.push_back(db.lastInsertId());
    }
    return ids;
}

Result<std::vector<std::int64_t>> insertQuantities(Database& db, std::int64_t runId, const engine::RunLayout& layout)
{
    auto stmt = db.prepare("INSERT INTO quantities (run_id, idx, name) VALUES (?, ?, ?)");
    if (!stmt) {
        return stmt.error();
    }
    std::vector<std::int64_t> ids;
    for (std::size_t i = 0; i < layout.quantities.size(); ++i) {
        stmt->bind(1, runId).bind(2, static_cast<std::int64_t>(i)).bind(3, layout.quantities[i]);
        if (auto done = stmt->run(); !done) {
            return done.error();
        }
        ids.push_back(db.lastInsertId());
    }
    return ids;
}

Result<void> insertMetrics(Database& db, std::int64_t runId, const engine::RunLayout& layout)
{
    auto stmt = db.prepare(
        "INSERT INTO metrics (run_id, idx, name, unit, numerator, denominator, scale, higher_is_better, "
        "description, alias_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!stmt) {
        return stmt.error();
    }
    for (std::size_t i = 0; i < layout.metrics.size(); ++i) {
        const engine::MetricSpec& m = layout.metrics[i];
        stmt->bind(1, runId).bind(2, static_cast<std::int64_t>(i)).bind(3, m.name).bind(4, m.unit);
        stmt->bind(5, m.numerator).bind(6, m.denominator).bind(7, m.scale);
        stmt->bind(8, m.higherIsBetter ? 1 : 0).bind(9, m.description).bind(10, m.aliasOf);
        if (auto done = stmt->run(); !done) {
            return done.error();
        }
    }
    return {};
}

Result<std::int64_t> nextSeq(Database& db, std::int64_t runId)
{
    auto stmt = db.prepare("SELECT coalesce(max(seq) + 1, 0) FROM repetitions WHERE run_id = ?");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, runId);
    auto row = stmt->step();
    if (!row) {
        return row.error();
    }
    return *row ? stmt->int64(0) : 0;
}

// Variants of the repetition in the order they ran, plus any that only appear in its samples.
std::vector<int> repetitionVariants(const engine::RepetitionResult& rep)
{
    std::vector<int> variants;
    auto add = [&](int variant) {
        if (std::find(variants.begin(), variants.end(), variant) == variants.end()) {
            variants.push_back(variant);
        }
    };
    std::for_each(rep.variants.begin(), rep.variants.end(), add);
    for (const engine::Sample& sample : rep.samples) {
        add(sample.variant);
    }
    return variants;
}

// [first start, last end] of the variant's samples; the repetition's span when it has none.
std::pair<double, double> variantSpan(const engine::RepetitionResult& rep, int variant)
{
    double first = std::numeric_limits<double>::infinity();
    double last = -first;
    for (const engine::Sample& sample : rep.samples) {
        if (sample.variant != variant) {
            continue;
        }
        first = std::min(first, sample.start);
        last = std::max(last, sample.start + sample.duration);
    }
    if (first > last) {
        return {rep.start, rep.end};
    }
    return {first, last};
}

// The samples by repetitions row, then index: the order loadRun reads them in (by the
// (repetition_id, idx) index), so that its reads visit the table's rows one after the other instead
// of jumping between variants. The variants were checked by insertRepetitions.
std::vector<const engine::Sample*> storageOrder(const engine::RepetitionResult& rep,
                                                const std::vector<std::int64_t>& repIds)
{
    std::vector<const engine::Sample*> order;
    order.reserve(rep.samples.size());
    for (const engine::Sample& sample : rep.samples) {
        order.push_back(&sample);
    }
    auto rowOf = [&](const engine::Sample* s) { return repIds[static_cast<std::size_t>(s->variant)]; };
    std::stable_sort(order.begin(), order.end(), [&](const engine::Sample* a, const engine::Sample* b) {
        return rowOf(a) < rowOf(b) || (rowOf(a) == rowOf(b) && a->index < b->index);
    });
    return order;
}

Error badSample(const std::string& what, const engine::Sample& sample)
{
    return Error{"cannot store sample " + std::to_string(sample.index) + " of variant " +
                 std::to_string(sample.variant) + ": " + what};
}

// The statements that store one repetition, prepared once and reused for every row.
class RepetitionWriter {
public:
    static Result<RepetitionWriter> prepare(Database& db, std::int64_t runId, std::size_t quantities)
    {
        auto seq = nextSeq(db, runId);
        auto rep = db.prepare(
            "INSERT INTO repetitions (run_id, variant_id, idx, seq, started_s, ended_s, status) "
            "VALUES (?, ?, ?, ?, ?, ?, 'complete')");
        auto sample = db.prepare(
            "INSERT INTO samples (repetition_id, idx, pair, start_s, duration_s, vals) VALUES (?, ?, ?, ?, ?, ?)");
        if (!seq) {
            return seq.error();
        }
        if (!rep || !sample) {
            return !rep ? rep.error() : sample.error();
        }
        return RepetitionWriter(db, runId, quantities, *seq, std::move(*rep), std::move(*sample));
    }

    // One repetitions row per variant; returns the row ids indexed by variant.
    Result<std::vector<std::int64_t>> insertRepetitions(const engine::RepetitionResult& rep,
                                                        const std::vector<std::int64_t>& variantIds)
    {
        std::vector<std::int64_t> repIds(variantIds.size(), 0);
        for (int variant : repetitionVariants(rep)) {
            if (variant < 0 || static_cast<std::size_t>(variant) >= variantIds.size()) {
                return Error{"cannot store repetition " + std::to_string(rep.index) + ": no variant " +
                             std::to_string(variant) + " in the run"};
            }
            auto [first, last] = variantSpan(rep, variant);
            m_rep.bind(1, m_runId).bind(2, variantIds[static_cast<std::size_t>(variant)]).bind(3, rep.index);
            m_rep.bind(4, m_seq++).bind(5, first).bind(6, last);
            if (auto done = m_rep.run(); !done) {
                return done.error();
            }
            repIds[static_cast<std::size_t>(variant)] = m_db.lastInsertId();
        }
        return repIds;
    }

    // One samples row; its values go into the vals blob (sample_blob.h), NaN included.
    Result<void> insertSample(const engine::Sample& sample, std::int64_t repetitionId)
    {
        if (sample.values.size() != m_quantities) {
            return badSample(
                std::to_string(sample.values.size()) + " values for " + std::to_string(m_quantities) + " quantities",
                sample);
        }
        encodeValues(sample.values, m_blob);
        m_sample.bind(1, repetitionId).bind(2, sample.index);
        if (sample.pair >= 0) {
            m_sample.bind(3, sample.pair);
        }
        m_sample.bind(4, sample.start).bind(5, sample.duration).bind(6, m_blob);
        return m_sample.run();
    }

private:
    RepetitionWriter(Database& db, std::int64_t runId, std::size_t quantities, std::int64_t seq, Statement rep,
                     Statement sample)
        : m_db(db),
          m_runId(runId),
          m_quantities(quantities),
          m_seq(seq),
          m_rep(std::move(rep)),
          m_sample(std::move(sample))
    {
    }

    Database& m_db;
    std::int64_t m_runId;
    std::size_t m_quantities;
    std::int64_t m_seq;
    Statement m_rep;
    Statement m_sample;
    std::vector<unsigned char> m_blob;  // reused for every sample
};

}  // namespace

Result<void> RunRecorder::runStarted(const engine::RunStart& start)
try {
    auto tx = Transaction::begin(m_db);
    if (!tx) {
        return tx.error();
    }
    if (auto inserted = insertRun(m_db, start); !inserted) {
        return inserted;
    }
    std::int64_t runId = m_db.lastInsertId();
    auto variants = insertVariants(m_db, runId, start);
    if (!variants) {
        return variants.error();
    }
    auto quantities = insertQuantities(m_db, runId, start.layout);
    if (!quantities) {
        return quantities.error();
    }
    if (auto metrics = insertMetrics(m_db, runId, start.layout); !metrics) {
        return metrics;
    }
    if (auto committed = tx->commit(); !committed) {
        return committed;
    }
    m_runId = runId;
    m_variantIds = std::move(*variants);
    m_quantityIds = std::move(*quantities);
    return {};
} catch (const std::exception& e) {
    return Error{std::string("cannot store the run: ") + e.what()};
}

Result<void> RunRecorder::repetitionFinished(const engine::RepetitionResult& rep)
try {
    if (m_runId == 0) {
        return Error{"cannot store repetition " + std::to_string(rep.index) + ": the run was not stored"};
    }
    if (auto here = m_db.stillAtPath(); !here) {  // measuring on would store into a file nobody reads
        return here.error();
    }
    auto tx = Transaction::begin(m_db);
    if (!tx) {
        return tx.error();
    }
    auto writer = RepetitionWriter::prepare(m_db, m_runId, m_quantityIds.size());
    if (!writer) {
        return writer.error();
    }
    auto repIds = writer->insertRepetitions(rep, m_variantIds);
    if (!repIds) {
        return repIds.error();
    }
    for (const engine::Sample* sample : storageOrder(rep, *repIds)) {
        if (auto stored = writer->insertSample(*sample, (*repIds)[static_cast<std::size_t>(sample->variant)]);
            !stored) {
            return stored;
        }
    }
    return tx->commit();
} catch (const std::exception& e) {
    return Error{"cannot store repetition " + std::to_string(rep.index) + ": " + e.what()};
}

void RunRecorder::warning(std::string_view text)
{
    if (m_runId == 0) {
        return;  // said on the terminal; there is no run to store it with
    }
    try {
        auto stmt = m_db.prepare("INSERT INTO run_warnings (run_id, seq, text) VALUES (?, ?, ?)");
        if (stmt) {
            stmt->bind(1, m_runId).bind(2, std::int64_t{m_warnings}).bind(3, text);
            if (auto done = stmt->run(); done) {
                ++m_warnings;
                return;
            } else if (!m_warningError) {
                m_warningError = done.error();
            }
        } else if (!m_warningError) {
            m_warningError = stmt.error();
        }
    } catch (const std::exception& e) {
        if (!m_warningError) {
            m_warningError = Error{e.what()};
        }
    }
}

Result<void> RunRecorder::summariesFinished(const std::vector<engine::SummaryStat>& summaries)
try {
    if (m_runId == 0) {
        return Error{"cannot store summaries: the run was not stored"};
    }
    auto stmt = m_db.prepare(
        "INSERT INTO summaries (repetition_id, quantity_id, n, mean, se) "
        "SELECT p.id, q.id, ?, ?, ? FROM repetitions p JOIN variants v ON v.id = p.variant_id "
        "JOIN quantities q ON q.run_id = p.run_id "
        "WHERE p.run_id = ? AND v.idx = ? AND p.idx = ? AND q.name = ?");
    if (!stmt) {
        return stmt.error();
    }
    for (const auto& s : summaries) {
        stmt->bind(1, static_cast<std::int64_t>(s.n))
            .bind(2, s.mean)
            .bind(3, s.se)
            .bind(4, m_runId)
            .bind(5, static_cast<std::int64_t>(s.variant))
            .bind(6, static_cast<std::int64_t>(s.repetition))
            .bind(7, s.quantity);
        if (auto done = stmt->run(); !done) {
            return done;
        }
        if (sqlite3_changes(m_db.handle()) != 1) {
            return Error{"cannot store the summary of " + s.quantity + ": no such repetition or quantity"};
        }
    }
    return {};
} catch (const std::exception& e) {
    return Error{std::string("cannot store summaries: ") + e.what()};
}

void RunRecorder::runFinished(engine::RunStatus status, std::string_view reason)
{
    if (m_warningError) {
        m_finishError = Error{"a warning could not be stored with the run: " + m_warningError->message};
    }
    try {
        if (m_runId == 0) {
            m_finishError = Error{"cannot record the end of the run: the run was not stored"};
            return;
        }
        auto stmt = m_db.prepare("UPDATE runs SET status = ?, status_reason = ?, ended_at = ? WHERE id = ?");
        if (!stmt) {
            m_finishError = stmt.error();
            return;
        }
        stmt->bind(1, engine::toString(status)).bind(2, reason).bind(3, utcNow()).bind(4, m_runId);
        if (auto done = stmt->run(); !done) {
            m_finishError = done.error();
        }
    } catch (const std::exception& e) {
        m_finishError = Error{std::string("cannot record the end of the run: ") + e.what()};
    }
}

}  // namespace nf::data
