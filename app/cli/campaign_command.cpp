// `noisefloor campaign new|next|status|report|install|remove`: the command line of campaigns
// across boots. `new` checks and stores the plan; the others read it (app/cli/campaign.h).

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <random>
#include <regex>

#include "app/cli/campaign.h"
#include "app/cli/run_lookup.h"
#include "app/cli/self_process.h"
#include "app/cli/shell_words.h"
#include "data/campaign_store.h"
#include "data/code_size_store.h"
#include "data/noise_floor_store.h"
#include "data/run_store.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/report/campaign_view.h"
#include "probes/kernel_image.h"

namespace nf::cli {
namespace {

struct NewArgs {
    std::string name;
    std::vector<std::string> kernels;  // NAME=ID|FILE
    int boots = 0;
    std::string until;
    int maxBoots = 20;
    std::string order = "abba";
    std::string metric;
    double alpha = 0.05;
    double marginPct = 1.0;
    std::string reboot;
    std::vector<std::string> stepTexts;  // --step '...'
    std::vector<std::string> recipe;     // after --
};

// A campaign's or kernel's name: it becomes part of labels ("NAME.KERNEL") and of the unit's file
// name, so no dots in a kernel's name and nothing a shell or systemd would read otherwise.
bool validName(const std::string& name, std::size_t longest, bool dots)
{
    static const std::regex withDots("[A-Za-z0-9_][A-Za-z0-9_.-]*");
    static const std::regex withoutDots("[A-Za-z0-9_][A-Za-z0-9_-]*");
    return !name.empty() && name.size() <= longest && std::regex_match(name, dots ? withDots : withoutDots);
}

bool hexId(const std::string& text)
{
    return text.size() >= 8 && text.size() <= 128 && text.size() % 2 == 0 &&
           std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

// --kernel NAME=ID, NAME=vmlinux or NAME=bzImage.
Result<engine::CampaignKernel> parseKernel(const std::string& text)
{
    const auto eq = text.find('=');
    if (eq == std::string::npos) {
        return usageError("--kernel " + text + ": expected NAME=BUILD-ID or NAME=FILE (a vmlinux or bzImage)");
    }
    engine::CampaignKernel k{text.substr(0, eq), text.substr(eq + 1), ""};
    if (!validName(k.name, 32, false)) {
        return usageError("--kernel " + text + ": the name must be 1-32 letters, digits, '_' or '-'");
    }
    std::error_code ec;
    if (k.buildId.ends_with(".ko") || k.buildId.ends_with(".ko.xz") || k.buildId.ends_with(".ko.zst")) {
        return usageError("--kernel " + text +
                          ": a module is not a kernel; name the vmlinux or bzImage it was built with");
    }
    if (std::filesystem::is_regular_file(k.buildId, ec)) {
        k.image = std::filesystem::absolute(k.buildId).string();
        auto id = probes::kernelBuildId(k.image);
        if (!id) {
            return usageError("--kernel " + text + ": " + id.error().message);
        }
        k.buildId = *id;
        return k;
    }
    if (!hexId(k.buildId)) {
        const bool hex = !k.buildId.empty() && std::all_of(k.buildId.begin(), k.buildId.end(),
                                                           [](unsigned char c) { return std::isxdigit(c) != 0; });
        return usageError("--kernel " + text + ": '" + k.buildId + "' is " +
                          (hex ? "not a build id (8 to 128 hex digits, an even number; readelf -n prints it)"
                               : "neither a hex build id (as readelf -n prints it) nor a file"));
    }
    std::transform(k.buildId.begin(), k.buildId.end(), k.buildId.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return k;
}

// A step is the arguments of `noisefloor run ...` or `noisefloor import ...`; the campaign gives
// it --db and --label.
Result<void> checkStep(const std::vector<std::string>& step, std::size_t index)
{
    const std::string where = "step " + std::to_string(index + 1);
    if (step.empty() || (step.front() != "run" && step.front() != "import")) {
        return usageError(where + ": a step is 'run ...' or 'import ...' (noisefloor's own commands), not '" +
                          (step.empty() ? std::string() : step.front()) + "'");
    }
    for (const auto& word : step) {
        for (const char* taken : {"--db", "--label"}) {
            if (word == taken || word.rfind(std::string(taken) + "=", 0) == 0) {
                return usageError(where + ": " + taken + " is the campaign's to give");
            }
        }
        if (word == "--dry-run") {
            return usageError(where + ": --dry-run stores nothing, so no boot would count");
        }
    }
    return {};
}

// `run` steps are checked as run --dry-run checks them, before the first boot depends on them;
// an in-process model is said to test no kernel.
Result<void> tryStep(const std::vector<std::string>& step, std::size_t index)
{
    if (step.front() != "run") {
        return {};
    }
    if (step.size() > 1) {
        if (const auto* w = engine::findWorkload(step[1]); w != nullptr && w->kind == engine::WorkloadKind::InProcess) {
            std::cerr << "noisefloor: warning: step " << index + 1 << " runs " << step[1]
                      << ", an in-process model: the same user-space code under both kernels; it does not test a "
                         "kernel patch (run it once, as a model; give a live test, 'run command' or an import)\n";
        }
    }
    std::vector<std::string> args = step;
    args.insert(args.begin() + 1, {"--dry-run", "--label", "campaign-check"});
    const int status = NF_TRY(runNoisefloor(args, {}, true));
    if (status != 0) {
        return usageError("step " + std::to_string(index + 1) + " is refused by run --dry-run (its line is above)");
    }
    return {};
}

Result<engine::CampaignPlan> planOf(const NewArgs& a, const Context& ctx)
{
    engine::CampaignPlan plan;
    plan.name = a.name;
    if (!validName(a.name, 64, true)) {
        return usageError("campaign name '" + a.name + "': 1-64 letters, digits, '_', '.' or '-'");
    }
    if (a.kernels.size() != 2) {
        return usageError("give two --kernel NAME=ID: the baseline first, then the candidate");
    }
    for (const auto& text : a.kernels) {
        plan.kernels.push_back(NF_TRY(parseKernel(text)));
    }
    if (plan.kernels[0].name == plan.kernels[1].name) {
        return usageError("--kernel: both kernels are named '" + plan.kernels[0].name + "'");
    }
    if (plan.kernels[0].buildId == plan.kernels[1].buildId) {
        return usageError("--kernel: " + plan.kernels[0].name + " and " + plan.kernels[1].name +
                          " have the same build id " + plan.kernels[0].buildId + ": one kernel cannot be told apart");
    }
    const auto order = engine::parseBootOrder(a.order);
    if (!order) {
        return usageError("--order " + a.order + ": abba, abab or random");
    }
    plan.order = *order;
    if (!a.until.empty() && a.until != "decided") {
        return usageError("--until " + a.until + ": the one stopping rule is 'decided'");
    }
    if (a.until.empty() == (a.boots == 0)) {
        return usageError("give --boots N or --until decided");
    }
    plan.untilDecided = !a.until.empty();
    plan.bootsPlanned = plan.untilDecided ? a.maxBoots : a.boots;
    const char* option = plan.untilDecided ? "--max-boots" : "--boots";
    if (plan.bootsPlanned < 4 || plan.bootsPlanned > 1000 || plan.bootsPlanned % 2 != 0) {
        return usageError(std::string(option) + " " + std::to_string(plan.bootsPlanned) +
                          ": an even number from 4 to 1000, so that each kernel has as many boots, two at least (" +
                          std::string(engine::toString(plan.order)) + " order)");
    }
    plan.metric = a.metric;
    plan.alpha = a.alpha;
    plan.marginPct = a.marginPct;
    plan.reboot = a.reboot;
    NF_TRY(checkReboot(plan.reboot, plan));
    std::random_device seed;
    plan.seed = (static_cast<std::uint64_t>(seed()) << 32) | seed();
    plan.workdir = std::filesystem::current_path().string();
    plan.commandLine = ctx.commandLine;
    for (const auto& text : a.stepTexts) {
        auto words = shellWords(text);
        if (!words) {
            return usageError("--step: " + words.error().message);
        }
        plan.steps.push_back(std::move(*words));
    }
    if (!a.recipe.empty()) {
        plan.steps.push_back(a.recipe);
    }
    if (plan.steps.empty()) {
        return usageError("no recipe: give the step after --, or --step '...' for each");
    }
    for (std::size_t s = 0; s < plan.steps.size(); ++s) {
        NF_TRY(checkStep(plan.steps[s], s));
    }
    return plan;
}

int executeNew(const NewArgs& a, const Context& ctx)
{
    auto plan = planOf(a, ctx);
    if (!plan) {
        return failWith(plan.error());
    }
    for (std::size_t s = 0; s < plan->steps.size(); ++s) {
        if (auto tried = tryStep(plan->steps[s], s); !tried) {
            return failWith(tried.error());
        }
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return failWith(db.error());
    }
    if (data::loadCampaign(*db, plan->name)) {
        return fail(kExitUsage, "campaign '" + plan->name + "' exists already in " + db->path());
    }
    auto id = data::storeCampaign(*db, *plan);
    if (!id) {
        return failWith(id.error());
    }
    std::string order;
    for (int slot = 0; slot < std::min(plan->bootsPlanned, 8); ++slot) {
        order += (order.empty() ? "" : " ") +
                 plan->kernels[static_cast<std::size_t>(engine::kernelOfSlot(plan->order, plan->seed, slot))].name;
    }
    const auto& first = plan->kernels[static_cast<std::size_t>(engine::kernelOfSlot(plan->order, plan->seed, 0))];
    std::cout << "campaign " << plan->name << ": " << (plan->untilDecided ? "until decided, at most " : "")
              << plan->bootsPlanned << " boots, " << order << (plan->bootsPlanned > 8 ? " ..." : "") << '\n'
              << "first: boot " << first.name << " (build id " << first.buildId
              << "), then run 'noisefloor campaign next " << plan->name << "' (or 'noisefloor campaign install "
              << plan->name << "' to run it at every boot)\n";
    return 0;
}

}  // namespace

Result<engine::CampaignView> campaignView(data::Database& db, const engine::Campaign& campaign,
                                          std::map<std::int64_t, engine::RunRecord>& runs)
{
    for (const auto& boot : campaign.boots) {
        for (const auto& r : boot.runs) {
            if (!runs.contains(r.runId)) {
                runs.emplace(r.runId, NF_TRY(data::loadRun(db, r.runId)));
            }
        }
    }
    auto view = NF_TRY(engine::viewCampaign(campaign, runs, {}, {}));
    // The machine's run-to-run floors of the measured step's workload size the campaign before each
    // kernel has two boots.
    for (const auto& b : view.boots) {
        if (b.runId != 0) {
            const auto& row = runs.at(b.runId).row;
            const auto floors = NF_TRY(data::calibratedFloors(db, row.workload, row.host));
            if (!floors.empty()) {
                view = NF_TRY(engine::viewCampaign(campaign, runs, floors, {}));
            }
            break;
        }
    }
    // The candidate's code size (noisefloor size OLD NEW --label LABEL), under its runs' label or its
    // kernel's name.
    const auto& candidate = campaign.plan.kernels[1].name;
    for (const std::string& label : {engine::stepLabel(campaign.plan, std::max(0, view.measuredStep), 1), candidate}) {
        if (auto size = NF_TRY(data::codeSizeFor(db, label))) {
            view.codeSize = std::move(*size);
            break;
        }
    }
    return view;
}

namespace {

int executeShow(const std::string& name, const std::string& format, bool report, const Context& ctx)
{
    if (format != "text" && format != "json") {
        return fail(kExitUsage, "--format " + format + ": text or json");
    }
    auto db = openExisting(ctx);
    if (!db) {
        return failWith(db.error());
    }
    auto campaign = data::loadCampaign(*db, name);
    if (!campaign) {
        return failWith(campaign.error().message.rfind("no campaign", 0) == 0 ? usageError(campaign.error().message)
                                                                              : campaign.error());
    }
    std::map<std::int64_t, engine::RunRecord> runs;
    auto view = campaignView(*db, *campaign, runs);
    if (!view) {
        return failWith(view.error());
    }
    if (format == "json") {
        std::cout << engine::campaignStatusJson(*view).dump(2) << '\n';
    } else if (report) {
        engine::writeCampaignReport(*view, std::cout);
    } else {
        engine::writeCampaignStatus(*view, std::cout);
    }
    return 0;
}

void addNew(CLI::App* campaign, Context& ctx, std::vector<std::function<int()>>& actions)
{
    auto a = std::make_shared<NewArgs>();
    auto* sub = campaign->add_subcommand("new", "Plan a campaign: two kernels, the order of boots, the recipe");
    sub->add_option("name", a->name, "The campaign's name")->required();
    sub->add_option("--kernel", a->kernels,
                    "NAME=BUILD-ID, NAME=vmlinux or NAME=bzImage (its gzip, xz or zstd payload is read); the baseline "
                    "first, then the candidate")
        ->required()
        ->allow_extra_args(false);
    sub->add_option("--boots", a->boots, "Boots in all (even: as many per kernel)");
    sub->add_option("--until", a->until, "'decided': boot until the verdict across boots is in");
    sub->add_option("--max-boots", a->maxBoots, "With --until decided: the most boots to take")->capture_default_str();
    sub->add_option("--order", a->order, "abba (counterbalanced), abab or random (each pair in a random order)")
        ->capture_default_str();
    sub->add_option("--metric", a->metric, "The metric decided on (default: the first step's primary metric)");
    sub->add_option("--alpha", a->alpha, "Significance level")->check(CLI::Range(1e-6, 0.5))->capture_default_str();
    sub->add_option("--margin", a->marginPct, "Equivalence margin, +-%")
        ->check(CLI::Range(0.001, 100.0))
        ->capture_default_str();
    sub->add_option("--reboot", a->reboot,
                    "How campaign next arranges the next boot: kexec, grub:NAME=ENTRY,NAME=ENTRY, or 'command TEXT' "
                    "(default: it only says which kernel to boot)");
    sub->add_option("--step", a->stepTexts, "A step of the recipe, 'run ...' or 'import ...' (repeat for several)")
        ->allow_extra_args(false);
    sub->add_option("recipe", a->recipe, "After --: the one step, e.g. -- run command -p cmd=...");
    actions.push_back([sub, a, &ctx] { return sub->parsed() ? executeNew(*a, ctx) : -1; });
}

void addNext(CLI::App* campaign, Context& ctx, std::vector<std::function<int()>>& actions)
{
    auto a = std::make_shared<CampaignNextArgs>();
    auto* sub = campaign->add_subcommand(
        "next", "After a boot: check the kernel, run the recipe, say (or arrange) which kernel boots next");
    sub->add_option("name", a->name, "The campaign")->required();
    sub->add_option("--reboot", a->reboot, "Override the plan's --reboot for this boot ('none': only say)");
    actions.push_back([sub, a, &ctx] { return sub->parsed() ? campaignNext(*a, ctx) : -1; });
}

void addShow(CLI::App* campaign, Context& ctx, std::vector<std::function<int()>>& actions, bool report)
{
    auto name = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>("text");
    auto* sub = campaign->add_subcommand(
        report ? "report" : "status",
        report ? "The evidence: kernels, boots in order, the verdict with boots as the unit, differences"
               : "Boots done and planned, the verdict so far, the boots still needed");
    sub->add_option("name", *name, "The campaign")->required();
    sub->add_option("--format", *format, "text or json")->capture_default_str();
    actions.push_back(
        [sub, name, format, report, &ctx] { return sub->parsed() ? executeShow(*name, *format, report, ctx) : -1; });
}

}  // namespace

Command addCampaignCommand(CLI::App& app, Context& ctx)
{
    auto* campaign = app.add_subcommand("campaign", "Vanilla against patched kernel, boot by boot");
    campaign->require_subcommand(1);
    auto actions = std::make_shared<std::vector<std::function<int()>>>();
    addNew(campaign, ctx, *actions);
    addNext(campaign, ctx, *actions);
    addShow(campaign, ctx, *actions, false);
    addShow(campaign, ctx, *actions, true);
    auto unitName = std::make_shared<std::string>();
    auto* install = campaign->add_subcommand("install", "Write the systemd unit that runs campaign next at each boot");
    install->add_option("name", *unitName, "The campaign")->required();
    auto* remove = campaign->add_subcommand("remove", "Delete the campaign's systemd unit");
    remove->add_option("name", *unitName, "The campaign")->required();
    actions->push_back(
        [install, unitName, &ctx] { return install->parsed() ? installCampaignUnit(*unitName, ctx) : -1; });
    actions->push_back([remove, unitName] { return remove->parsed() ? removeCampaignUnit(*unitName) : -1; });
    return {campaign,
            [actions] {
                for (const auto& action : *actions) {
                    if (const int status = action(); status >= 0) {
                        return status;
                    }
                }
                return fail(kExitUsage, "campaign: no subcommand given (new, next, status, report, install, remove)");
            },
            true};
}

}  // namespace nf::cli
