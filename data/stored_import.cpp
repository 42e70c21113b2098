#include "data/stored_import.h"

#include <algorithm>
#include <map>
#include <optional>

#include "data/run_store.h"

namespace nf::data {

namespace {

// The blocks an import keeps, with their summaries, profile and hashes: renumbered 0..k-1 in their
// order (the analysis counts repetitions from 0) and laid end to end from 0, as importedRun lays an
// import out, so that the run is what an import of only these blocks would store.
struct KeptBlocks {
    engine::RunStart start;
    std::vector<engine::RepetitionResult> repetitions;
    std::vector<engine::SummaryStat> summaries;
    std::optional<engine::ProfileRecording> profile;
    std::vector<std::string> hashes;
};

void keepProfile(KeptBlocks& kept, const engine::ProfileRecording& profile, const std::map<int, int>& renumbered)
{
    kept.profile = engine::ProfileRecording{profile.summary, {}};
    auto& summary = kept.profile->summary;  // its totals are the kept repetitions'
    summary.samples = 0;
    summary.outside = 0;
    summary.lost = 0;
    for (const auto& p : profile.repetitions) {
        const auto at = renumbered.find(p.repetition);
        if (at == renumbered.end()) {
            continue;
        }
        auto& rep = kept.profile->repetitions.emplace_back(p);
        rep.repetition = at->second;
        for (auto& c : rep.chunks) {
            c.repetition = at->second;
            summary.samples += static_cast<std::uint64_t>(c.samples);
        }
        for (auto& c : rep.counts) {
            c.repetition = at->second;
        }
        for (auto& s : rep.stacks) {
            s.repetition = at->second;
        }
        summary.outside += rep.outside;
        summary.lost += rep.lost;
    }
}

KeptBlocks keepNewBlocks(const engine::RunStart& start, const std::vector<engine::RepetitionResult>& repetitions,
                         const std::vector<engine::SummaryStat>& summaries, const engine::ProfileRecording* profile,
                         const std::vector<CheckedBlock>& blocks)
{
    KeptBlocks kept;
    kept.start = start;
    std::map<int, int> renumbered;  // repetition index as imported -> as stored
    double clock = 0;
    for (std::size_t i = 0; i < repetitions.size(); ++i) {
        if (blocks[i].duplicate()) {
            continue;
        }
        auto& rep = kept.repetitions.emplace_back(repetitions[i]);
        const int index = static_cast<int>(kept.repetitions.size()) - 1;
        renumbered[repetitions[i].index] = index;
        rep.index = index;
        rep.start = clock;
        for (auto& s : rep.samples) {
            s.repetition = index;
            s.start = clock;
            clock += s.duration;
        }
        rep.end = clock;
        kept.hashes.push_back(blocks[i].hash);
    }
    kept.start.spec.repetitions = static_cast<int>(kept.repetitions.size());
    for (const auto& s : summaries) {
        if (const auto at = renumbered.find(s.repetition); at != renumbered.end()) {
            kept.summaries.push_back(s);
            kept.summaries.back().repetition = at->second;
        }
    }
    if (profile != nullptr) {
        keepProfile(kept, *profile, renumbered);
    }
    return kept;
}

// The run says what was left out or stored again, where `show` prints the import's notes.
void addNote(engine::RunStart& start, const std::string& note)
{
    auto& env = start.environment;
    if (env.is_object() && env.contains("import") && env["import"].is_object()) {
        env["import"]["notes"].push_back(note);
    }
}

Result<std::int64_t> storeRun(Database& db, const engine::RunStart& start,
                              const std::vector<engine::RepetitionResult>& repetitions,
                              const std::vector<engine::SummaryStat>& summaries,
                              const engine::ProfileRecording* profile, const std::vector<std::string>& hashes)
{
    RunRecorder recorder(db);
    NF_TRY(recorder.runStarted(start));
    for (const auto& rep : repetitions) {
        NF_TRY(recorder.repetitionFinished(rep));
    }
    NF_TRY(recorder.summariesFinished(summaries));
    if (profile != nullptr) {
        for (const auto& rep : profile->repetitions) {
            NF_TRY(recorder.profileMeasured(profile->summary, rep));
        }
        NF_TRY(recorder.profileFinished(profile->summary));
    }
    NF_TRY(writeImportBlocks(db, recorder.runId(), repetitions, hashes));
    recorder.runFinished(engine::RunStatus::Complete, "");
    if (recorder.finishError()) {
        return *recorder.finishError();
    }
    return recorder.runId();
}

}  // namespace

Result<StoredImport> storeImport(Database& db, const engine::RunStart& start,
                                 const std::vector<engine::RepetitionResult>& repetitions,
                                 const std::vector<engine::SummaryStat>& summaries,
                                 const engine::ProfileRecording* profile, Duplicates duplicates,
                                 const std::vector<BlockOrigin>& origins, const std::stop_token& stop)
{
    auto tx = NF_TRY(Transaction::begin(db));  // the recorder's own transactions become savepoints in it
    const auto hashes = importBlockHashes(start, repetitions, summaries, profile);
    StoredImport stored;
    stored.blocks = NF_TRY(checkImportBlocks(db, hashes));
    const bool summarised = !summaries.empty();
    const bool everyOne = std::ranges::all_of(stored.blocks, [](const CheckedBlock& b) { return b.duplicate(); });
    if (duplicates == Duplicates::Skip && everyOne && !stored.blocks.empty()) {
        stored.refusal = everyBlockStoredText(stored.blocks, origins, summarised);
        return stored;  // rolled back: nothing was written
    }
    const std::string twice = duplicateBlocksText(stored.blocks, origins, summarised);
    std::int64_t id = 0;
    if (twice.empty()) {
        id = NF_TRY(storeRun(db, start, repetitions, summaries, profile, hashes));
        stored.repetitions = repetitions.size();
    } else if (duplicates == Duplicates::Skip) {
        stored.note = "skipped " + twice;
        auto kept = keepNewBlocks(start, repetitions, summaries, profile, stored.blocks);
        addNote(kept.start, stored.note);
        id = NF_TRY(storeRun(db, kept.start, kept.repetitions, kept.summaries, kept.profile ? &*kept.profile : nullptr,
                             kept.hashes));
        stored.repetitions = kept.repetitions.size();
    } else {
        stored.note = "stored again " + twice;
        auto noted = start;
        addNote(noted, stored.note);
        id = NF_TRY(storeRun(db, noted, repetitions, summaries, profile, hashes));
        stored.repetitions = repetitions.size();
    }
    if (stop.stop_requested()) {
        return Error{"stopped before the run was committed; nothing was stored"};
    }
    NF_TRY(tx.commit());
    stored.id = id;
    return stored;
}

Result<std::int64_t> storeFinishedRun(Database& db, const engine::RunStart& start,
                                      const std::vector<engine::RepetitionResult>& repetitions,
                                      const std::vector<engine::SummaryStat>& summaries, const std::stop_token& stop,
                                      const engine::ProfileRecording* profile)
{
    const auto stored = NF_TRY(storeImport(db, start, repetitions, summaries, profile, Duplicates::Store, {}, stop));
    return stored.id;
}

}  // namespace nf::data
