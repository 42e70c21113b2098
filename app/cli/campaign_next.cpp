// `noisefloor campaign next NAME`, run after every boot: which kernel is this, is it the one the
// plan boots now, and was this boot counted already; then the recipe, each step a noisefloor
// process of its own storing its runs under the campaign's label for its kernel; then the next
// boot, said or arranged.
//
// A boot is recorded 'running' before its first step and 'complete' after its last, each in its
// own transaction: a crash, a power cut or a kill in between leaves it 'running', and the next
// `campaign next` marks it interrupted. A boot counts only when every step stored a complete run and
// one of them measured the campaign's metric; one that is not counted is kept, its runs relabelled
// (kUncountedSuffix), and its place in the order is booted again. A stop signal (SIGINT, SIGTERM,
// SIGHUP) is honoured after the step in flight: the boot is not counted and no next boot is
// arranged.

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "app/cli/campaign.h"
#include "app/cli/run_lookup.h"
#include "app/cli/self_process.h"
#include "app/cli/signal_stop.h"
#include "data/campaign_store.h"
#include "data/process_identity.h"
#include "data/run_store.h"
#include "engine/report/campaign_view.h"
#include "engine/report/evidence_context.h"
#include "engine/run/environment.h"
#include "probes/kernel_identity.h"

namespace nf::cli {
namespace {

namespace fs = std::filesystem;

std::string kernelName(const engine::Campaign& c, int kernel)
{
    return c.plan.kernels.at(static_cast<std::size_t>(kernel)).name;
}

// What to boot now: the kernel of the first place in the order not yet filled.
std::string bootAdvice(const engine::Campaign& c)
{
    const auto& k = c.plan.kernels.at(static_cast<std::size_t>(c.nextKernel()));
    return "boot " + k.name + " (build id " + k.buildId + ") for boot " + std::to_string(c.nextSlot() + 1) +
           " of the plan, then run campaign next again";
}

// One `campaign next` at a time per database: two campaigns' units start together at boot, and
// their steps would take each other's CPUs.
Result<int> lockCampaigns(const std::string& dbPath)
{
    const std::string path = dbPath + ".campaign-lock";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        return Error::fromErrno("cannot open " + path);
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        std::cout << "waiting for another campaign next on " << dbPath << '\n' << std::flush;
        if (::flock(fd, LOCK_EX) != 0) {
            ::close(fd);
            return Error::fromErrno("cannot lock " + path);
        }
    }
    return fd;  // held until the process exits
}

// A stop signal that arrived while the recipe ran (they stay blocked in this process), taken.
int takeStopSignal()
{
    const sigset_t set = stopSignalSet();
    const timespec now{0, 0};
    const int sig = sigtimedwait(&set, nullptr, &now);
    return sig > 0 ? sig : 0;
}

Result<void> notCounted(data::Database& db, std::int64_t bootRow, engine::BootStatus status, const std::string& why)
{
    NF_TRY(data::endBoot(db, bootRow, status, why));
    return data::markBootRunsUncounted(db, bootRow);
}

// Boots left 'running' by a process that is gone: interrupted. One whose process lives is another
// `campaign next` at work.
Result<void> settleRunningBoots(data::Database& db, const engine::Campaign& c, const std::string& bootId)
{
    for (const auto& b : c.boots) {
        if (b.status != engine::BootStatus::Running) {
            continue;
        }
        if (data::writerAlive(b.pid, b.pidStart)) {
            return Error{"campaign " + c.plan.name + " is already running its recipe (pid " + std::to_string(b.pid) +
                         ")"};
        }
        NF_TRY(notCounted(db, b.id, engine::BootStatus::Interrupted,
                          b.bootId == bootId ? "its campaign next was killed before the recipe finished"
                                             : "the machine went down before the recipe finished"));
    }
    return {};
}

Result<void> checkKernel(const engine::Campaign& c, const probes::KernelIdentity& id)
{
    if (id.buildId.empty()) {
        return Error{"the running kernel's build id is unknown (no GNU build-id note in " + id.sysroot +
                     "/sys/kernel/notes): it cannot be told apart from another build"};
    }
    const auto& expected = c.plan.kernels[static_cast<std::size_t>(c.nextKernel())];
    if (id.buildId == expected.buildId) {
        return {};
    }
    const int running = c.kernelByBuildId(id.buildId);
    const std::string slot = "boot " + std::to_string(c.nextSlot() + 1) + " of the plan";
    if (running >= 0) {
        return Error{"this is " + kernelName(c, running) + " (build id " + id.buildId + "), but " + slot + " is " +
                     expected.name + " (build id " + expected.buildId + "): boot " + expected.name +
                     " and run campaign next again"};
    }
    return Error{"the running kernel (" + id.describe() + ") is neither " + kernelName(c, 0) + " nor " +
                 kernelName(c, 1) + "; " + slot + " is " + expected.name + " (build id " + expected.buildId + ")"};
}

Result<std::int64_t> newestRunId(data::Database& db)
{
    return NF_TRY(db.queryOne<std::int64_t>("SELECT coalesce(max(id), 0) FROM runs")).value_or(0);
}

// Whether the boot measured the campaign's metric (or, when it names none, the first run's primary
// metric): "" when one of its runs has finite values of it, else why not.
std::string measuredMetric(const engine::Campaign& c, const std::vector<engine::RunRecord>& runs)
{
    std::string metric = c.plan.metric;
    std::string names;
    bool present = false;
    for (const auto& run : runs) {
        if (run.data.layout.metrics.empty()) {
            continue;
        }
        if (metric.empty()) {
            metric = run.data.layout.metrics.front().name;
        }
        if (!engine::finiteMetricValues(run, metric).empty()) {
            return {};
        }
        for (const auto& m : run.data.layout.metrics) {
            present = present || m.name == metric;
            names += (names.empty() ? "" : ", ") + m.name;
        }
    }
    if (metric.empty()) {
        return "no run of this boot measured anything";
    }
    return "no run of this boot measured " + metric +
           (present || names.empty() ? std::string(" (no repetition gave a value)")
                                     : " (its runs have: " + names + ")");
}

// Runs every step; "" when all finished and the boot measured the metric, else why not. A stop
// signal between steps ends the recipe with `stopped` set.
Result<std::string> runRecipe(data::Database& db, const engine::Campaign& c, std::int64_t bootRow,
                              const std::string& dbPath, const nlohmann::json& identity, int& stopped)
{
    const int slot = c.nextSlot();
    const int kernel = c.nextKernel();
    std::vector<engine::RunRecord> stored;
    for (std::size_t s = 0; s < c.plan.steps.size(); ++s) {
        const std::string label = engine::stepLabel(c.plan, static_cast<int>(s), kernel);
        const ChildEnvironment env = {{"NOISEFLOOR_CAMPAIGN", c.plan.name},
                                      {"NOISEFLOOR_CAMPAIGN_PID", std::to_string(::getpid())},
                                      {"NOISEFLOOR_BOOT", std::to_string(slot + 1)},
                                      {"NOISEFLOOR_KERNEL", kernelName(c, kernel)},
                                      {"NOISEFLOOR_LABEL", label},
                                      {"NOISEFLOOR_KERNEL_IDENTITY", identity.dump()}};
        const std::int64_t before = NF_TRY(newestRunId(db));
        std::vector<std::string> args = {"--db", dbPath, c.plan.steps[s].front(), "--label", label};
        args.insert(args.end(), c.plan.steps[s].begin() + 1, c.plan.steps[s].end());
        std::cout << "campaign " << c.plan.name << ": step " << s + 1 << " of " << c.plan.steps.size() << ", label "
                  << label << '\n'
                  << std::flush;
        const int status = NF_TRY(runNoisefloor(args, env));
        const auto ids =
            NF_TRY(db.query<std::int64_t>("SELECT id FROM runs WHERE label = ? AND id > ? ORDER BY id", label, before));
        for (const std::int64_t run : ids) {
            NF_TRY(data::addBootRun(db, bootRow, static_cast<int>(s), run));
        }
        if ((stopped = takeStopSignal()) != 0) {
            return "stopped by " + signalName(stopped) + " during step " + std::to_string(s + 1);
        }
        if (status != 0) {
            return "step " + std::to_string(s + 1) + " exited with status " + std::to_string(status);
        }
        if (ids.empty()) {
            return "step " + std::to_string(s + 1) + " stored no run";
        }
        for (const std::int64_t run : ids) {
            auto record = NF_TRY(data::loadRun(db, run));
            if (record.row.status != engine::RunStatus::Complete) {
                return "step " + std::to_string(s + 1) + "'s run " + std::to_string(run) + " is " +
                       std::string(engine::toString(record.row.status));
            }
            stored.push_back(std::move(record));
        }
    }
    return measuredMetric(c, stored);
}

// The initramfs a distribution installs beside IMAGE (/boot/vmlinuz-REL): initrd.img-REL (Debian)
// or initramfs-REL.img (Fedora); "" when there is none.
std::string initrdBeside(const std::string& image)
{
    const fs::path path(image);
    const std::string file = path.filename().string();
    const std::string release = file.rfind("vmlinuz-", 0) == 0 ? file.substr(8) : std::string();
    if (release.empty()) {
        return {};
    }
    for (const std::string& name : {"initrd.img-" + release, "initramfs-" + release + ".img"}) {
        std::error_code ec;
        if (fs::is_regular_file(path.parent_path() / name, ec)) {
            return (path.parent_path() / name).string();
        }
    }
    return {};
}

// The grub entry of `kernel` in "NAME=ENTRY,NAME=ENTRY".
std::string grubEntry(const std::string& spec, const std::string& kernel)
{
    std::string rest = spec;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const std::string item = rest.substr(0, comma);
        const auto eq = item.find('=');
        if (eq != std::string::npos && item.substr(0, eq) == kernel) {
            return item.substr(eq + 1);
        }
        rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    }
    return {};
}

