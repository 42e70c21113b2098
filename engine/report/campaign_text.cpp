// `campaign status` and `campaign report`: the view of engine/report/campaign_view.h as text and
// JSON.

#include <fmt/format.h>

#include <cmath>

#include "engine/report/campaign_view.h"
#include "engine/report/code_size_report.h"
#include "engine/report/evidence_context.h"

namespace nf::engine {
namespace {

// A boot's value in 9 characters at most, without an exponent: 17.76M, 123.46k, 16.51.
std::string figure(double v)
{
    if (!std::isfinite(v)) {
        return "-";
    }
    const double a = std::fabs(v);
    if (a >= 1e9) {
        return fmt::format("{:.2f}G", v / 1e9);
    }
    if (a >= 1e6) {
        return fmt::format("{:.2f}M", v / 1e6);
    }
    if (a >= 1e4) {
        return fmt::format("{:.2f}k", v / 1e3);
    }
    return fmt::format("{:.4g}", v);
}

std::string percent(double v)
{
    return std::isfinite(v) ? fmt::format("{:+.2f}%", v) : "unbounded";
}

nlohmann::json number(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

const CampaignKernel* nextKernel(const CampaignView& view)
{
    if (view.done) {
        return nullptr;
    }
    const auto& c = *view.campaign;
    return &c.plan.kernels.at(static_cast<std::size_t>(c.nextKernel()));
}

// The verdict line: the sequential look when the campaign runs until decided, else the fixed
// comparison of the boots.
std::string verdictLine(const CampaignView& view)
{
    const auto& kernels = view.campaign->plan.kernels;
    const char* const what = view.done ? "verdict" : "verdict so far";
    if (view.sequential) {
        const auto& s = *view.sequential;
        if (s.pairs < 2) {
            return fmt::format("{}: none yet ({} of the 2 pairs of boots the first look needs)", what, s.pairs);
        }
        return fmt::format("{}: {}, {} {} [{}, {}] ({} pairs of boots; look {} at alpha {:.2g})", what,
                           toString(s.decision), kernels[1].name, percent(s.estimatePct), percent(s.ci.low),
                           percent(s.ci.high), s.pairs, s.pairs - 1, s.alphaLook);
    }
    const Comparison* cmp = view.primaryComparison();
    if (cmp == nullptr) {
        return std::string(what) + ": none yet (each kernel needs two boots that measured " +
               (view.metric.empty() ? std::string("its metric") : view.metric) + ")";
    }
    return fmt::format("{}: {}, {} {} [{}, {}] (boots as the unit: {} {} against {} {})", what, toString(cmp->verdict),
                       kernels[1].name, percent(cmp->interval.estimatePct), percent(cmp->interval.ci.low),
                       percent(cmp->interval.ci.high), view.kernelBoots[0], kernels[0].name, view.kernelBoots[1],
                       kernels[1].name);
}

// A line within 72 columns, wrapped at its words.
void writeWrapped(std::ostream& out, const std::string& text)
{
    for (const auto& line : headerLines(text, 72, "  ")) {
        out << line << '\n';
    }
}

nlohmann::json verdictJson(const CampaignView& view)
{
    if (view.sequential) {
        const auto& s = *view.sequential;
        return {{"decision", toString(s.decision)},
                {"unit", "boot pair"},
                {"units", s.pairs},
                {"estimate_pct", number(s.estimatePct)},
                {"ci_low_pct", number(s.ci.low)},
                {"ci_high_pct", number(s.ci.high)},
                {"alpha_this_look", number(s.alphaLook)}};
    }
    const Comparison* cmp = view.primaryComparison();
    if (cmp == nullptr) {
        return nullptr;
    }
    return {{"decision", toString(cmp->verdict)},
            {"unit", "boot"},
            {"units", view.kernelBoots},
            {"estimate_pct", number(cmp->interval.estimatePct)},
            {"ci_low_pct", number(cmp->interval.ci.low)},
            {"ci_high_pct", number(cmp->interval.ci.high)},
            {"p", number(cmp->p)}};
}

// One line per boot within 72 columns: the boot id's first 8 characters (in full in JSON).
void writeBoots(const CampaignView& view, std::ostream& out)
{
    out << fmt::format("  {:>4}  {:<10}  {:<11}  {:>12}  {:>4}  {:>5}  {}\n", "boot", "kernel", "status",
                       view.metric.empty() ? "value" : view.metric, "reps", "run", "boot id");
    for (const auto& b : view.boots) {
        const auto& boot = *b.boot;
        const bool counted = boot.status == BootStatus::Complete;
        out << fmt::format(
            "  {:>4}  {:<10}  {:<11}  {:>12}  {:>4}  {:>5}  {}\n", counted ? std::to_string(boot.slot + 1) : "-",
            view.campaign->plan.kernels.at(static_cast<std::size_t>(boot.kernel)).name, toString(boot.status),
            figure(b.mean), b.repetitions, b.runId != 0 ? std::to_string(b.runId) : "-", boot.bootId.substr(0, 8));
        if (!counted && !boot.reason.empty()) {
            writeWrapped(out, "        not counted: " + boot.reason);
        }
    }
}

}  // namespace

nlohmann::json campaignStatusJson(const CampaignView& view)
{
    const auto& c = *view.campaign;
    const CampaignKernel* next = nextKernel(view);
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& k : c.plan.kernels) {
        kernels.push_back({{"name", k.name}, {"build_id", k.buildId}, {"image", k.image}});
    }
    nlohmann::json boots = nlohmann::json::array();
    for (const auto& b : view.boots) {
        boots.push_back({{"boot", b.boot->status == BootStatus::Complete ? nlohmann::json(b.boot->slot + 1) : nullptr},
                         {"boot_id", b.boot->bootId},
                         {"kernel", c.plan.kernels.at(static_cast<std::size_t>(b.boot->kernel)).name},
                         {"status", toString(b.boot->status)},
                         {"reason", b.boot->reason},
                         {"label", b.label},
                         {"run", b.runId != 0 ? nlohmann::json(b.runId) : nullptr},
                         {"mean", number(b.mean)},
                         {"repetitions", b.repetitions}});
    }
    return {{"campaign", c.plan.name},
            {"kernels", kernels},
            {"order", toString(c.plan.order)},
            {"until_decided", c.plan.untilDecided},
            {"boots_done", view.bootsDone},
            {"boots_planned", c.plan.bootsPlanned},
            {"done", view.done},
            {"done_reason", view.doneReason},
            {"next_kernel", next != nullptr ? nlohmann::json(next->name) : nullptr},
            {"next_build_id", next != nullptr ? nlohmann::json(next->buildId) : nullptr},
            {"metric", view.metric},
            {"verdict", verdictJson(view)},
            {"between_boot_cv", number(view.betweenBootCv)},
            {"boots_needed", view.bootsNeeded ? nlohmann::json(*view.bootsNeeded) : nullptr},
            {"boots_needed_from", view.bootsNeededFrom},
            {"differences", view.differences},
            {"code_size", view.codeSize ? codeSizeJson(*view.codeSize) : nlohmann::json()},
            {"warnings", view.warnings},
            {"boots", boots}};
}

void writeCampaignStatus(const CampaignView& view, std::ostream& out)
{
    const auto& c = *view.campaign;
    const auto& k = c.plan.kernels;
    out << fmt::format("campaign {}: {} against {}, boots in {} order{}\n", c.plan.name, k[0].name, k[1].name,
                       toString(c.plan.order), c.plan.untilDecided ? ", until decided" : "");
    const int notCounted = static_cast<int>(view.boots.size()) - view.bootsDone;
    out << fmt::format("boots: {} of {} {}{}\n", view.bootsDone, c.plan.bootsPlanned,
                       c.plan.untilDecided ? "at most" : "planned",
                       notCounted > 0 ? fmt::format(" ({} not counted: recipe not finished)", notCounted) : "");
    if (const CampaignKernel* next = nextKernel(view)) {
        out << fmt::format("next: boot {} (build id {}), then run 'noisefloor campaign next {}'\n", next->name,
                           next->buildId, c.plan.name);
    } else {
        out << "done: " << view.doneReason << '\n';
    }
    if (!view.metric.empty()) {
        out << fmt::format("metric: {}{} of step {}\n", view.metric, view.unit.empty() ? "" : " (" + view.unit + ")",
                           view.measuredStep + 1);
    }
    writeWrapped(out, verdictLine(view));
    if (!view.done && !view.campaign->plan.untilDecided && view.primaryComparison() != nullptr) {
        writeWrapped(out, fmt::format("  (interim: the verdict is the one after all {} boots; stopping on an "
                                      "interim one is not valid, --until decided is)",
                                      view.campaign->plan.bootsPlanned));
    }
    if (std::isfinite(view.betweenBootCv)) {
        out << fmt::format("between-boot spread: {:.2f}% of the mean (beyond the repetitions within a boot)\n",
                           view.betweenBootCv * 100);
    }
    if (view.bootsNeeded) {
        writeWrapped(out, fmt::format("more boots needed: {} ({})",
                                      *view.bootsNeeded == 0 ? std::string("none") : std::to_string(*view.bootsNeeded),
                                      view.bootsNeededFrom));
    }
    for (const auto& d : view.differences) {
        writeWrapped(out, "difference besides the kernel: " + d);
    }
    for (const auto& w : view.warnings) {
        writeWrapped(out, "warning: " + w);
    }
}

void writeCampaignReport(const CampaignView& view, std::ostream& out)
{
    const auto& c = *view.campaign;
    out << "noisefloor campaign " << c.plan.name << " (created " << c.createdAt << ")\n\nkernels:\n";
    for (std::size_t i = 0; i < c.plan.kernels.size(); ++i) {
        const auto& k = c.plan.kernels[i];
        out << fmt::format("  {:<10} build id {}{}{}\n", k.name, k.buildId, k.image.empty() ? "" : ", from " + k.image,
                           i == 0 ? " (baseline)" : "");
    }
    out << fmt::format("\nplan: {} boots{}, {} order; after each boot:\n", c.plan.bootsPlanned,
                       c.plan.untilDecided ? " at most, until decided" : "", toString(c.plan.order));
    for (std::size_t s = 0; s < c.plan.steps.size(); ++s) {
        std::string command = "noisefloor";
        for (const auto& arg : c.plan.steps[s]) {
            command += " " + shellQuote(arg);
        }
        for (const auto& line : commandLines(fmt::format("  {}. $ ", s + 1), command, 72)) {
            out << line << '\n';
        }
    }
    out << "\nboots in order:\n";
    writeBoots(view, out);
    out << '\n';
    writeWrapped(out, verdictLine(view));
    if (view.done) {
        out << "done: " << view.doneReason << '\n';
    }
    if (std::isfinite(view.betweenBootCv)) {
        out << fmt::format("between-boot spread: {:.2f}% of the mean\n", view.betweenBootCv * 100);
    }
    if (view.bootsNeeded) {
        writeWrapped(out, fmt::format("more boots needed: {} ({})", *view.bootsNeeded, view.bootsNeededFrom));
    }
    if (view.codeSize) {
        writeWrapped(out, codeSizeLine(*view.codeSize, c.plan.kernels[1].name));
    }
    out << "\ndifferences between the kernels' boots besides the kernel:\n";
    if (view.differences.empty()) {
        out << "  none in the command line, .config, mitigations or microcode\n";
    }
    for (const auto& d : view.differences) {
        writeWrapped(out, "  " + d);
    }
    for (const auto& w : view.warnings) {
        writeWrapped(out, "warning: " + w);
    }
    if (view.comparison) {
        out << "\nthe kernels' boots compared (each boot's run of step " << view.measuredStep + 1 << ")"
            << (c.plan.untilDecided ? ", a fixed comparison beside the sequential decision above, not the stopping rule"
                                    : "")
            << ":\n\n"
            << comparisonText(*view.comparison);
    }
}

}  // namespace nf::engine
