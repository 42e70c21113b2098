#include "engine/run/cpu_claim.h"

#include <algorithm>
#include <charconv>

#include "engine/run/scheduler.h"

namespace nf::engine {

namespace {

void addCpuParam(const ParamSet& params, const char* name, std::vector<int>& out)
{
    const auto& all = params.all();
    const auto it = all.find(name);
    if (it == all.end()) {
        return;
    }
    int cpu = -1;
    const auto* end = it->second.data() + it->second.size();
    if (auto [p, ec] = std::from_chars(it->second.data(), end, cpu); ec == std::errc{} && p == end && cpu >= 0) {
        out.push_back(cpu);
    }
}

}  // namespace

std::vector<int> measuredCpus(const PreparedExperiment& prepared)
{
    std::vector<int> cpus;
    if (prepared.workload->kind == WorkloadKind::Live) {
        for (const auto& params : prepared.params) {
            const auto host = params.all().find("tx_host");
            if (host == params.all().end() || host->second.empty()) {  // else tx_cpu is the generator host's
                addCpuParam(params, "tx_cpu", cpus);
            }
            addCpuParam(params, "rx_cpu", cpus);
        }
    } else {
        cpus.push_back(prepared.workerCpu);
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

Result<CpuClaims> claimCpus(const std::vector<int>& cpus, const std::string& description, bool share,
                            const std::string& dir)
{
    CpuClaims claims;
    for (int cpu : cpus) {
        const std::string name = std::to_string(cpu);
        auto attempt = NF_TRY(OwnerLock::acquire("cpu", name, description, {{"cpu", name}}, dir)
                                  .withContext("cannot lock CPU " + name + " for this run: "));
        if (attempt.lock) {
            claims.locks.push_back(std::move(*attempt.lock));
            continue;
        }
        const std::string holder = describeOwner(*attempt.holder);
        if (!share) {
            return Error{"CPU " + name + " is measured by another run, " + holder +
                         "; wait for it, choose other CPUs, or pass --share-cpus"};
        }
        claims.warnings.push_back("CPU " + name + " shared with another run (--share-cpus): " + holder);
    }
    return claims;
}

}  // namespace nf::engine
