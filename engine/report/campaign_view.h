#pragma once
// Where a campaign stands, as `campaign status` and `campaign report` print it: each boot with
// the value it measured, the verdict with the boot as the unit (the comparison of the two kernels'
// boots, engine/analysis/across_runs.h, or the sequential look of engine/analysis/boot_sequence.h
// when the campaign runs until decided), the spread between boots, how many more boots the answer
// needs, and what differed between the kernels' boots besides the kernel.

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/analysis/boot_sequence.h"
#include "engine/model/campaign.h"
#include "engine/model/code_size.h"
#include "engine/model/noise_floor.h"
#include "engine/model/run_record.h"
#include "engine/report/comparison_report.h"

namespace nf::engine {

struct CampaignBootValue {
    const CampaignBoot* boot = nullptr;
    std::string label;  // the label its runs were stored under
    // The campaign's metric over the measured step's run: its mean, and the repetitions it is over;
    // NaN and 0 when the boot did not finish or its run lacks the metric.
    double mean = std::numeric_limits<double>::quiet_NaN();
    std::size_t repetitions = 0;
    std::int64_t runId = 0;  // the measured step's run, 0 when none
};

struct CampaignView {
    const Campaign* campaign = nullptr;
    std::string metric;  // the metric decided on
    std::string unit;    // its unit
    int measuredStep = -1;
    std::vector<CampaignBootValue> boots;  // every boot, in the order they began
    int bootsDone = 0;                     // complete boots
    bool done = false;
    std::string doneReason;  // "all 8 planned boots are done", "decided: different after 6 pairs"
    // The fixed comparison of the kernels' complete boots (at least two per kernel), boots the unit.
    std::optional<ComparisonReport> comparison;
    std::vector<std::size_t> kernelBoots;  // the boots each kernel's side of `comparison` holds
    std::optional<BootLook> sequential;    // --until decided: the look after the complete pairs
    double betweenBootCv = std::numeric_limits<double>::quiet_NaN();  // SD of boot means / mean, beyond within-boot
    std::optional<int> bootsNeeded;        // more boots (both kernels) for the answer; unset when unknown
    std::string bootsNeededFrom;           // what that figure rests on
    std::vector<std::string> differences;  // facts besides the kernel that differ between the kernels' boots
    std::vector<std::string> warnings;
    // The candidate's code size against the baseline's (noisefloor size, import bloat-o-meter),
    // stored under the candidate's label or its kernel's name; set by the caller, which reads the store.
    std::optional<CodeSizeRecord> codeSize;

    // The comparison of the campaign's metric in `comparison`; null before each kernel has two boots.
    const Comparison* primaryComparison() const;
};

// The values of `metric` over the repetitions of a run's first variant (preempted chunks left out, as
// every repetition mean), finite ones only; empty when the run lacks the metric.
std::vector<double> finiteMetricValues(const RunRecord& run, const std::string& metric);

// `runs`: every run the campaign's boots stored, by id (the view points into them and into
// `campaign`); `floors`: the machine's run-to-run noise floors (calibrate --across-runs) by metric,
// which size the campaign before each kernel has two boots.
Result<CampaignView> viewCampaign(const Campaign& campaign, const std::map<std::int64_t, RunRecord>& runs,
                                  const std::map<std::string, RunNoiseFloor>& floors, const AnalysisOptions& options);

// Everything status says, for scripts: next_kernel and next_build_id (null when the campaign is
// done), boots_done, boots_planned, the verdict, every boot.
nlohmann::json campaignStatusJson(const CampaignView& view);
void writeCampaignStatus(const CampaignView& view, std::ostream& out);
// The mail-ready evidence: kernels with their full build ids, the boots in order, the verdict with
// boots as the unit, and the differences between the kernels' boots.
void writeCampaignReport(const CampaignView& view, std::ostream& out);

}  // namespace nf::engine
