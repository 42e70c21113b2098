#pragma once
// A campaign: two kernels compared across boots of one machine, where a kernel patch can only be
// measured. The plan (the kernels by build id, the order of boots, the recipe of noisefloor steps
// run after each boot) and the boots as they happened. A boot counts only when its recipe finished;
// a boot that crashed, lost power or was killed half-way is kept, marked, and not counted.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nf::engine {

// The order of kernels over boots: abba (counterbalanced A B B A A B B A ..., the default: a
// linear drift cancels in every four boots), abab, or random (each pair of boots in a random
// order, so both kernels have as many boots after every second boot). Never all A then all B.
enum class BootOrder { Abba, Abab, Random };
std::string_view toString(BootOrder order);
std::optional<BootOrder> parseBootOrder(std::string_view text);

// The kernel (0 the baseline, 1 the candidate) the plan boots at `slot` (0, 1, ...).
int kernelOfSlot(BootOrder order, std::uint64_t seed, int slot);

struct CampaignKernel {
    std::string name;     // vanilla
    std::string buildId;  // lowercase hex
    std::string image;    // the file it was named by, "" when named by its id
};

struct CampaignPlan {
    std::string name;
    std::vector<CampaignKernel> kernels;  // two: baseline first
    int bootsPlanned = 0;                 // with untilDecided, the most it may take
    bool untilDecided = false;
    BootOrder order = BootOrder::Abba;
    std::uint64_t seed = 0;
    std::string metric;  // "" = the primary metric of the first step's runs
    double alpha = 0.05;
    double marginPct = 1.0;
    std::string workdir;
    std::string reboot;  // "", "kexec", "grub:ENTRIES" or "command TEXT"
    std::string commandLine;
    std::vector<std::vector<std::string>> steps;  // noisefloor arguments each
};

enum class BootStatus { Running, Complete, Interrupted, Failed };
std::string_view toString(BootStatus status);
std::optional<BootStatus> parseBootStatus(std::string_view text);

struct CampaignRun {
    int step = 0;
    std::int64_t runId = 0;
};

struct CampaignBoot {
    std::int64_t id = 0;
    int slot = 0;
    int kernel = 0;
    std::string bootId;
    nlohmann::json identity = nlohmann::json::object();  // probes::KernelIdentity as read then
    BootStatus status = BootStatus::Running;
    std::string reason;
    std::string startedAt;
    std::string endedAt;
    std::int64_t pid = 0;
    std::string pidStart;
    std::vector<CampaignRun> runs;
};

struct Campaign {
    std::int64_t id = 0;
    std::string createdAt;
    CampaignPlan plan;
    std::vector<CampaignBoot> boots;  // in the order they began

    // Boots whose recipe finished: the slots filled.
    int completeBoots() const;
    // The slot the next boot fills, and its kernel.
    int nextSlot() const { return completeBoots(); }
    int nextKernel() const { return kernelOfSlot(plan.order, plan.seed, nextSlot()); }
    // The kernel with this build id; -1 when none.
    int kernelByBuildId(const std::string& buildId) const;
};

// The label of the runs step `step` stores in a boot of `kernel`: "NAME.vanilla" for a recipe of
// one step, "NAME.vanilla.s2" for its second of several; every boot of the kernel shares it, so
// `compare --label NAME.vanilla --label NAME.patched` pools the boots (each run's boot is stored
// with it). Runs of a boot that is not counted are relabelled with kUncountedSuffix.
std::string stepLabel(const CampaignPlan& plan, int step, int kernel);
inline constexpr const char* kUncountedSuffix = ".uncounted";

}  // namespace nf::engine
