// A benchmark, not a test: how much the cost per call of spin, page-pool and indirect-call moves
// with the code placement alone (engine/workloads/placement.h). Each workload gets a loop in every
// placement plus a second loop in placement 0 (the "0'" row: the same code twice, the spread of no
// effect at all).
// Each round runs every loop for one slice, in a fresh random order; a loop's figure in a round is
// its ns per call over placement 0's in the same round, so drifts of the machine cancel; the
// interval is that of the median of those ratios. On a busy machine, where a slice is often
// preempted, the 10th percentile of a loop's ns per call (its unhindered slices) says more.
// Run: placement_bench [CPU] [ROUNDS] [SLICE_MS]   (defaults: 1 200 2)

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/catalog/workload_catalog.h"
#include "engine/workloads/placement.h"
#include "engine/workloads/registry.h"
#include "probes/tsc_clock.h"

namespace {

using namespace nf;
using namespace nf::engine;

double quantile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    const double at = q * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(at);
    const double f = at - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

int bench(const std::string& workload, const std::map<std::string, std::string>& layer, int rounds, double sliceMs,
          const probes::TscClock& tsc)
{
    const WorkloadDescriptor* info = findWorkload(workload);
    const WorkloadImplementation* impl = findImplementation(workloads::implementations(), workload);
    auto params = ParamSet::resolve(info->params, {&layer}, info->name);
    if (!params.ok()) {
        static_cast<void>(std::fprintf(stderr, "%s\n", params.error().message.c_str()));
        return 1;
    }
    std::vector<std::unique_ptr<CallLoop>> loops;
    std::vector<std::string> names;
    for (std::size_t l = 0; l <= impl->placements; ++l) {
        const std::size_t placement = l < impl->placements ? l : 0;
        auto loop = impl->make(*params, placement);
        if (!loop.ok()) {
            static_cast<void>(std::fprintf(stderr, "%s\n", loop.error().message.c_str()));
            return 1;
        }
        loops.push_back(std::move(*loop));
        names.push_back(l < impl->placements ? std::to_string(l) : "0'");
    }
    // Calls per slice, from placement 0's fastest of 50 short runs (the machine may be busy).
    double fastest = 1e30;
    for (int i = 0; i < 50; ++i) {
        const auto t0 = probes::readTsc();
        loops[0]->run(1000);
        fastest = std::min(fastest, tsc.toNanoseconds(probes::readTsc() - t0) / 1000);
    }
    const auto calls = static_cast<std::uint64_t>(sliceMs * 1e6 / fastest) + 1;
    std::vector<std::vector<double>> ns(loops.size());
    std::vector<std::size_t> order(loops.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::mt19937_64 rng(1);
    for (int r = 0; r < rounds; ++r) {
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t i : order) {
            const auto t0 = probes::readTsc();
            loops[i]->run(calls);
            ns[i].push_back(tsc.toSeconds(probes::readTsc() - t0) * 1e9 / static_cast<double>(calls));
        }
    }
    std::printf("%s", workload.c_str());
    for (const auto& [k, v] : layer) {
        std::printf(" %s=%s", k.c_str(), v.c_str());
    }
    std::printf(": %d rounds of %llu calls per loop\n", rounds, static_cast<unsigned long long>(calls));
    std::printf(
        "  placement  ns/call: median [IQR]          vs 0 in the same round: median [95%% CI]"
        "   10th percentile, vs 0's\n");
    // The distribution-free interval of a median: order statistics n/2 -+ 1.96 sqrt(n)/2.
    const double half = 0.98 * std::sqrt(static_cast<double>(rounds));
    const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(rounds / 2.0 - half)));
    const auto hi = static_cast<std::size_t>(std::min(rounds - 1.0, std::ceil(rounds / 2.0 + half)));
    for (std::size_t i = 0; i < loops.size(); ++i) {
        std::vector<double> ratio;
        for (std::size_t r = 0; r < ns[i].size(); ++r) {
            ratio.push_back((ns[i][r] / ns[0][r] - 1) * 100);
        }
        std::sort(ratio.begin(), ratio.end());
        std::printf("  %-9s %8.3f [%7.3f, %7.3f]    %+6.2f%% [%+6.2f%%, %+6.2f%%]       %8.3f %+6.2f%%\n",
                    names[i].c_str(), quantile(ns[i], 0.5), quantile(ns[i], 0.25), quantile(ns[i], 0.75),
                    quantile(ratio, 0.5), ratio[lo], ratio[hi], quantile(ns[i], 0.1),
                    (quantile(ns[i], 0.1) / quantile(ns[0], 0.1) - 1) * 100);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    const int cpu = argc > 1 ? std::atoi(argv[1]) : 1;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
    const double sliceMs = argc > 3 ? std::atof(argv[3]) : 2.0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        std::perror("sched_setaffinity");
        return 1;
    }
    auto tsc = probes::TscClock::calibrate();
    if (!tsc.ok()) {
        static_cast<void>(std::fprintf(stderr, "%s\n", tsc.error().message.c_str()));
        return 1;
    }
    int status = bench("spin", {{"work", "20"}}, rounds, sliceMs, *tsc);
    status |= bench("page-pool", {{"check", "late"}}, rounds, sliceMs, *tsc);
    status |= bench("page-pool", {{"check", "early"}}, rounds, sliceMs, *tsc);
    status |= bench("indirect-call", {{"call", "indirect"}}, rounds, sliceMs, *tsc);
    return status;
}
