// noisefloor lava collect DIR: each run a LAVA job's dut uploaded (noisefloor-JOB-DEVICE.db, written
// by `lava export` with the job's facts) merged into this database with `merge`'s copy, once.

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "app/cli/lava.h"
#include "app/cli/run_lookup.h"
#include "app/cli/signal_stop.h"
#include "app/cli/terminal_text.h"
#include "data/campaign_store.h"
#include "data/run_copy.h"
#include "data/run_store.h"

namespace nf::cli {

namespace {

// The uploaded databases (noisefloor-*.db), in name order; collectLabRuns orders them by job.
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

// A LAVA job id as numbers (1234 or, for a MultiNode sub-job, 1234.1), so that job 10 comes after
// job 9: the order a campaign's jobs were submitted in.
std::vector<long long> jobOrder(const std::string& job)
{
    std::vector<long long> parts;
    std::size_t from = 0;
    while (from <= job.size()) {
        const auto dot = job.find('.', from);
        const std::string part = job.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
        parts.push_back(!part.empty() && part.find_first_not_of("0123456789") == std::string::npos && part.size() < 18
                            ? std::stoll(part)
                            : -1);
        if (dot == std::string::npos) {
            break;
        }
        from = dot + 1;
    }
    return parts;
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

// A run a campaign's job stored (labelled NAME.KERNEL by `lava job --campaign`) is that campaign's
// next boot: counted when it is the kernel the plan boots next and the run's kernel has that
// kernel's build id, else kept and marked, as `campaign next` marks a boot it cannot count. The
// line to print, "" for a run of no campaign.
Result<std::string> countCampaignBoot(data::Database& db, std::int64_t runId, const LabFacts& lab)
{
    const auto run = NF_TRY(data::loadRun(db, runId));
    const auto& label = run.row.label;
    const auto dot = label.rfind('.');
    if (dot == std::string::npos || dot == 0) {
        return std::string();
    }
    auto campaign = data::loadCampaign(db, label.substr(0, dot));
    if (!campaign) {
        return std::string();
    }
    const auto& plan = campaign->plan;
    const std::string kernelName = label.substr(dot + 1);
    const auto named = std::find_if(plan.kernels.begin(), plan.kernels.end(),
                                    [&](const engine::CampaignKernel& k) { return k.name == kernelName; });
    if (named == plan.kernels.end()) {
        return std::string();
    }
    const int kernel = static_cast<int>(named - plan.kernels.begin());
    const auto identity = run.environment.section("kernel");
    const std::string buildId = identity.value("build_id", "");
    engine::CampaignBoot boot;
    boot.slot = campaign->nextSlot();
    boot.kernel = kernel;
    boot.bootId = run.row.bootId.empty() ? "lava-job-" + lab.job : run.row.bootId;
    boot.identity = identity;
    const int planned = campaign->nextKernel();
    std::string why;
    if (boot.slot >= plan.bootsPlanned) {
        why = "the plan's " + std::to_string(plan.bootsPlanned) + " boots are done";
    } else if (kernel != planned) {
        why = "boot " + std::to_string(boot.slot + 1) + " of the plan is " +
              plan.kernels.at(static_cast<std::size_t>(planned)).name + " (submit the jobs in order)";
    } else if (buildId != named->buildId) {
        why = "the dut ran build " + (buildId.empty() ? std::string("unknown") : buildId) + ", not " + kernelName +
              "'s " + named->buildId;
    }
    const auto row = NF_TRY(data::beginBoot(db, campaign->id, boot));
    NF_TRY(data::addBootRun(db, row, 0, runId));
    const std::string where = "LAVA job " + lab.job + " on " + lab.pair();
    NF_TRY(data::endBoot(db, row, why.empty() ? engine::BootStatus::Complete : engine::BootStatus::Failed,
                         why.empty() ? where : why + " (" + where + ")"));
    if (!why.empty()) {
        NF_TRY(data::markBootRunsUncounted(db, row));
        return "campaign " + plan.name + ": a boot of " + kernelName + " kept, not counted: " + why;
    }
    return "campaign " + plan.name + ": boot " + std::to_string(boot.slot + 1) + " of " +
           std::to_string(plan.bootsPlanned) + " (" + kernelName + ") counted";
}

}  // namespace

int collectLabRuns(const CollectArgs& a, const Context& ctx)
{
    SignalStop signals;  // each upload is one transaction: a signal stops before the next
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
    struct Upload {
        std::filesystem::path file;
        LabFacts facts;
    };
    std::vector<Upload> uploads;
    int merged = 0;
    int skipped = 0;
    int failed = 0;
    for (const auto& file : *files) {
        auto facts = factsOf(file);
        if (!facts) {
            std::cerr << "noisefloor: " << terminalText(facts.error().message) << '\n';
            ++failed;
            continue;
        }
        uploads.push_back({file, *facts});
    }
    std::stable_sort(uploads.begin(), uploads.end(),
                     [](const Upload& x, const Upload& y) { return jobOrder(x.facts.job) < jobOrder(y.facts.job); });
    for (const auto& [file, facts] : uploads) {
        if (signals.signal().load() != 0) {
            return fail(signals.exitStatus(), "collect interrupted by " + signalName(signals.signal().load()) +
                                                  "; the jobs before it were merged");
        }
        const std::string what = "job " + facts.job + " on " + facts.pair();
        auto copied =
            data::copyRuns(*db, file.string(), {}, "lava job " + facts.job + ": " + file.string(), signals.token());
        if (!copied) {
            std::cerr << "noisefloor: " << terminalText(file.string() + ": " + copied.error().message) << '\n';
            ++failed;
            continue;
        }
        for (const auto& c : *copied) {
            if (c.id == 0) {
                std::cout << what << ": not merged, " << c.skipped << '\n';
                ++skipped;
                continue;
            }
            std::cout << what << ": merged as run " << c.id << '\n';
            ++merged;
            auto counted = countCampaignBoot(*db, c.id, facts);
            if (!counted) {
                std::cerr << "noisefloor: " << terminalText(what + ": " + counted.error().message) << '\n';
                ++failed;
            } else if (!counted->empty()) {
                std::cout << "  " << *counted << '\n';
            }
        }
    }
    std::cout << merged << " merged, " << skipped << " not merged"
              << (failed ? ", " + std::to_string(failed) + " failed" : "") << '\n';
    return failed != 0 ? kExitRuntime : 0;
}

}  // namespace nf::cli
