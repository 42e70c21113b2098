#include "engine/analysis/validity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

namespace nf::engine {

namespace {

// A receiver that took this share of what was offered kept up with it.
constexpr double kKeptUpShare = 0.99;
// Receive work that left this share of its time unused had time to spare. A receiver that drops
// at its socket, overloaded, still leaves 4-9% of its 25 ms chunks unused on the 2-CPU veth testbed
// (it waits while the traffic reaches it after a switch, and for the sampler's wakeups); one the
// generator holds back leaves most of its time.
constexpr double kIdleShare = 0.10;
// A CPU in softirqs this share of the time does receive work.
constexpr double kSoftirqShare = 0.05;
// Losses below this share of what was offered are not a stage's.
constexpr double kLossShare = 0.001;

// One variant's totals over its samples, by quantity name; NaN values (not measured) are skipped.
class VariantTotals {
public:
    // Every variant's, in one pass over the run's columns.
    static std::vector<VariantTotals> ofRun(const RunData& data)
    {
        const auto& table = data.samples;
        const auto variants = table.variants();
        std::vector<VariantTotals> out(data.variantNames.size());
        std::vector<double> sums(out.size());
        std::vector<char> any(out.size());
        for (std::size_t q = 0; q < data.layout.quantities.size() && q < table.quantities(); ++q) {
            const auto column = table.column(q);
            std::fill(sums.begin(), sums.end(), 0.0);
            std::fill(any.begin(), any.end(), 0);
            for (std::size_t i = 0; i < table.size(); ++i) {
                if (variants[i] < out.size() && std::isfinite(column[i])) {
                    sums[variants[i]] += column[i];
                    any[variants[i]] = 1;
                }
            }
            for (std::size_t v = 0; v < out.size(); ++v) {
                if (any[v] != 0) {
                    out[v].m_sums[data.layout.quantities[q]] = sums[v];
                }
            }
        }
        return out;
    }

