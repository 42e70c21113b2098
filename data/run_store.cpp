#include "data/run_store.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <limits>

#include "data/process_identity.h"
#include "data/sample_blob.h"
#include "data/sample_checksum.h"
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
    return db.run(
        "INSERT INTO runs (label, workload, spec_json, status, started_at, host, kernel, cpu_model, "
        "environment_json, tool_version, pid, pid_start) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)",
        start.spec.label, start.spec.workload, dumpJson(engine::toJson(start.spec)), utcNow(),
        systemFact(start.environment, "hostname"), systemFact(start.environment, "kernel_release"),
        systemFact(start.environment, "cpu_model"), dumpJson(start.environment), NF_VERSION,
        static_cast<std::int64_t>(getpid()), processIdentity(getpid()));
}

Result<std::vector<std::int64_t>> insertVariants(Database& db, std::int64_t runId, const engine::RunStart& start)
{
    auto stmt = NF_TRY(db.prepare("INSERT INTO variants (run_id, idx, name, params_json) VALUES (?, ?, ?, ?)"));
    std::vector<std::int64_t> ids;
    for (std::size_t i = 0; i < start.spec.variants.size(); ++i) {
        nlohmann::json params = i < start.variantParams.size() ? start.variantParams[i] : nlohmann::json::object();
        NF_TRY(stmt.bindAll(runId, static_cast<std::int64_t>(i), start.spec.variants[i].name, dumpJson(params)).run());
        ids.push_back(db.lastInsertId());
    }
    return ids;
}

Result<std::vector<std::int64_t>> insertQuantities(Database& db, std::int64_t runId, const engine::RunLayout& layout)
{
    auto stmt = NF_TRY(db.prepare("INSERT INTO quantities (run_id, idx, name) VALUES (?, ?, ?)"));
    std::vector<std::int64_t> ids;
    for (std::size_t i = 0; i < layout.quantities.size(); ++i) {
        NF_TRY(stmt.bindAll(runId, static_cast<std::int64_t>(i), layout.quantities[i]).run());
        ids.push_back(db.lastInsertId());
    }
    return ids;
}

