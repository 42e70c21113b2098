#include "engine/model/campaign.h"

#include <fmt/format.h>

#include <algorithm>

namespace nf::engine {
namespace {

// SplitMix64: a well-mixed 64-bit value from the seed and the pair's index.
std::uint64_t mixed(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

}  // namespace

std::string_view toString(BootOrder order)
{
    switch (order) {
        case BootOrder::Abba: return "abba";
        case BootOrder::Abab: return "abab";
        case BootOrder::Random: return "random";
    }
    return "abba";
}

std::optional<BootOrder> parseBootOrder(std::string_view text)
{
    for (auto order : {BootOrder::Abba, BootOrder::Abab, BootOrder::Random}) {
        if (text == toString(order)) {
            return order;
        }
    }
    return std::nullopt;
}

int kernelOfSlot(BootOrder order, std::uint64_t seed, int slot)
{
    switch (order) {
        case BootOrder::Abab: return slot % 2;
        case BootOrder::Abba: return (slot % 4 == 0 || slot % 4 == 3) ? 0 : 1;
        case BootOrder::Random: {
            const int first = static_cast<int>(mixed(seed ^ mixed(static_cast<std::uint64_t>(slot / 2))) & 1U);
            return slot % 2 == 0 ? first : 1 - first;
        }
    }
    return 0;
}

std::string_view toString(BootStatus status)
{
    switch (status) {
        case BootStatus::Running: return "running";
        case BootStatus::Complete: return "complete";
        case BootStatus::Interrupted: return "interrupted";
        case BootStatus::Failed: return "failed";
    }
    return "running";
}

std::optional<BootStatus> parseBootStatus(std::string_view text)
{
    for (auto status : {BootStatus::Running, BootStatus::Complete, BootStatus::Interrupted, BootStatus::Failed}) {
        if (text == toString(status)) {
            return status;
        }
    }
    return std::nullopt;
}

int Campaign::completeBoots() const
{
    return static_cast<int>(std::count_if(boots.begin(), boots.end(),
                                          [](const CampaignBoot& b) { return b.status == BootStatus::Complete; }));
}

int Campaign::kernelByBuildId(const std::string& buildId) const
{
    for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
        if (plan.kernels[k].buildId == buildId) {
            return static_cast<int>(k);
        }
    }
    return -1;
}

std::string stepLabel(const CampaignPlan& plan, int step, int kernel)
{
    const std::string& name = plan.kernels.at(static_cast<std::size_t>(kernel)).name;
    return plan.steps.size() == 1 ? fmt::format("{}.{}", plan.name, name)
                                  : fmt::format("{}.{}.s{}", plan.name, name, step + 1);
}

}  // namespace nf::engine