// Arranges the next boot into `kernel` (checkReboot accepted `reboot`); the status printed above
// already said which kernel boots next.
int arrangeNextBoot(const engine::CampaignPlan& plan, const engine::CampaignKernel& kernel, const std::string& reboot)
{
    if (reboot.empty() || reboot == "none") {
        return 0;
    }
    const ChildEnvironment env = {{"NOISEFLOOR_CAMPAIGN", plan.name},
                                  {"NOISEFLOOR_NEXT_KERNEL", kernel.name},
                                  {"NOISEFLOOR_NEXT_BUILD_ID", kernel.buildId},
                                  {"NOISEFLOOR_NEXT_IMAGE", kernel.image}};
    std::vector<std::vector<std::string>> commands;
    if (reboot.rfind("command ", 0) == 0) {
        commands.push_back({"/bin/sh", "-c", reboot.substr(8)});
    } else if (reboot == "kexec") {
        std::vector<std::string> load = {"kexec", "-l", kernel.image, "--reuse-cmdline"};
        if (const std::string initrd = initrdBeside(kernel.image); !initrd.empty()) {
            load.push_back("--initrd=" + initrd);
        }
        commands = {load, {"systemctl", "kexec"}};
    } else {
        commands = {{"grub-reboot", grubEntry(reboot.substr(5), kernel.name)}, {"systemctl", "reboot"}};
    }
    std::string what;
    for (const auto& argv : commands) {
        std::string line;
        for (const auto& word : argv) {
            line += (line.empty() ? "" : " ") + engine::shellQuote(word);
        }
        what += (what.empty() ? "" : "; ") + line;
        auto status = runProgram(argv, env);
        if (!status) {
            return fail(kExitRuntime, "the next boot was not arranged: " + status.error().message);
        }
        if (*status != 0) {
            return fail(kExitRuntime, "the next boot was not arranged: '" + line + "' exited with status " +
                                          std::to_string(*status) + "; boot " + kernel.name + " by hand");
        }
    }
    std::cout << "arranged the next boot into " << kernel.name << ": " << what << '\n';
    return 0;
}

}  // namespace

