// `noisefloor campaign next NAME`, run after every boot: which kernel is this, is it the one the
// plan boots now, and was this boot counted already; then the recipe, each step a noisefloor
// process of its own storing its runs under the boot's label; then the next boot, said or arranged.
//
// A boot is recorded 'running' before its first step and 'complete' after its last, each in its
// own transaction: a crash, a power cut or a kill in between leaves it 'running', and the next
// `campaign next` (in a later boot) marks it interrupted. Only complete boots fill a slot of the
// plan, so the slot is booted again.

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "app/cli/campaign.h"
#include "app/cli/run_lookup.h"
#include "app/cli/self_process.h"
#include "data/campaign_store.h"
#include "data/process_identity.h"
#include "data/run_store.h"
#include "engine/report/campaign_view.h"
#include "engine/run/environment.h"
#include "probes/kernel_identity.h"

namespace nf::cli {
namespace {

// Boots left 'running' by a process that is gone: interrupted. One in this boot whose process
// lives is another `campaign next` at work.
Result<void> settleRunningBoots(data::Database& db, const engine::Campaign& c, const std::string& bootId)
{
    for (const auto& b : c.boots) {
        if (b.status != engine::BootStatus::Running) {
            continue;
        }
        if (b.bootId == bootId && data::writerAlive(b.pid, b.pidStart)) {
            return Error{"campaign " + c.plan.name + " is already running its recipe in this boot (pid " +
                         std::to_string(b.pid) + ")"};
        }
        NF_TRY(data::endBoot(db, b.id, engine::BootStatus::Interrupted,
                             b.bootId == bootId ? "its campaign next was killed before the recipe finished"
                                                : "the machine went down before the recipe finished"));
    }
    return {};
}

Result<void> checkKernel(const engine::Campaign& c, const probes::KernelIdentity& id)
{
    if (id.buildId.empty()) {
        return Error{"the running kernel's build id is unknown (no GNU build-id note in " +
                     (id.sysroot.empty() ? std::string() : id.sysroot) +
                     "/sys/kernel/notes): it cannot be told apart from another build"};
    }
    const int want = c.nextKernel();
    const auto& expected = c.plan.kernels[static_cast<std::size_t>(want)];
    if (id.buildId == expected.buildId) {
        return {};
    }
    const int running = c.kernelByBuildId(id.buildId);
    const std::string slot = "boot " + std::to_string(c.nextSlot() + 1) + " of the plan";
    if (running >= 0) {
        return Error{"this is " + c.plan.kernels[static_cast<std::size_t>(running)].name + " (build id " + id.buildId +
                     "), but " + slot + " is " + expected.name + " (build id " + expected.buildId + "): boot " +
                     expected.name + " and run campaign next again"};
    }
    return Error{"the running kernel (" + id.describe() + ") is neither " + c.plan.kernels[0].name + " nor " +
                 c.plan.kernels[1].name + "; " + slot + " is " + expected.name + " (build id " + expected.buildId +
                 ")"};
}

// The runs step `step` stored: those under the boot's label newer than `after`.
Result<std::vector<std::int64_t>> runsOfStep(data::Database& db, const std::string& label, std::int64_t after)
{
    return db.query<std::int64_t>("SELECT id FROM runs WHERE label = ? AND id > ? ORDER BY id", label, after);
}

Result<std::int64_t> newestRunId(data::Database& db)
{
    return NF_TRY(db.queryOne<std::int64_t>("SELECT coalesce(max(id), 0) FROM runs")).value_or(0);
}

// Runs every step; "" when all finished and stored complete runs, else why not.
Result<std::string> runRecipe(data::Database& db, const engine::Campaign& c, std::int64_t bootRow,
                              const std::string& label, const std::string& dbPath)
{
    const int slot = c.nextSlot();
    const auto& kernel = c.plan.kernels[static_cast<std::size_t>(c.nextKernel())];
    const ChildEnvironment env = {{"NOISEFLOOR_CAMPAIGN", c.plan.name},
                                  {"NOISEFLOOR_BOOT", std::to_string(slot)},
                                  {"NOISEFLOOR_KERNEL", kernel.name},
                                  {"NOISEFLOOR_LABEL", label}};
    for (std::size_t s = 0; s < c.plan.steps.size(); ++s) {
        const std::int64_t before = NF_TRY(newestRunId(db));
        std::vector<std::string> args = {"--db", dbPath};
        args.insert(args.end(), c.plan.steps[s].begin(), c.plan.steps[s].end());
        args.insert(args.begin() + 3, {"--label", label});  // after the command's name
        std::cout << "campaign " << c.plan.name << ": step " << s + 1 << " of " << c.plan.steps.size() << '\n'
                  << std::flush;
        const int status = NF_TRY(runNoisefloor(args, env));
        for (const std::int64_t run : NF_TRY(runsOfStep(db, label, before))) {
            NF_TRY(data::addBootRun(db, bootRow, static_cast<int>(s), run));
        }
        if (status != 0) {
            return "step " + std::to_string(s + 1) + " exited with status " + std::to_string(status);
        }
        for (const std::int64_t run : NF_TRY(runsOfStep(db, label, before))) {
            const auto record = NF_TRY(data::loadRun(db, run));
            if (record.row.status != engine::RunStatus::Complete) {
                return "step " + std::to_string(s + 1) + "'s run " + std::to_string(run) + " is " +
                       std::string(engine::toString(record.row.status));
            }
        }
    }
    return std::string();
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

// Arranges the next boot into `kernel`, or says how to.
int arrangeNextBoot(const engine::CampaignPlan& plan, const engine::CampaignKernel& kernel, const std::string& reboot)
{
    if (reboot.empty() || reboot == "none") {
        return 0;  // the status above said which kernel boots next
    }
    const ChildEnvironment env = {{"NOISEFLOOR_CAMPAIGN", plan.name},
                                  {"NOISEFLOOR_NEXT_KERNEL", kernel.name},
                                  {"NOISEFLOOR_NEXT_BUILD_ID", kernel.buildId},
                                  {"NOISEFLOOR_NEXT_IMAGE", kernel.image}};
    Result<int> status = 0;
    std::string what;
    if (reboot.rfind("command ", 0) == 0) {
        what = reboot.substr(8);
        status = runShell(what, env);
    } else if (reboot == "kexec") {
        what = "kexec -l " + kernel.image + " --reuse-cmdline; systemctl kexec";
        status = runProgram({"kexec", "-l", kernel.image, "--reuse-cmdline"}, env);
        if (status && *status == 0) {
            status = runProgram({"systemctl", "kexec"}, env);
        }
    } else if (reboot.rfind("grub:", 0) == 0) {
        const std::string entry = grubEntry(reboot.substr(5), kernel.name);
        what = "grub-reboot '" + entry + "'; systemctl reboot";
        status = runProgram({"grub-reboot", entry}, env);
        if (status && *status == 0) {
            status = runProgram({"systemctl", "reboot"}, env);
        }
    }
    std::cout << "arranged the next boot into " << kernel.name << ": " << what << '\n';
    if (!status) {
        return fail(kExitRuntime, "the next boot was not arranged: " + status.error().message);
    }
    if (*status != 0) {
        return fail(kExitRuntime,
                    "the next boot was not arranged: '" + what + "' exited with status " + std::to_string(*status));
    }
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
                                  "=ENTRY," + plan.kernels[1].name + "=ENTRY, as grub-reboot takes them)");
            }
        }
        return {};
    }
    if (reboot.rfind("command ", 0) == 0 && reboot.size() > 8) {
        return {};
    }
    return usageError("--reboot " + reboot + ": kexec, grub:NAME=ENTRY,NAME=ENTRY or 'command TEXT'");
}

