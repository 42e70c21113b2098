// noisefloor lava collect DIR: each run a LAVA job's dut uploaded (noisefloor-JOB-DEVICE.db, written
// by `lava export` with the job's facts) merged into this database with `merge`'s copy, once.

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "app/cli/lava.h"
#include "app/cli/run_lookup.h"
#include "app/cli/signal_stop.h"
#include "app/cli/terminal_text.h"
#include "data/run_copy.h"

namespace nf::cli {

namespace {

// The uploaded databases, in name order (the job id leads the name).
Result<std::vector<std::filesystem::path>> artefacts(const std::string& dir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
        return Error{dir + ": not a directory"};
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const auto name = entry.path().filename().string();
        if (entry.is_regular_file(ec) && name.rfind("noisefloor-", 0) == 0 && entry.path().extension() == ".db") {
            files.push_back(entry.path());
        }
    }
    if (ec) {
        return Error{dir + ": " + ec.message()};
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The job's facts of the one run an artefact holds.
Result<LabFacts> factsOf(const std::filesystem::path& file)
{
    auto src = NF_TRY(data::Database::open(file.string(), data::Database::Mode::ReadOnly));
    const auto rows = NF_TRY(src.query<std::string>("SELECT environment_json FROM runs"));
    if (rows.size() != 1) {
        return Error{file.string() + ": holds " + std::to_string(rows.size()) + " runs, not the one a job uploads"};
    }
    const auto json = nlohmann::json::parse(rows.front(), nullptr, false);
    auto facts = LabFacts::of(engine::RunEnvironment::fromJson(json.is_discarded() ? nlohmann::json() : json));
    if (!facts) {
        return Error{file.string() + ": its run has no LAVA job facts (not written by `noisefloor lava export`)"};
    }
    return *facts;
}

}  // namespace

int collectLabRuns(const CollectArgs& a, const Context& ctx)
{
    SignalStop signals;  // each file is one transaction: a signal stops before the next
    auto files = artefacts(a.dir);
    if (!files) {
        return fail(kExitUsage, files.error().message);
    }
    if (files->empty()) {
        return fail(kExitUsage, a.dir + ": no noisefloor-*.db (the files LAVA jobs upload)");
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return failWith(db.error());
    }
    int merged = 0;
    int already = 0;
    int failed = 0;
    for (const auto& file : *files) {
        if (signals.signal().load() != 0) {
            return fail(signals.exitStatus(), "collect interrupted by " + signalName(signals.signal().load()) +
                                                  "; the files before it were merged");
        }
        auto facts = factsOf(file);
        if (!facts) {
            std::cerr << "noisefloor: " << terminalText(facts.error().message) << '\n';
            ++failed;
            continue;
        }
        const std::string what = "job " + facts->job + " on " + facts->pair();
        auto copied =
            data::copyRuns(*db, file.string(), {}, "lava job " + facts->job + ": " + file.string(), signals.token());
        if (!copied) {
            std::cerr << "noisefloor: " << terminalText(file.string() + ": " + copied.error().message) << '\n';
            ++failed;
            continue;
        }
        for (const auto& c : *copied) {
            if (c.id != 0) {
                std::cout << what << ": merged as run " << c.id << '\n';
                ++merged;
            } else {
                std::cout << what << ": not merged, " << c.skipped << '\n';
                ++already;
            }
        }
    }
    std::cout << merged << " merged, " << already << " already here"
              << (failed ? ", " + std::to_string(failed) + " failed" : "") << '\n';
    return failed != 0 ? kExitRuntime : 0;
}

}  // namespace nf::cli