Result<void> checkReboot(const std::string& reboot, const engine::CampaignPlan& plan)
{
    if (reboot.empty() || reboot == "none") {
        return {};
    }
    if (reboot == "kexec") {
        for (const auto& k : plan.kernels) {
            if (k.image.empty()) {
                return usageError("--reboot kexec: kernel " + k.name +
                                  " was named by its build id; kexec needs its image (--kernel " + k.name +
                                  "=/boot/vmlinuz-...)");
            }
        }
        return {};
    }
    if (reboot.rfind("grub:", 0) == 0) {
        for (const auto& k : plan.kernels) {
            if (grubEntry(reboot.substr(5), k.name).empty()) {
                return usageError("--reboot " + reboot + ": no entry for " + k.name + " (grub:" + plan.kernels[0].name +
                                  "=ENTRY," + plan.kernels[1].name +
                                  "=ENTRY: an entry's id or index, as grub-reboot "
                                  "takes them)");
            }
        }
        return {};
    }
    if (reboot.rfind("command ", 0) == 0 && reboot.size() > 8) {
        return {};
    }
    return usageError("--reboot " + reboot + ": kexec, grub:NAME=ENTRY,NAME=ENTRY, 'command TEXT' or none");
}

int campaignNext(const CampaignNextArgs& args, const Context& ctx)
{
    const std::string dbPath = fs::absolute(databasePath(ctx)).string();
    if (const std::string root = probes::identityRoot(); !root.empty() && !fs::is_directory(root)) {
        return fail(kExitUsage, "NOISEFLOOR_SYSROOT=" + root + " is not a directory");
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return failWith(db.error());
    }
    if (auto locked = lockCampaigns(dbPath); !locked) {
        return failWith(locked.error());
    }
    auto campaign = data::loadCampaign(*db, args.name);
    if (!campaign) {
        return failWith(usageError(campaign.error().message));
    }
    const std::string reboot = args.reboot.empty() ? campaign->plan.reboot : args.reboot;
    if (auto checked = checkReboot(reboot, campaign->plan); !checked) {
        return failWith(checked.error());
    }
    std::error_code ec;
    fs::current_path(campaign->plan.workdir, ec);
    if (ec) {
        return fail(kExitRuntime, "the campaign's directory " + campaign->plan.workdir + ": " + ec.message());
    }
    const probes::KernelIdentity id = probes::readKernelIdentity();
    if (id.bootId.empty()) {
        return fail(kExitRuntime, "the boot id is unknown (/proc/sys/kernel/random/boot_id): boots cannot be counted");
    }
    if (auto settled = settleRunningBoots(*db, *campaign, id.bootId); !settled) {
        return failWith(settled.error());
    }
    campaign = data::loadCampaign(*db, args.name);
    if (!campaign) {
        return failWith(campaign.error());
    }
    {
        std::map<std::int64_t, engine::RunRecord> runs;
        auto view = campaignView(*db, *campaign, runs);
        if (!view) {
            return failWith(view.error());
        }
        if (view->done) {
            std::cout << "campaign " << args.name << " is done (" << view->doneReason
                      << "): 'noisefloor campaign report " << args.name << "'\n";
            return 0;
        }
    }
    for (const auto& b : campaign->boots) {
        if (b.bootId == id.bootId) {
            return fail(kExitRuntime, "this boot (" + id.bootId + ") was " +
                                          (b.status == engine::BootStatus::Complete
                                               ? "counted already, as boot " + std::to_string(b.slot + 1)
                                               : "begun already and " + std::string(toString(b.status))) +
                                          ": " + bootAdvice(*campaign));
        }
    }
    if (auto checked = checkKernel(*campaign, id); !checked) {
        return failWith(checked.error());
    }
    engine::CampaignBoot boot;
    boot.slot = campaign->nextSlot();
    boot.kernel = campaign->nextKernel();
    boot.bootId = id.bootId;
    boot.identity = engine::kernelIdentityJson(id);
    boot.pid = ::getpid();
    boot.pidStart = data::processIdentity(::getpid());
    auto bootRow = data::beginBoot(*db, campaign->id, boot);
    if (!bootRow) {
        return failWith(bootRow.error());
    }
    std::cout << "campaign " << args.name << ": boot " << boot.slot + 1 << " of " << campaign->plan.bootsPlanned
              << (campaign->plan.untilDecided ? " at most" : "") << ", " << kernelName(*campaign, boot.kernel) << " ("
              << id.describe() << ")\n";
    int stopped = 0;
    auto failed = runRecipe(*db, *campaign, *bootRow, dbPath, boot.identity, stopped);
    if (!failed || !failed->empty()) {
        const std::string why = failed ? *failed : failed.error().message;
        (void)notCounted(*db, *bootRow, stopped != 0 ? engine::BootStatus::Interrupted : engine::BootStatus::Failed,
                         why);
        const int status = stopped != 0 ? 128 + stopped : kExitRuntime;
        return fail(status, "boot " + std::to_string(boot.slot + 1) + " not counted: " + why +
                                (stopped != 0 ? "; no next boot arranged" : "; " + bootAdvice(*campaign)));
    }
    if (auto ended = data::endBoot(*db, *bootRow, engine::BootStatus::Complete, ""); !ended || !*ended) {
        return fail(kExitRuntime, "boot " + std::to_string(boot.slot + 1) + " was ended by another process meanwhile");
    }
    campaign = data::loadCampaign(*db, args.name);
    if (!campaign) {
        return failWith(campaign.error());
    }
    std::map<std::int64_t, engine::RunRecord> runs;
    auto view = campaignView(*db, *campaign, runs);
    if (!view) {
        return failWith(view.error());
    }
    engine::writeCampaignStatus(*view, std::cout);
    if (view->done) {
        return 0;
    }
    // What was committed reaches the disk before a reboot, which may be a power cycle.
    (void)db->exec("PRAGMA wal_checkpoint(FULL)");
    ::sync();
    if (const int sig = takeStopSignal(); sig != 0) {
        return fail(128 + sig, "stopped by " + signalName(sig) + " after boot " + std::to_string(boot.slot + 1) +
                                   " was counted; no next boot arranged");
    }
    return arrangeNextBoot(campaign->plan, campaign->plan.kernels[static_cast<std::size_t>(campaign->nextKernel())],
                           reboot);
}

}  // namespace nf::cli