int campaignNext(const CampaignNextArgs& args, const Context& ctx)
{
    const std::string dbPath = std::filesystem::absolute(databasePath(ctx)).string();
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return failWith(db.error());
    }
    auto campaign = data::loadCampaign(*db, args.name);
    if (!campaign) {
        return failWith(usageError(campaign.error().message));
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
    for (const auto& b : campaign->boots) {
        if (b.bootId == id.bootId) {
            return fail(kExitRuntime, "this boot (" + id.bootId + ") was " +
                                          (b.status == engine::BootStatus::Complete
                                               ? "counted already, as boot " + std::to_string(b.slot + 1)
                                               : "begun already and " + std::string(toString(b.status))) +
                                          ": reboot into the next kernel");
        }
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
    const std::string label = engine::bootLabel(campaign->plan, boot.slot, boot.kernel);
    std::cout << "campaign " << args.name << ": boot " << boot.slot + 1 << ", "
              << campaign->plan.kernels[static_cast<std::size_t>(boot.kernel)].name << " (" << id.describe()
              << "); runs labelled " << label << '\n';
    auto failed = runRecipe(*db, *campaign, *bootRow, label, dbPath);
    if (!failed || !failed->empty()) {
        const std::string why = failed ? *failed : failed.error().message;
        (void)data::endBoot(*db, *bootRow, engine::BootStatus::Failed, why);
        return fail(kExitRuntime, "boot " + std::to_string(boot.slot + 1) + " not counted: " + why);
    }
    if (auto ended = data::endBoot(*db, *bootRow, engine::BootStatus::Complete, ""); !ended) {
        return failWith(ended.error());
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
    const auto& next = campaign->plan.kernels[static_cast<std::size_t>(campaign->nextKernel())];
    return arrangeNextBoot(campaign->plan, next, args.reboot.empty() ? campaign->plan.reboot : args.reboot);
}

}  // namespace nf::cli