    std::optional<double> get(const std::string& name) const
    {
        const auto it = m_sums.find(name);
        return it == m_sums.end() ? std::nullopt : std::optional<double>(it->second);
    }
    double sum(const std::string& name) const { return get(name).value_or(0); }
    // The summed totals of every quantity whose name passes `keep`.
    template <class Keep>
    double sumWhere(Keep keep) const
    {
        double total = 0;
        for (const auto& [name, value] : m_sums) {
            total += keep(name) ? value : 0;
        }
        return total;
    }

private:
    std::map<std::string, double> m_sums;
};

double paramNumber(const nlohmann::json& params, const char* name, double missing)
{
    if (!params.is_object() || !params.contains(name)) {
        return missing;
    }
    const auto& v = params.at(name);
    if (v.is_number()) {
        return v.get<double>();
    }
    try {
        return v.is_string() ? std::stod(v.get<std::string>()) : missing;
    } catch (const std::exception&) {
        return missing;
    }
}

// The local CPU of the generator; -1 when it runs on another host (tx_host=).
int generatorCpu(const nlohmann::json& params)
{
    const bool remote = params.is_object() && params.contains("tx_host") && params.at("tx_host").is_string() &&
                        !params.at("tx_host").get<std::string>().empty();
    return remote ? -1 : static_cast<int>(paramNumber(params, "tx_cpu", -1));
}

// Where one counted CPU's time went during a variant's chunks, as shares of the chunks' time, and
// how much of it the receive work there could have used and did not (`spare`, NaN when it does no
// receive work): for the application's CPU, the time its thread did not run (a receiver that
// blocks) or the share of its passes that found the ring empty (one that spins); for a CPU in
// receive softirqs that is not the generator's, its idle time. Other tasks' work (a build beside
// the run) is not spare time a receiver left: the CPU's own idle share is only the last resort.
struct CpuWork {
    int cpu = -1;
    double task = 0;
    double softirq = 0;
    double idle = 0;
    double spare = std::nan("");
    std::string spareText;  // "its receiver thread ran 2% of the time"
    std::string role;       // "the generator", "the application", "receive softirqs", joined
};

// The application thread's spare share, from what the run stored for it.
std::pair<double, std::string> applicationSpare(const VariantTotals& totals, double elapsed, double idle)
{
    const auto polls = totals.get(quantity::kAppPolls);
    if (polls && *polls > 0) {
        const double empty = totals.sum(quantity::kAppEmptyPolls) / *polls;
        return {empty, fmt::format("{:.0f}% of its passes found the ring empty", 100 * empty)};
    }
    const auto ran = totals.get(std::string(quantity::kThreadPrefix) + "task-clock");
    if (ran && elapsed > 0) {
        // Time it waited for the CPU, runnable, was not time it could have used.
        const auto waited = totals.get(quantity::kThreadRunDelay);
        const double busy = std::min(1.0, (*ran + waited.value_or(0)) / elapsed);
        return {1 - busy, waited ? fmt::format("its receiver thread ran {:.0f}% and waited for the CPU {:.0f}% of "
                                               "the time",
                                               100 * *ran / elapsed, 100 * *waited / elapsed)
                                 : fmt::format("its receiver thread ran {:.0f}% of the time", 100 * busy)};
    }
    return {idle, fmt::format("idle {:.0f}%", 100 * idle)};
}

std::vector<CpuWork> cpuWork(const RunData& data, const VariantTotals& totals, const nlohmann::json& params)
{
    std::set<int> cpus;
    for (const auto& q : data.layout.quantities) {
        if (const int cpu = breakdownCpu(q); cpu >= 0 && q.find("_time_idle") != std::string::npos) {
            cpus.insert(cpu);
        }
    }
    const double elapsed = totals.sum(quantity::kElapsedNs);
    const int rxCpu = static_cast<int>(paramNumber(params, "rx_cpu", -1));
    const int txCpu = generatorCpu(params);
    std::vector<CpuWork> out;
    for (int cpu : cpus) {
        const std::string prefix = "cpu" + std::to_string(cpu) + "_time_";
        if (!(elapsed > 0) || !totals.get(prefix + "idle")) {
            continue;
        }
        CpuWork w;
        w.cpu = cpu;
        w.task = totals.sum(prefix + "task") / elapsed;
        w.softirq = totals.sum(prefix + "softirq") / elapsed;
        w.idle = totals.sum(prefix + "idle") / elapsed;
        std::vector<std::string> roles;
        if (cpu == txCpu) {
            roles.emplace_back("the generator");
        }
        if (w.softirq >= kSoftirqShare) {
            roles.emplace_back("receive softirqs");
        }
        if (cpu == rxCpu) {
            roles.emplace_back("the application");
            std::tie(w.spare, w.spareText) = applicationSpare(totals, elapsed, w.idle);
        } else if (cpu != txCpu && w.softirq >= kSoftirqShare) {
            w.spare = w.idle;
            w.spareText = fmt::format("idle {:.0f}%", 100 * w.idle);
        }
        w.role = roles.empty() ? "other work" : fmt::format("{}", fmt::join(roles, " and "));
        out.push_back(std::move(w));
    }
    return out;
}

// The CPUs doing a variant's receive work that had time to spare.
std::vector<const CpuWork*> spareOf(const std::vector<CpuWork>& work)
{
    std::vector<const CpuWork*> out;
    for (const auto& w : work) {
        if (w.spare >= kIdleShare) {
            out.push_back(&w);
        }
    }
    return out;
}

std::string describe(const CpuWork& w)
{
    return fmt::format("CPU {} ({}: {}tasks {:.0f}%, softirqs {:.0f}%, idle {:.0f}%)", w.cpu, w.role,
                       w.spareText.empty() ? std::string() : w.spareText + "; ", 100 * w.task, 100 * w.softirq,
                       100 * w.idle);
}

// In a reason: the CPU, its role and the time its receive work left unused.
std::string describeSpare(const CpuWork& w)
{
    return fmt::format("CPU {} ({}: {})", w.cpu, w.role, w.spareText);
}

std::string describeAll(const std::vector<const CpuWork*>& cpus)
{
    std::vector<std::string> each;
    each.reserve(cpus.size());
    for (const auto* w : cpus) {
        each.push_back(describeSpare(*w));
    }
    return fmt::format("{}", fmt::join(each, ", "));
}

void cpuRules(const std::string& name, const nlohmann::json& params, const VariantTotals& totals,
              const std::vector<CpuWork>& work, RunValidity& out)
{
    if (work.empty()) {
        return;
    }
    // Only a CPU whose receive work was judged (the application's, a softirq CPU not the
    // generator's) lets the rules below replace the received-share warning.
    out.cpuTimeKnown = out.cpuTimeKnown ||
                       std::any_of(work.begin(), work.end(), [](const CpuWork& w) { return std::isfinite(w.spare); });
    std::vector<std::string> each;
    each.reserve(work.size());
    for (const auto& w : work) {
        each.push_back(describe(w));
    }
    out.cpuWork.push_back(fmt::format("{}: {}", name, fmt::join(each, ", ")));
    const auto idle = spareOf(work);
    if (idle.empty()) {
        return;
    }
    const double offered = totals.sum(quantity::kOfferedPackets);
    const double received = totals.sum(quantity::kPackets);
    if (offered > 0 && received / offered >= kKeptUpShare) {
        out.reasons.push_back(
            {ValidityCode::GeneratorBound,
             fmt::format("generator-bound: {} received {:.1f}% of the packets offered while {} had time to spare: "
                         "the rate is the generator's, not the receiver's",
                         name, 100 * received / offered, describeAll(idle)),
             {name},
             true});
    }
    // A test whose traffic comes from outside (iface-rx, no generator of its own) sets no rate.
    if (offered > 0 && !(paramNumber(params, "rate", 0) > 0)) {
        out.reasons.push_back(
            {ValidityCode::RxNotSaturated,
             fmt::format("receive CPU not saturated: in a max-rate test {} had time to spare in {}'s chunks; a valid "
                         "test keeps the receiving CPU busy all the time (offer more, or receive on fewer CPUs)",
                         describeAll(idle), name),
             {name},
             true});
    }
}

bool contains(const std::string& name, const char* part)
{
    return name.find(part) != std::string::npos;
}

void lossRules(const std::string& name, const VariantTotals& totals, const std::vector<CpuWork>& work, RunValidity& out)
{
    // A test without a generator of the tool's own (iface-rx) has no offer to lose and no stage of
    // its own: its drops are the device's, which the receive path may well be meant to measure.
    if (!totals.get(quantity::kOfferedPackets)) {
        return;
    }
    const bool xsk = totals.get(quantity::kXskRxRingFull).has_value();
    // The stage the test measures: the AF_XDP socket's rings (xdp-rx), the UDP socket (udp-rx).
    const double atStage =
        xsk ? totals.sum(quantity::kXskRxRingFull) + totals.sum(quantity::kXskRxDropped) : totals.sum(quantity::kDrops);
    const char* stage = xsk ? "the AF_XDP socket's rings" : "the socket";
    std::vector<std::pair<std::string, double>> elsewhere;
    elsewhere.emplace_back("the backlog (softnet dropped)", totals.sumWhere([](const std::string& q) {
        return breakdownCpu(q) >= 0 && contains(q, "_softnet_dropped");
    }));
    if (xsk) {
        // xdp-rx's drops count the socket's in skb mode, and veth counts a redirect into a full ring
        // in native mode: what is left is the device's own.
        elsewhere.emplace_back("the device", std::max(0.0, totals.sum(quantity::kDrops) - atStage));
    } else {
        elsewhere.emplace_back("the device", totals.sumWhere([](const std::string& q) {
            return q.rfind(quantity::kDevicePrefix, 0) == 0 && contains(q, "drop");
        }));
    }
    double lost = atStage;
    for (const auto& [where, n] : elsewhere) {
        lost += n;
    }
    const double offered = std::max(totals.sum(quantity::kOfferedPackets), totals.sum(quantity::kPackets) + lost);
    if (!(offered > 0)) {
        return;
    }
    std::vector<std::string> found;
    for (const auto& [where, n] : elsewhere) {
        if (n / offered >= kLossShare) {
            found.push_back(fmt::format("{:.2f}% at {}", 100 * n / offered, where));
        }
    }
    if (!found.empty()) {
        out.reasons.push_back({ValidityCode::LossElsewhere,
                               fmt::format("losses outside {}: {} lost {} of the packets offered; the rate and the "
                                           "cost per packet are then another stage's",
                                           stage, name, fmt::join(found, ", ")),
                               {name},
                               false});
    }
    const auto idle = spareOf(work);
    if (atStage / offered >= kLossShare && !idle.empty()) {
        out.reasons.push_back({ValidityCode::LossElsewhere,
                               fmt::format("losses not the receiver's: {} lost {:.2f}% at {} while {} had time to "
                                           "spare: a buffer or ring too small lost them, not a receiver too slow",
                                           name, 100 * atStage / offered, stage, describeAll(idle)),
                               {name},
                               false});
    }
}

// Every setting that changed from its first reading, with the repetition it was read in.
void driftRule(const RunData& data, RunValidity& out)
{
    std::map<std::string, std::string> first;
    std::vector<std::string> changes;
    std::set<std::string> changed;
    for (const auto& [repetition, state] : data.testedStates) {
        for (const char* when : {"before", "after"}) {
            if (!state.contains(when) || !state.at(when).is_object()) {
                continue;
            }
            for (const auto& [setting, value] : state.at(when).items()) {
                if (!value.is_string() || value.get<std::string>() == "unavailable") {
                    continue;
                }
                const auto text = value.get<std::string>();
                const auto [it, inserted] = first.emplace(setting, text);
                if (!inserted && it->second != text && changed.insert(setting).second) {
                    changes.push_back(fmt::format("{} went from {} to {} (read {} repetition {})", setting, it->second,
                                                  text, when, repetition + 1));
                }
            }
        }
    }
    if (!changes.empty()) {
        out.reasons.push_back(
            {ValidityCode::StateDrift,
             fmt::format("state drift: {}; the variants did not run on the same system", fmt::join(changes, "; ")),
             {},
             false});
    }
}

}  // namespace

std::string_view toString(ValidityCode code)
{
    switch (code) {
        case ValidityCode::GeneratorBound: return "generator_bound";
        case ValidityCode::RxNotSaturated: return "rx_not_saturated";
        case ValidityCode::LossElsewhere: return "loss_elsewhere";
        case ValidityCode::StateDrift: return "state_drift";
    }
    return "state_drift";
}

bool isRateMetric(const MetricSpec& metric)
{
    return metric.denominator == quantity::kElapsedNs &&
           (metric.numerator == quantity::kPackets || metric.numerator == quantity::kBytes);
}

RunValidity assessValidity(const RunData& data, const std::vector<nlohmann::json>& variantParams)
{
    RunValidity out;
    if (data.layout.quantityIndex(quantity::kPackets) < 0 || data.layout.quantityIndex(quantity::kElapsedNs) < 0) {
        return out;
    }
    const auto totals = VariantTotals::ofRun(data);
    for (std::size_t v = 0; v < data.variantNames.size(); ++v) {
        const auto params = v < variantParams.size() ? variantParams[v] : nlohmann::json::object();
        const auto work = cpuWork(data, totals[v], params);
        cpuRules(data.variantNames[v], params, totals[v], work, out);
        lossRules(data.variantNames[v], totals[v], work, out);
    }
    driftRule(data, out);
    // Generator-bound first: it says what the others follow from.
    std::stable_sort(out.reasons.begin(), out.reasons.end(),
                     [](const ValidityReason& a, const ValidityReason& b) { return a.code < b.code; });
    return out;
}

}  // namespace nf::engine
