#include "engine/report/campaign_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/analysis/across_runs.h"
#include "engine/analysis/chunk_cut.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/stats/descriptive.h"
#include "engine/stats/power.h"

namespace nf::engine {
namespace {

const MetricSpec* findMetric(const RunRecord& run, const std::string& name)
{
    const auto& ms = run.data.layout.metrics;
    const auto it = std::find_if(ms.begin(), ms.end(), [&](const MetricSpec& m) { return m.name == name; });
    return it == ms.end() ? nullptr : &*it;
}

const RunRecord* stepRun(const CampaignBoot& boot, int step, const std::map<std::int64_t, RunRecord>& runs)
{
    for (const auto& r : boot.runs) {
        if (r.step == step) {
            const auto it = runs.find(r.runId);
            if (it != runs.end() && it->second.row.status == RunStatus::Complete) {
                return &it->second;
            }
        }
    }
    return nullptr;
}

// The step whose runs are measured, and the metric: the first step of a complete boot with a run
// that has the campaign's metric (or, when it names none, the first step with a run, and that run's
// primary metric).
void chooseMetric(const Campaign& c, const std::map<std::int64_t, RunRecord>& runs, CampaignView& view)
{
    for (const auto& boot : c.boots) {
        if (boot.status != BootStatus::Complete) {
            continue;
        }
        for (int step = 0; step < static_cast<int>(c.plan.steps.size()); ++step) {
            const RunRecord* run = stepRun(boot, step, runs);
            if (run == nullptr || run->data.layout.metrics.empty()) {
                continue;
            }
            const std::string name = c.plan.metric.empty() ? run->data.layout.metrics.front().name : c.plan.metric;
            if (const MetricSpec* m = findMetric(*run, name)) {
                view.metric = m->name;
                view.unit = m->unit;
                view.measuredStep = step;
                return;
            }
        }
    }
    view.metric = c.plan.metric;
}

void addBootValues(const Campaign& c, const std::map<std::int64_t, RunRecord>& runs, CampaignView& view)
{
    for (const auto& boot : c.boots) {
        CampaignBootValue value{&boot, stepLabel(c.plan, std::max(0, view.measuredStep), boot.kernel)};
        if (boot.status == BootStatus::Complete && view.measuredStep >= 0) {
            if (const RunRecord* run = stepRun(boot, view.measuredStep, runs)) {
                value.runId = run->row.id;
                const auto v = finiteMetricValues(*run, view.metric);
                value.repetitions = v.size();
                value.mean = v.empty() ? value.mean : mean(v);
            }
        }
        view.boots.push_back(value);
    }
}

// ln(candidate / baseline) of each pair of slots (2k, 2k + 1) whose boots both measured (every
// order puts one boot of each kernel in such a pair). A pair without both values is passed over.
std::vector<double> pairLogRatios(const CampaignView& view)
{
    std::map<int, const CampaignBootValue*> bySlot;
    for (const auto& b : view.boots) {
        if (b.boot->status == BootStatus::Complete && std::isfinite(b.mean) && b.mean > 0) {
            bySlot[b.boot->slot] = &b;
        }
    }
    std::vector<double> out;
    const int last = bySlot.empty() ? -1 : bySlot.rbegin()->first;
    for (int k = 0; 2 * k + 1 <= last; ++k) {
        const auto a = bySlot.find(2 * k);
        const auto b = bySlot.find(2 * k + 1);
        if (a == bySlot.end() || b == bySlot.end()) {
            continue;
        }
        const auto* base = a->second->boot->kernel == 0 ? a->second : b->second;
        const auto* cand = a->second->boot->kernel == 0 ? b->second : a->second;
        out.push_back(std::log(cand->mean / base->mean));
    }
    return out;
}

// The comparison of the kernels' boots: each boot's run, its boot the campaign's boot (the boot id
// read through the identity root), so that boots are the unit.
void compareKernels(const Campaign& c, const std::map<std::int64_t, RunRecord>& runs,
                    const std::map<std::string, RunNoiseFloor>& floors, const AnalysisOptions& options,
                    CampaignView& view)
{
    std::vector<std::vector<RunRecord>> copies(c.plan.kernels.size());
    for (const auto& b : view.boots) {
        if (b.runId != 0 && b.repetitions > 0) {
            RunRecord run = runs.at(b.runId);
            run.row.bootId = b.boot->bootId;
            copies[static_cast<std::size_t>(b.boot->kernel)].push_back(std::move(run));
        }
    }
    // One boot on a side gives no boot-to-boot variance of its own: the comparison waits for two.
    // (A calibrate --across-runs floor only sizes the campaign then: its runs need not span boots.)
    if (copies.size() != 2 || std::min(copies[0].size(), copies[1].size()) < 2) {
        return;
    }
    view.kernelBoots = {copies[0].size(), copies[1].size()};
    std::vector<LabelChoice> labels;
    for (std::size_t k = 0; k < copies.size(); ++k) {
        LabelChoice choice{c.plan.kernels[k].name, {}, copies[k].front().data.variantNames.front()};
        for (const auto& run : copies[k]) {
            choice.runs.push_back(&run);
        }
        labels.push_back(std::move(choice));
    }
    AnalysisOptions o = options;
    o.primary = view.metric;
    o.compare.alpha = c.plan.alpha;
    o.compare.marginPct = c.plan.marginPct;
    auto report = compareLabels(labels, {view.metric}, floors, o);
    if (!report) {
        view.warnings.push_back("the kernels' boots could not be compared: " + report.error().message);
        return;
    }
    // Between-boot spread: per kernel, the variance of boot means beyond what the repetitions in
    // a boot explain, pooled over the kernels that have two boots.
    double sum = 0;
    int kernels = 0;
    for (const auto& side : copies) {
        std::vector<RunValues> values;
        std::vector<double> means;
        for (const auto& run : side) {
            if (auto v = finiteMetricValues(run, view.metric); !v.empty()) {
                means.push_back(mean(v));
                values.push_back({run.row.bootId, std::move(v)});
            }
        }
        const double between = values.size() >= 2 ? betweenRunVariance(values, std::fabs(mean(means))) : NAN;
        if (std::isfinite(between)) {
            sum += between;
            ++kernels;
        }
    }
    if (kernels > 0) {
        view.betweenBootCv = std::sqrt(sum / kernels);
    }
    // The runs' command lines differ only in their labels, which the boots table above lists: the
    // header says once what was compared, then what all runs share.
    auto& brief = report->context.briefHeader;
    const auto shared = std::find_if(brief.begin(), brief.end(),
                                     [](const std::string& line) { return line.rfind("all runs:", 0) == 0; });
    if (shared != brief.end()) {
        report->context.title = fmt::format("noisefloor: campaign {}, step {}: {} {} boots against {} {} boots",
                                            c.plan.name, view.measuredStep + 1, copies[0].size(),
                                            c.plan.kernels[0].name, copies[1].size(), c.plan.kernels[1].name);
        brief.erase(brief.begin(), shared);
    }
    view.comparison = std::move(*report);
}

void decideDone(const Campaign& c, CampaignView& view)
{
    if (c.plan.untilDecided && view.sequential && view.sequential->decision != Verdict::Inconclusive) {
        view.done = true;
        view.doneReason = fmt::format("decided: {} after {} pairs of boots", toString(view.sequential->decision),
                                      view.sequential->pairs);
    } else if (view.bootsDone >= c.plan.bootsPlanned) {
        view.done = true;
        view.doneReason = c.plan.untilDecided
                              ? fmt::format("the most boots planned ({}) are done, undecided", c.plan.bootsPlanned)
                              : fmt::format("all {} planned boots are done", c.plan.bootsPlanned);
    }
}

void estimateBootsNeeded(const Campaign& c, const std::map<std::string, RunNoiseFloor>& floors, CampaignView& view)
{
    if (view.done) {
        return;
    }
    const auto capped = [&](int more) {
        const int left = c.plan.bootsPlanned - view.bootsDone;
        return more > left ? fmt::format(" (beyond the {} boots the plan has left)", left) : std::string();
    };
    if (c.plan.untilDecided) {
        if (view.sequential && view.sequential->pairsStillNeeded) {
            const int more = static_cast<int>(2 * *view.sequential->pairsStillNeeded);
            view.bootsNeeded = more;
            view.bootsNeededFrom =
                fmt::format("the spread of the {} pairs so far{}", view.sequential->pairs, capped(more));
        }
        return;
    }
    if (const Comparison* cmp = view.primaryComparison(); cmp != nullptr && cmp->nNeeded) {
        const int perKernel = static_cast<int>(std::ceil(*cmp->nNeeded));
        view.bootsNeeded = std::max(0, 2 * perKernel - view.bootsDone);
        view.bootsNeededFrom =
            fmt::format("{} boots per kernel to find a {:.3g}% difference with 80% power, at the spread so far{}",
                        perKernel, cmp->targetPct, capped(*view.bootsNeeded));
        return;
    }
    // Before each kernel has two boots: from this machine's run-to-run floor, for a difference the
    // size of the margin (two-sided alpha, 80% power, normal approximation).
    const auto floor = floors.find(view.metric);
    if (floor == floors.end() || !(floor->second.betweenCv > 0)) {
        return;
    }
    const double z = stats::tQuantile(1 - c.plan.alpha / 2, 1e9) + stats::tQuantile(0.8, 1e9);
    const double delta = c.plan.marginPct / 100;
    const int perKernel =
        std::max(2, static_cast<int>(std::ceil(2 * std::pow(z * floor->second.betweenCv / delta, 2))));
    view.bootsNeeded = std::max(0, 2 * perKernel - view.bootsDone);
    view.bootsNeededFrom = fmt::format(
        "{} boots per kernel to find a {:.3g}% difference with 80% power, from the run-to-run CV {:.2f}% that "
        "calibrate "
        "--across-runs stored{}",
        perKernel, c.plan.marginPct, 100 * floor->second.betweenCv, capped(*view.bootsNeeded));
}

// The kernel command line without what names the kernel itself (BOOT_IMAGE=, initrd=), which
// differs between two kernels' boots by design.
std::string withoutBootImage(const std::string& cmdline)
{
    std::string out;
    std::size_t at = 0;
    while (at < cmdline.size()) {
        const auto end = std::min(cmdline.find(' ', at), cmdline.size());
        const std::string word = cmdline.substr(at, end - at);
        if (!word.empty() && word.rfind("BOOT_IMAGE=", 0) != 0 && word.rfind("initrd=", 0) != 0) {
            out += (out.empty() ? "" : " ") + word;
        }
        at = end + 1;
    }
    return out;
}

// Each fact of the boots' identity (besides the build id, which is the kernel, and its release) and of the tested
// interfaces' settings as the measured run read them before its first repetition (driver, firmware,
// offloads, rings, coalescing, IRQ affinity, RPS/XPS, XDP mode) whose values differ between the two
// kernels' boots, or vary among one kernel's.
std::vector<std::string> bootDifferences(const Campaign& c, const CampaignView& view,
                                         const std::map<std::int64_t, RunRecord>& runs)
{
    std::map<std::string, std::vector<std::set<std::string>>> facts;
    const auto add = [&](const std::string& name, int kernel, const nlohmann::json& v) {
        auto& sets = facts[name];
        sets.resize(c.plan.kernels.size());
        sets[static_cast<std::size_t>(kernel)].insert(v.is_string() ? v.get<std::string>() : v.dump());
    };
    for (const auto& boot : c.boots) {
        if (boot.status != BootStatus::Complete || !boot.identity.is_object()) {
            continue;
        }
        for (const auto& [key, value] : boot.identity.items()) {
            if (key == "vulnerabilities" && value.is_object()) {
                for (const auto& [v, text] : value.items()) {
                    add("vulnerabilities/" + v, boot.kernel, text);
                }
            } else if (key == "cmdline" && value.is_string()) {
                add(key, boot.kernel, withoutBootImage(value.get<std::string>()));
            } else if (key != "build_id" && key != "boot_id" && key != "version" && key != "sysroot" &&
                       key != "release" && key != "config_source") {
                add(key, boot.kernel, value);
            }
        }
    }
    for (const auto& b : view.boots) {
        const auto run = runs.find(b.runId);
        if (b.runId == 0 || run == runs.end() || run->second.data.testedStates.empty()) {
            continue;
        }
        const auto& state = run->second.data.testedStates.front().second;
        if (!state.contains("before") || !state.at("before").is_object()) {
            continue;
        }
        const std::string release = b.boot->identity.value("release", "");
        for (const auto& [setting, value] : state.at("before").items()) {
            if (!value.is_string() || value.get<std::string>() == "unavailable") {
                continue;
            }
            // An in-tree driver's version is the kernel's release: that difference is the kernel.
            std::string text = value.get<std::string>();
            if (setting.ends_with(" driver") && !release.empty() && text.ends_with(" " + release)) {
                text.resize(text.size() - release.size() - 1);
            }
            add(setting, b.boot->kernel, text);
        }
    }
    const auto joined = [](const std::set<std::string>& values) {
        std::string text;
        for (const auto& v : values) {
            text += (text.empty() ? "'" : "', '") + v;
        }
        return text + "'";
    };
    std::vector<std::string> out;
    for (const auto& [name, sets] : facts) {
        if (sets.size() != 2 || sets[0].empty() || sets[1].empty()) {
            continue;
        }
        if (sets[0] != sets[1]) {
            out.push_back(fmt::format("{} differs: {} on {} boots, {} on {} boots", name, joined(sets[0]),
                                      c.plan.kernels[0].name, joined(sets[1]), c.plan.kernels[1].name));
        } else if (sets[0].size() > 1) {
            out.push_back(fmt::format("{} varies between boots: {}", name, joined(sets[0])));
        }
    }
    return out;
}

void warnInProcess(const std::map<std::int64_t, RunRecord>& runs, CampaignView& view)
{
    for (const auto& b : view.boots) {
        if (b.runId == 0) {
            continue;
        }
        const auto& run = runs.at(b.runId);
        const auto* w = findWorkload(run.row.workload);
        if (w != nullptr && w->kind == WorkloadKind::InProcess) {
            view.warnings.push_back(fmt::format(
                "step {} runs {}, an in-process model: the same user-space code under both kernels, so it does not "
                "test a kernel patch (only what the kernel does around it: interrupts, mitigations)",
                view.measuredStep + 1, run.row.workload));
        }
        return;
    }
}

}  // namespace

std::vector<double> finiteMetricValues(const RunRecord& run, const std::string& metric)
{
    const MetricSpec* m = findMetric(run, metric);
    if (m == nullptr) {
        return {};
    }
    auto v = repetitionValues(run.data, chunkCut(run.data), 0, *m);
    std::erase_if(v, [](double x) { return !std::isfinite(x); });
    return v;
}

const Comparison* CampaignView::primaryComparison() const
{
    if (!comparison || kernelBoots.size() != 2) {
        return nullptr;
    }
    for (const auto& mc : comparison->analysis.comparisons) {
        if (mc.metric == metric && mc.primary) {
            return &mc.result;
        }
    }
    return nullptr;
}

Result<CampaignView> viewCampaign(const Campaign& campaign, const std::map<std::int64_t, RunRecord>& runs,
                                  const std::map<std::string, RunNoiseFloor>& floors, const AnalysisOptions& options)
{
    CampaignView view;
    view.campaign = &campaign;
    view.bootsDone = campaign.completeBoots();
    chooseMetric(campaign, runs, view);
    addBootValues(campaign, runs, view);
    compareKernels(campaign, runs, floors, options, view);
    if (campaign.plan.untilDecided) {
        view.sequential = lookAcrossBoots(pairLogRatios(view), campaign.plan.alpha, campaign.plan.marginPct);
    }
    decideDone(campaign, view);
    estimateBootsNeeded(campaign, floors, view);
    view.differences = bootDifferences(campaign, view, runs);
    warnInProcess(runs, view);
    for (const auto& b : view.boots) {
        if (b.boot->status == BootStatus::Complete && b.runId == 0) {
            view.warnings.push_back(fmt::format("boot {} ({}) finished its recipe but stored no run with {}",
                                                b.boot->slot + 1, b.label,
                                                view.metric.empty() ? "a metric" : view.metric));
        }
    }
    return view;
}

}  // namespace nf::engine
