// Profiles (migration 10): written repetition by repetition as a profiled run goes, each with how
// the profile was taken so far, and read back with the run.

#include <algorithm>
#include <nlohmann/json.hpp>

#include "data/run_store.h"
#include "data/schema.h"

namespace nf::data {

namespace {

std::string cpusJson(const std::vector<engine::ProfileCpu>& cpus)
{
    auto list = nlohmann::json::array();
    for (const auto& c : cpus) {
        list.push_back({{"cpu", c.cpu}, {"role", c.role}});
    }
    return list.dump();
}

std::vector<engine::ProfileCpu> cpusFromJson(const std::string& text)
{
    std::vector<engine::ProfileCpu> cpus;
    const auto list = nlohmann::json::parse(text, nullptr, false);
    if (!list.is_array()) {
        return cpus;
    }
    for (const auto& c : list) {
        if (c.is_object() && c.value("cpu", nlohmann::json()).is_number_integer() &&
            c.value("role", nlohmann::json()).is_string()) {
            cpus.push_back({c["cpu"].get<int>(), c["role"].get<std::string>()});
        }
    }
    return cpus;
}

Result<void> writeSummary(Database& db, std::int64_t runId, const engine::ProfileSummary& s)
{
    return db.run(
        "INSERT INTO profiles (run_id, event, frequency_hz, cpus_json, samples, outside, lost, reader_s, "
        "reader_on_measured) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET "
        "samples = excluded.samples, outside = excluded.outside, lost = excluded.lost, reader_s = excluded.reader_s",
        runId, s.event, std::int64_t{s.hz}, cpusJson(s.cpus), static_cast<std::int64_t>(s.samples),
        static_cast<std::int64_t>(s.outside), static_cast<std::int64_t>(s.lost), s.readerSeconds,
        std::int64_t{s.readerOnMeasured ? 1 : 0});
}

}  // namespace

Result<void> RunRecorder::profileMeasured(const engine::ProfileSummary& soFar, const engine::RepetitionProfile& p)
{
    if (m_runId == 0) {
        return Error{"cannot store a profile: the run was not stored"};
    }
    auto tx = NF_TRY(Transaction::begin(m_db));
    NF_TRY(writeSummary(m_db, m_runId, soFar));
    std::vector<std::int64_t> ids;
    for (const auto& name : p.symbols) {
        auto [it, fresh] = m_profileSymbols.try_emplace(name, 0);
        if (fresh) {
            NF_TRY(m_db.run("INSERT INTO profile_symbols (run_id, name) VALUES (?, ?)", m_runId, name));
            it->second = m_db.lastInsertId();
        }
        ids.push_back(it->second);
    }
    auto chunk =
        NF_TRY(m_db.prepare("INSERT INTO profile_chunks (run_id, variant, repetition, sample_idx, cpu, samples) VALUES "
                            "(?, ?, ?, ?, ?, ?)"));
    for (const auto& c : p.chunks) {
        NF_TRY(chunk
                   .bindAll(m_runId, std::int64_t{c.variant}, std::int64_t{c.repetition}, std::int64_t{c.index},
                            std::int64_t{c.cpu}, std::int64_t{c.samples})
                   .run());
    }
    auto count = NF_TRY(
        m_db.prepare("INSERT INTO profile_counts (run_id, variant, repetition, sample_idx, cpu, symbol_id, samples) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?)"));
    for (const auto& c : p.counts) {
        NF_TRY(count
                   .bindAll(m_runId, std::int64_t{c.variant}, std::int64_t{c.repetition}, std::int64_t{c.index},
                            std::int64_t{c.cpu}, ids.at(static_cast<std::size_t>(c.symbol)), std::int64_t{c.samples})
                   .run());
    }
    auto stack = NF_TRY(m_db.prepare(
        "INSERT INTO profile_stacks (run_id, variant, repetition, cpu, stack, samples) VALUES (?, ?, ?, ?, ?, ?)"));
    for (const auto& s : p.stacks) {
        NF_TRY(stack
                   .bindAll(m_runId, std::int64_t{s.variant}, std::int64_t{s.repetition}, std::int64_t{s.cpu}, s.stack,
                            std::int64_t{s.samples})
                   .run());
    }
    return tx.commit();
}

Result<void> RunRecorder::profileFinished(const engine::ProfileSummary& summary)
{
    if (m_runId == 0) {
        return Error{"cannot store a profile: the run was not stored"};
    }
    return writeSummary(m_db, m_runId, summary);
}

Result<void> loadProfile(Database& db, engine::RunRecord& run)
{
    if (NF_TRY(storedSchemaVersion(db)) < 10) {  // opened read-only before migration 10: no profiles in it
        return {};
    }
    auto stmt =
        NF_TRY(db.prepare("SELECT event, frequency_hz, cpus_json, samples, outside, lost, reader_s, "
                          "reader_on_measured FROM profiles WHERE run_id = ?"));
    if (!NF_TRY(stmt.bind(1, run.row.id).step())) {
        return {};
    }
    const Row row(stmt);
    engine::RunProfile profile;
    auto& s = profile.summary;
    s.event = NF_TRY(row.get<std::string>("event"));
    s.hz = NF_TRY(row.get<int>("frequency_hz"));
    s.cpus = cpusFromJson(NF_TRY(row.get<std::string>("cpus_json")));
    s.samples = static_cast<std::uint64_t>(NF_TRY(row.get<std::int64_t>("samples")));
    s.outside = static_cast<std::uint64_t>(NF_TRY(row.get<std::int64_t>("outside")));
    s.lost = static_cast<std::uint64_t>(NF_TRY(row.get<std::int64_t>("lost")));
    s.readerSeconds = NF_TRY(row.get<double>("reader_s"));
    s.readerOnMeasured = NF_TRY(row.get<int>("reader_on_measured")) != 0;

    std::map<std::int64_t, int> symbolIndex;
    NF_TRY(db.forEachRow("SELECT id, name FROM profile_symbols WHERE run_id = ? ORDER BY id", run.row.id,
                         [&](const Row& r) -> Result<void> {
                             symbolIndex[NF_TRY(r.get<std::int64_t>("id"))] = static_cast<int>(profile.symbols.size());
                             profile.symbols.push_back(NF_TRY(r.get<std::string>("name")));
                             return {};
                         }));
    NF_TRY(db.forEachRow("SELECT variant, repetition, sample_idx, cpu, samples FROM profile_chunks WHERE run_id = ?",
                         run.row.id, [&](const Row& r) -> Result<void> {
                             profile.chunks.push_back({NF_TRY(r.get<int>("variant")), NF_TRY(r.get<int>("repetition")),
                                                       NF_TRY(r.get<int>("sample_idx")), NF_TRY(r.get<int>("cpu")),
                                                       NF_TRY(r.get<int>("samples"))});
                             return {};
                         }));
    NF_TRY(db.forEachRow(
        "SELECT variant, repetition, sample_idx, cpu, symbol_id, samples FROM profile_counts WHERE run_id = ?",
        run.row.id, [&](const Row& r) -> Result<void> {
            const auto symbol = symbolIndex.find(NF_TRY(r.get<std::int64_t>("symbol_id")));
            if (symbol == symbolIndex.end()) {
                return Error{"run " + std::to_string(run.row.id) + " in " + db.path() +
                             ": a profile count names no stored symbol"};
            }
            profile.counts.push_back({NF_TRY(r.get<int>("variant")), NF_TRY(r.get<int>("repetition")),
                                      NF_TRY(r.get<int>("sample_idx")), NF_TRY(r.get<int>("cpu")), symbol->second,
                                      NF_TRY(r.get<int>("samples"))});
            return {};
        }));
    NF_TRY(
        db.forEachRow("SELECT variant, repetition, cpu, stack, samples FROM profile_stacks WHERE run_id = ? "
                      "ORDER BY variant, repetition, cpu, stack",
                      run.row.id, [&](const Row& r) -> Result<void> {
                          profile.stacks.push_back({NF_TRY(r.get<int>("variant")), NF_TRY(r.get<int>("repetition")),
                                                    NF_TRY(r.get<int>("cpu")), NF_TRY(r.get<std::string>("stack")),
                                                    NF_TRY(r.get<int>("samples"))});
                          return {};
                      }));
    // Every row names a variant of the run: the readers index the variants by it.
    const auto variants = static_cast<int>(run.data.variantNames.size());
    const auto outOfRange = [variants](int v) { return v < 0 || v >= variants; };
    const bool bad = std::any_of(profile.chunks.begin(), profile.chunks.end(),
                                 [&](const auto& c) { return outOfRange(c.variant); }) ||
                     std::any_of(profile.counts.begin(), profile.counts.end(),
                                 [&](const auto& c) { return outOfRange(c.variant); }) ||
                     std::any_of(profile.stacks.begin(), profile.stacks.end(),
                                 [&](const auto& st) { return outOfRange(st.variant); });
    if (bad) {
        return Error{"run " + std::to_string(run.row.id) + " in " + db.path() +
                     ": a profile row names a variant the run does not have"};
    }
    if (const std::string prefix = "import:"; run.spec.workload.rfind(prefix, 0) == 0) {
        profile.summary.source = run.spec.workload.substr(prefix.size());
    }
    run.data.profile = std::move(profile);
    return {};
}

}  // namespace nf::data
