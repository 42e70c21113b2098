// noisefloor lava: a lab of generator + device-under-test pairs driven by LAVA (engine/lab/lava_job.h).
//   lava job      writes the MultiNode job definition of one experiment (on the engineer's machine);
//   lava export   the dut's run as a one-run database with the job's facts (inside the job);
//   lava results  the run's metrics and verdicts as lines the job turns into lava-test-case results;
//   lava collect  merges the uploaded runs of finished jobs here (lava_collect.cpp).

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "app/cli/atomic_file.h"
#include "app/cli/cli.h"
#include "app/cli/lava.h"
#include "app/cli/run_database.h"
#include "app/cli/run_lookup.h"
#include "app/cli/signal_stop.h"
#include "data/campaign_store.h"
#include "engine/lab/lava_job.h"
#include "engine/report/comparison_report.h"

namespace nf::cli {

namespace {

struct JobArgs {
    std::string output;
    std::vector<std::string> deviceTypes;  // ROLE=TYPE
    std::vector<std::string> tags;
    engine::lab::LavaJobSpec spec;
    std::vector<std::string> kernels;   // a URL; with --campaign, NAME=URL for each of its kernels
    std::vector<std::string> ramdisks;  // likewise
    std::string campaign;
    std::vector<std::string> recipe;
};

Result<void> applyDeviceTypes(JobArgs& a)
{
    for (const auto& dt : a.deviceTypes) {
        const auto eq = dt.find('=');
        const std::string roleName = dt.substr(0, eq);
        const std::string type = eq == std::string::npos ? "" : dt.substr(eq + 1);
        if (type.empty()) {
            return Error{"--device-type " + dt + ": ROLE=TYPE (generator=TYPE or dut=TYPE)"};
        }
        if (roleName == engine::lab::kGeneratorRole) {
            a.spec.generatorType = type;
        } else if (roleName == engine::lab::kDutRole) {
            a.spec.dutType = type;
        } else {
            return Error{"--device-type " + dt + ": the roles are generator and dut"};
        }
    }
    return {};
}

// The URL given for kernel `name` as NAME=URL among `values`; "" when none.
std::string urlFor(const std::vector<std::string>& values, const std::string& name)
{
    for (const auto& v : values) {
        if (v.rfind(name + "=", 0) == 0) {
            return v.substr(name.size() + 1);
        }
    }
    return {};
}

// One job per boot the campaign has still to make, each deploying that boot's kernel on the same
// pair (--tag), its runs labelled as the campaign's (NAME.KERNEL): a campaign's A B B A boots as
// LAVA jobs, which `lava collect` counts as the campaign's boots.
int writeCampaignJobs(JobArgs& a, const Context& ctx)
{
    if (a.spec.kernel.method.empty()) {
        return fail(kExitUsage, "--campaign needs --deploy tftp|kexec: each boot deploys its kernel on the dut");
    }
    if (a.tags.empty()) {
        return fail(kExitUsage,
                    "--campaign needs --tag PAIR: a campaign's boots are of one machine, so its jobs ask "
                    "for one pair");
    }
    if (std::find(a.recipe.begin(), a.recipe.end(), "--label") != a.recipe.end()) {
        return fail(kExitUsage, "--campaign labels the runs itself (NAME.KERNEL); leave --label out of the recipe");
    }
    if (a.output.empty() || a.output == "-") {
        return fail(kExitUsage, "--campaign writes a job per boot: -o DIR");
    }
    auto db = openExisting(ctx);
    if (!db) {
        return failWith(db.error());
    }
    auto campaign = data::loadCampaign(*db, a.campaign);
    if (!campaign) {
        return fail(kExitUsage, campaign.error().message);
    }
    const auto& plan = campaign->plan;
    for (const auto& k : plan.kernels) {
        if (urlFor(a.kernels, k.name).empty()) {
            return fail(kExitUsage, "--kernel " + k.name + "=URL: campaign " + plan.name + " boots " + k.name);
        }
    }
    if (a.kernels.size() != plan.kernels.size()) {
        return fail(kExitUsage, "--kernel NAME=URL once for each of campaign " + plan.name + "'s kernels");
    }
    std::error_code ec;
    std::filesystem::create_directories(a.output, ec);
    if (ec) {
        return fail(kExitRuntime, "cannot make " + a.output + ": " + ec.message());
    }
    int written = 0;
    for (int slot = campaign->nextSlot(); slot < plan.bootsPlanned; ++slot) {
        const int k = engine::kernelOfSlot(plan.order, plan.seed, slot);
        const auto& kernel = plan.kernels.at(static_cast<std::size_t>(k));
        engine::lab::LavaJobSpec spec = a.spec;
        spec.name = fmt::format("{} boot {} of {}: {}", plan.name, slot + 1, plan.bootsPlanned, kernel.name);
        spec.kernel.kernel = urlFor(a.kernels, kernel.name);
        spec.kernel.ramdisk = urlFor(a.ramdisks, kernel.name);
        spec.recipe.insert(spec.recipe.end(), {"--label", engine::stepLabel(plan, 0, k)});
        spec.metadata = {{"noisefloor.campaign", plan.name},
                         {"noisefloor.boot", std::to_string(slot + 1)},
                         {"noisefloor.kernel", kernel.name},
                         {"noisefloor.build_id", kernel.buildId}};
        auto yaml = engine::lab::lavaJobYaml(spec);
        if (!yaml) {
            return fail(kExitUsage, yaml.error().message);
        }
        const auto path =
            (std::filesystem::path(a.output) / fmt::format("{}-boot-{:02}-{}.yaml", plan.name, slot + 1, kernel.name))
                .string();
        if (auto ok = writeFileWhole(path, *yaml); !ok) {
            return fail(kExitRuntime, ok.error().message);
        }
        std::cout << path << '\n';
        ++written;
    }
    std::cerr << "noisefloor: " << written << " jobs for campaign " << plan.name
              << (plan.untilDecided ? " (until decided: stop submitting when `campaign status` says decided)" : "")
              << "; submit them in order, then `noisefloor lava collect` their uploads\n";
    return 0;
}

int writeJob(JobArgs& a, const Context& ctx)
{
    if (auto ok = applyDeviceTypes(a); !ok) {
        return fail(kExitUsage, ok.error().message);
    }
    a.spec.recipe = a.recipe;
    a.spec.tags = a.tags;
    if (!a.campaign.empty()) {
        return writeCampaignJobs(a, ctx);
    }
    if (a.kernels.size() > 1) {
        return fail(kExitUsage, "--kernel is given once (one per kernel only with --campaign)");
    }
    a.spec.kernel.kernel = a.kernels.empty() ? "" : a.kernels.front();
    a.spec.kernel.ramdisk = a.ramdisks.empty() ? "" : a.ramdisks.front();
    auto yaml = engine::lab::lavaJobYaml(a.spec);
    if (!yaml) {
        return fail(kExitUsage, yaml.error().message);
    }
    if (a.output.empty() || a.output == "-") {
        std::cout << *yaml;
        return 0;
    }
    if (auto ok = writeFileWhole(a.output, *yaml); !ok) {
        return fail(kExitRuntime, ok.error().message);
    }
    std::cerr << "noisefloor: wrote " << a.output << " (submit it with `lavacli jobs submit " << a.output << "`)\n";
    return 0;
}

struct ExportArgs {
    std::string run;
    std::string output;
    std::string job;
    std::string device;
    std::string worker;
    std::string generator;
    std::string pair;
};

int exportForLab(const ExportArgs& a, const Context& ctx)
{
    SignalStop signals;
    if (a.output.empty() || a.output == "-") {
        return fail(kExitUsage, "lava export writes a file: -o FILE");
    }
    if (a.job.empty() || a.device.empty()) {
        return fail(kExitUsage, "lava export needs --job ID and --device NAME (the job's and the dut's)");
    }
    auto db = openExisting(ctx);
    if (!db) {
        return failWith(db.error());
    }
    auto run = loadNamedRun(*db, a.run);
    if (!run) {
        return failWith(run.error());
    }
    const LabFacts facts{
        .job = a.job, .device = a.device, .worker = a.worker, .generator = a.generator, .pairName = a.pair};
    return exportRunDatabase(*db, run->row.id, a.output, signals, std::pair{std::string(kLabSection), facts.toJson()});
}

// A LAVA test case name (letters, digits, '.', '_' and '-'), or its units (also '/' and '%'): one
// word each in the line lava-test-case signals.
std::string caseWord(std::string text, std::string_view more = "")
{
    for (char& c : text) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
              more.find(c) != std::string_view::npos)) {
            c = '_';
        }
    }
    return text;
}

