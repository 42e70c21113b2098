#include "engine/run/profile_stage.h"

#include <algorithm>
#include <charconv>

#include "engine/run/run_context.h"
#include "engine/run/scheduler.h"
#include "probes/cpu_sampler.h"
#include "probes/symbolizer.h"

namespace nf::engine {

namespace {

std::optional<int> cpuParam(const ParamSet& params, const char* name)
{
    const auto& all = params.all();
    const auto it = all.find(name);
    int cpu = -1;
    if (it == all.end()) {
        return std::nullopt;
    }
    const auto* end = it->second.data() + it->second.size();
    if (auto [p, ec] = std::from_chars(it->second.data(), end, cpu); ec != std::errc{} || p != end || cpu < 0) {
        return std::nullopt;
    }
    return cpu;
}

void addRole(std::vector<ProfileCpu>& cpus, int cpu, const std::string& role)
{
    for (auto& c : cpus) {
        if (c.cpu == cpu) {
            if (c.role.find(role) == std::string::npos) {
                c.role += "+" + role;
            }
            return;
        }
    }
    cpus.push_back({cpu, role});
}

double chunksEnd(const RepetitionResult& rep)
{
    double end = rep.end;
    for (const auto& s : rep.samples) {
        end = std::max(end, s.start + s.duration);
    }
    return end;
}

}  // namespace

std::vector<ProfileCpu> profileCpus(const PreparedExperiment& prepared)
{
    std::vector<ProfileCpu> cpus;
    if (prepared.workload->kind != WorkloadKind::Live) {
        cpus.push_back({prepared.workerCpu, "worker"});
        return cpus;
    }
    for (const auto& params : prepared.params) {
        const auto host = params.all().find("tx_host");
        if (host == params.all().end() || host->second.empty()) {  // else tx_cpu is the generator host's
            if (const auto tx = cpuParam(params, "tx_cpu")) {
                addRole(cpus, *tx, "tx");
            }
        }
        if (const auto rx = cpuParam(params, "rx_cpu")) {
            addRole(cpus, *rx, "rx");
        }
    }
    std::sort(cpus.begin(), cpus.end(), [](const ProfileCpu& a, const ProfileCpu& b) { return a.cpu < b.cpu; });
    return cpus;
}

ProfileStage::ProfileStage(probes::CpuSampler& sampler, std::vector<ProfileCpu> cpus, const RunContext& context,
                           RunObserver& observer, bool readerOnMeasured)
    : m_sampler(sampler), m_context(context), m_observer(observer), m_symbols(std::make_unique<probes::Symbolizer>())
{
    m_summary.event = sampler.event();
    m_summary.hz = sampler.hz();
    m_summary.cpus = std::move(cpus);
    m_summary.readerOnMeasured = readerOnMeasured;
}

ProfileStage::~ProfileStage() = default;

Result<void> ProfileStage::repetitionFinished(const RepetitionResult& rep)
{
    m_sampler.flush();
    auto drained = m_sampler.take();
    m_summary.lost += drained.lost;
    const std::uint64_t origin = m_context.timeOrigin();
    const double hz = m_context.tsc().hz();
    const double end = chunksEnd(rep);
    std::vector<NamedSample> now;
    std::vector<NamedSample> later;
    auto place = [&](NamedSample s) { (s.seconds < end ? now : later).push_back(std::move(s)); };
    for (auto& s : m_later) {
        place(std::move(s));
    }
    for (const auto& raw : drained.samples) {
        NamedSample s;
        s.cpu = raw.cpu;
        const auto tsc = m_sampler.tscAt(raw.timeNs);
        s.seconds = static_cast<double>(static_cast<std::int64_t>(tsc - origin)) / hz;
        s.frames.reserve(raw.chain.size());
        for (std::size_t i = 0; i < raw.chain.size(); ++i) {
            // Past the interrupted instruction the frames are return addresses: the call is the
            // instruction before (a call that ends a function would name the next one).
            const auto address = i == 0 ? raw.chain[i] : raw.chain[i] - 1;
            s.frames.push_back(m_symbols->name(static_cast<pid_t>(raw.pid), address));
        }
        place(std::move(s));
    }
    m_later = std::move(later);
    auto profile = attributeSamples(rep, now);
    m_summary.outside += profile.outside;
    for (const auto& c : profile.chunks) {
        m_summary.samples += static_cast<std::uint64_t>(c.samples);
    }
    return m_observer.profileMeasured(m_summary, profile);
}

Result<void> ProfileStage::runEnded(RunOutcome& /*outcome*/)
{
    m_sampler.disable();
    const auto rest = m_sampler.take();
    m_summary.lost += rest.lost;
    m_summary.outside += m_later.size() + rest.samples.size();
    m_summary.readerSeconds = m_sampler.readerSeconds();
    return m_observer.profileFinished(m_summary);
}

}  // namespace nf::engine