Result<void> insertMetrics(Database& db, std::int64_t runId, const engine::RunLayout& layout)
{
    auto stmt = NF_TRY(
        db.prepare("INSERT INTO metrics (run_id, idx, name, unit, numerator, denominator, scale, higher_is_better, "
                   "description, alias_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (std::size_t i = 0; i < layout.metrics.size(); ++i) {
        const engine::MetricSpec& m = layout.metrics[i];
        NF_TRY(stmt.bindAll(runId, static_cast<std::int64_t>(i), m.name, m.unit, m.numerator, m.denominator, m.scale,
                            m.higherIsBetter ? 1 : 0, m.description, m.aliasOf)
                   .run());
    }
    return {};
}

Result<std::int64_t> nextSeq(Database& db, std::int64_t runId)
{
    auto next =
        NF_TRY(db.queryOne<std::int64_t>("SELECT coalesce(max(seq) + 1, 0) FROM repetitions WHERE run_id = ?", runId));
    return next.value_or(0);
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
        const std::int64_t seq = NF_TRY(nextSeq(db, runId));
        auto rep = NF_TRY(
            db.prepare("INSERT INTO repetitions (run_id, variant_id, idx, seq, started_s, ended_s, status, layout, "
                       "state_json) VALUES (?, ?, ?, ?, ?, ?, 'complete', ?, ?)"));
        auto sample =
            NF_TRY(db.prepare("INSERT INTO samples (repetition_id, idx, pair, start_s, duration_s, vals, checksum) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?)"));
        return RepetitionWriter(db, runId, quantities, seq, std::move(rep), std::move(sample));
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
            m_rep.bindAll(m_runId, variantIds[static_cast<std::size_t>(variant)], rep.index, m_seq++, first, last);
            if (static_cast<std::size_t>(variant) < rep.layouts.size()) {
                m_rep.bind(7, rep.layouts[static_cast<std::size_t>(variant)]);
            }
            if (!rep.state.is_null()) {
                m_rep.bind(8, rep.state.dump());
            }
            NF_TRY(m_rep.run());
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
        m_sample.bind(7, sampleChecksum(sample, m_blob));
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
{
    auto tx = NF_TRY(Transaction::begin(m_db));
    NF_TRY(insertRun(m_db, start));
    const std::int64_t runId = m_db.lastInsertId();
    auto variants = NF_TRY(insertVariants(m_db, runId, start));
    auto quantities = NF_TRY(insertQuantities(m_db, runId, start.layout));
    NF_TRY(insertMetrics(m_db, runId, start.layout));
    NF_TRY(tx.commit());
    m_runId = runId;
    m_variantIds = std::move(variants);
    m_quantityIds = std::move(quantities);
    return {};
}

Result<void> RunRecorder::repetitionFinished(const engine::RepetitionResult& rep)
{
    if (m_runId == 0) {
        return Error{"cannot store repetition " + std::to_string(rep.index) + ": the run was not stored"};
    }
    NF_TRY(m_db.stillAtPath());  // measuring on would store into a file nobody reads
    auto tx = NF_TRY(Transaction::begin(m_db));
    auto writer = NF_TRY(RepetitionWriter::prepare(m_db, m_runId, m_quantityIds.size()));
    const auto repIds = NF_TRY(writer.insertRepetitions(rep, m_variantIds));
    for (const engine::Sample* sample : storageOrder(rep, repIds)) {
        NF_TRY(writer.insertSample(*sample, repIds[static_cast<std::size_t>(sample->variant)]));
    }
    return tx.commit();
}

void RunRecorder::warning(std::string_view text)
{
    if (m_runId == 0) {
        return;  // said on the terminal; there is no run to store it with
    }
    auto stored = m_db.run("INSERT INTO run_warnings (run_id, seq, text) VALUES (?, ?, ?)", m_runId,
                           std::int64_t{m_warnings}, text);
    if (stored) {
        ++m_warnings;
    } else if (!m_warningError) {
        m_warningError = stored.error();
    }
}

Result<void> RunRecorder::summariesFinished(const std::vector<engine::SummaryStat>& summaries)
{
    if (m_runId == 0) {
        return Error{"cannot store summaries: the run was not stored"};
    }
    auto stmt =
        NF_TRY(m_db.prepare("INSERT INTO summaries (repetition_id, quantity_id, n, mean, se) "
                            "SELECT p.id, q.id, ?, ?, ? FROM repetitions p JOIN variants v ON v.id = p.variant_id "
                            "JOIN quantities q ON q.run_id = p.run_id "
                            "WHERE p.run_id = ? AND v.idx = ? AND p.idx = ? AND q.name = ?"));
    for (const auto& s : summaries) {
        NF_TRY(stmt.bindAll(static_cast<std::int64_t>(s.n), s.mean, s.se, m_runId, static_cast<std::int64_t>(s.variant),
                            static_cast<std::int64_t>(s.repetition), s.quantity)
                   .run());
        if (sqlite3_changes(m_db.handle()) != 1) {
            return Error{"cannot store the summary of " + s.quantity + ": no such repetition or quantity"};
        }
    }
    return {};
}

void RunRecorder::runFinished(engine::RunStatus status, std::string_view reason)
{
    if (m_warningError) {
        m_finishError = Error{"a warning could not be stored with the run: " + m_warningError->message};
    }
    if (m_runId == 0) {
        m_finishError = Error{"cannot record the end of the run: the run was not stored"};
        return;
    }
    if (auto done = m_db.run("UPDATE runs SET status = ?, status_reason = ?, ended_at = ? WHERE id = ?",
                             engine::toString(status), reason, utcNow(), m_runId);
        !done) {
        m_finishError = done.error();
    }
}

Result<void> setEnvironmentSection(Database& db, std::int64_t id, const std::string& key, const nlohmann::json& value)
{
    auto stmt = NF_TRY(db.prepare(
        "UPDATE runs SET environment_json = json_set(environment_json, ?2, json(?3)) WHERE id = ?1 RETURNING id"));
    stmt.bind(1, id);
    stmt.bind(2, "$." + key);
    stmt.bind(3, value.dump());
    if (!NF_TRY(stmt.step())) {
        return Error{"no run " + std::to_string(id) + " in " + db.path()};
    }
    return {};
}

}  // namespace nf::data