std::string measurement(double v)
{
    return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string();
}

int printResults(const std::string& name, const Context& ctx)
{
    auto db = openExisting(ctx);
    if (!db) {
        return failWith(db.error());
    }
    auto run = loadNamedRun(*db, name);
    if (!run) {
        return failWith(run.error());
    }
    auto report = engine::compareRuns({{&*run, ""}}, {}, engine::AnalysisOptions{});
    if (!report) {
        return fail(kExitRuntime, report.error().message);
    }
    const auto& analysis = report->analysis;
    // Each variant's mean of each metric: LAVA's results table and its charts across jobs.
    for (const auto& v : analysis.variants) {
        const auto& specs = run->data.layout.metrics;
        const auto spec = std::find_if(specs.begin(), specs.end(), [&](const auto& m) { return m.name == v.metric; });
        const std::string units = spec != specs.end() ? spec->unit : std::string();
        std::string value = measurement(v.summary.mean);
        std::cout << caseWord(v.metric + "." + v.variant) << ' ' << (value.empty() ? "fail" : "pass");
        if (!value.empty()) {
            std::cout << ' ' << value << ' ' << caseWord(units.empty() ? "value" : units, "/%");
        }
        std::cout << '\n';
    }
    // Each comparison, under a name that stays the same from job to job (LAVA charts a case's
    // measurement across jobs): the change in percent as the measurement; `fail` for a change shown
    // in the worse direction or an invalid test, `unknown` for inconclusive, else `pass`. The
    // verdict's own words are in the job's log (the dut prints `compare`).
    for (const auto& c : analysis.comparisons) {
        if (!c.primary) {
            continue;
        }
        const auto verdict = c.result.verdict;
        const bool worse = verdict == engine::Verdict::Different &&
                           (c.higherIsBetter ? c.result.direction < 0 : c.result.direction > 0);
        const char* result = verdict == engine::Verdict::Invalid || worse ? "fail"
                             : verdict == engine::Verdict::Inconclusive   ? "unknown"
                                                                          : "pass";
        const std::string value = measurement(c.result.interval.estimatePct);
        std::cout << caseWord(c.metric + "." + c.candidate + "-vs-" + c.baseline) << ' ' << result;
        if (!value.empty()) {
            std::cout << ' ' << value << " %";
        }
        std::cout << '\n';
    }
    return 0;
}

}  // namespace

Command addLavaCommand(CLI::App& app, Context& ctx)
{
    auto* lava = app.add_subcommand("lava", "A lab of generator + device-under-test pairs driven by LAVA");
    lava->require_subcommand(1);

    auto job = std::make_shared<JobArgs>();
    auto* jobCmd = lava->add_subcommand(
        "job", "Write a LAVA MultiNode job (roles generator and dut) that measures the recipe after --");
    jobCmd->add_option("-o,--output", job->output, "The job file (default: standard output)");
    jobCmd->add_option("--device-type", job->deviceTypes, "ROLE=TYPE, e.g. dut=x86 (default: ssh for both)")
        ->allow_extra_args(false);
    jobCmd->add_option("--tag", job->tags, "A device tag both roles ask for: the pair's, to keep jobs on one pair")
        ->allow_extra_args(false);
    jobCmd->add_option("--name", job->spec.name, "job_name (default: noisefloor WORKLOAD)");
    jobCmd
        ->add_option("--artifacts", job->spec.artifacts,
                     "Where the dut uploads its run: an http(s) URL (PUT) or an scp target (host:dir)")
        ->required();
    jobCmd->add_option("--deploy", job->spec.kernel.method, "Put a kernel on the dut first: tftp or kexec");
    jobCmd
        ->add_option("--kernel", job->kernels,
                     "The kernel's URL (with --deploy); with --campaign, NAME=URL for each of its kernels")
        ->allow_extra_args(false);
    jobCmd->add_option("--kernel-type", job->spec.kernel.kernelType, "tftp: image, zimage or uimage");
    jobCmd->add_option("--ramdisk", job->ramdisks, "The initramfs's URL; with --campaign, NAME=URL per kernel")
        ->allow_extra_args(false);
    jobCmd->add_option("--campaign", job->campaign,
                       "Write a job per boot the campaign has still to make (-o DIR), each deploying its kernel");
    jobCmd->add_option("--rootfs", job->spec.kernel.rootfs, "tftp: an NFS root file system's URL (tar)");
    jobCmd->add_option("--modules", job->spec.kernel.modules, "The modules' URL (tar)");
    jobCmd->add_option("--dtb", job->spec.kernel.dtb, "A device tree blob's URL");
    jobCmd->add_option("--boot-method", job->spec.kernel.bootMethod, "tftp: ipxe (default), u-boot, grub, ...");
    jobCmd->add_option("--noisefloor", job->spec.noisefloor, "The noisefloor command on the devices")
        ->capture_default_str();
    jobCmd->add_option("--install", job->spec.install, "A shell command that installs noisefloor where it is missing");
    jobCmd
        ->add_option("--generator-login", job->spec.generatorLogin,
                     "udp-rx, xdp-rx: the user the dut's ssh logs in to the generator as")
        ->capture_default_str();
    jobCmd->add_option(
        "--control-iface", job->spec.controlIface,
        "udp-rx, xdp-rx: the generator's interface the dut reaches it by (default: its default route's)");
    jobCmd->add_option("--ssh-config", job->spec.sshConfig,
                       "An ssh configuration file on the dut, for its scp upload and (as -p ssh_config) its generator");
    jobCmd->add_option("--tx-iface", job->spec.txIface, "iface-rx: the generator's sending interface");
    jobCmd
        ->add_option("--visibility", job->spec.visibility,
                     "public, or personal: who sees the job, its results and the upload's link")
        ->capture_default_str();
    jobCmd->add_option("--timeout", job->spec.timeoutMinutes, "The job's timeout in minutes")
        ->check(CLI::Range(5, 24 * 60))
        ->capture_default_str();
    jobCmd->add_option("recipe", job->recipe, "After --: run WORKLOAD ... as the dut runs it");

    auto exp = std::make_shared<ExportArgs>();
    auto* exportCmd =
        lava->add_subcommand("export", "Inside a job: the run as a one-run database with the job's facts");
    exportCmd->add_option("run", exp->run, "Run id, or 'last'")->required();
    exportCmd->add_option("-o,--output", exp->output, "The new database file")->required();
    exportCmd->add_option("--job", exp->job, "The LAVA job id ($LAVA_JOB_ID)");
    exportCmd->add_option("--device", exp->device, "The dut's name");
    exportCmd->add_option("--worker", exp->worker, "The dispatcher's address ($LAVA_DISPATCHER_IP)");
    exportCmd->add_option("--generator", exp->generator, "The generator's name");
    exportCmd->add_option("--pair", exp->pair, "The pair's name (the tag the job asked for); \"\": GENERATOR+DEVICE");

    auto resultsRun = std::make_shared<std::string>();
    auto* resultsCmd = lava->add_subcommand(
        "results",
        "Inside a job: each metric's mean per variant and each comparison (fail: worse or invalid; unknown: "
        "inconclusive), one 'NAME RESULT [MEASUREMENT UNITS]' line each");
    resultsCmd->add_option("run", *resultsRun, "Run id, or 'last'")->required();

    auto collect = std::make_shared<CollectArgs>();
    auto* collectCmd =
        lava->add_subcommand("collect", "Merge the runs that finished jobs uploaded (a directory of their databases)");
    collectCmd->add_option("dir", collect->dir, "The directory the jobs uploaded to")->required();

    return {lava,
            [=, &ctx]() {
                if (jobCmd->parsed()) {
                    return writeJob(*job, ctx);
                }
                if (exportCmd->parsed()) {
                    return exportForLab(*exp, ctx);
                }
                if (resultsCmd->parsed()) {
                    return printResults(*resultsRun, ctx);
                }
                if (collectCmd->parsed()) {
                    return collectLabRuns(*collect, ctx);
                }
                return fail(kExitUsage, "lava: no subcommand given (job, export, results, collect)");
            },
            true};
}

}  // namespace nf::cli
