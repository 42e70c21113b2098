#include "engine/run/profile_stage.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <tuple>

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

// The `keep` names with the most samples in `totals`; the others map to kOtherSymbol.
std::set<std::string> topNames(const std::map<std::string, int>& totals, std::size_t keep)
{
    std::vector<std::pair<int, std::string>> ranked;
    ranked.reserve(totals.size());
    for (const auto& [name, n] : totals) {
        ranked.emplace_back(-n, name);
    }
    std::sort(ranked.begin(), ranked.end());
    std::set<std::string> out;
    for (std::size_t i = 0; i < ranked.size() && i < keep; ++i) {
        out.insert(ranked[i].second);
    }
    return out;
}

std::string folded(const std::vector<std::string>& leafFirst)
{
    std::string out;
    for (auto it = leafFirst.rbegin(); it != leafFirst.rend(); ++it) {
        if (!out.empty()) {
            out += ';';
        }
        out += foldedFrame(*it);
    }
    return out;
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

RepetitionProfile attributeSamples(const RepetitionResult& rep, const std::vector<NamedSample>& samples,
                                   const ProfileBounds& bounds)
{
    RepetitionProfile out;
    out.repetition = rep.index;
    std::vector<const Sample*> chunks;
    for (const auto& s : rep.samples) {
        chunks.push_back(&s);
    }
    std::sort(chunks.begin(), chunks.end(), [](const Sample* a, const Sample* b) { return a->start < b->start; });

    std::map<std::pair<std::size_t, int>, int> totals;                    // (chunk, cpu) -> samples
    std::map<std::tuple<std::size_t, int, std::string>, int> leafCounts;  // (chunk, cpu, symbol)
    std::map<std::tuple<int, int, std::string>, int> stackCounts;         // (variant, cpu, stack)
    std::map<int, std::map<std::string, int>> symbolTotals;               // cpu -> symbol -> samples
    std::map<int, std::map<std::string, int>> stackTotals;                // cpu -> stack -> samples, both variants
    for (const auto& sample : samples) {
        auto after = std::upper_bound(chunks.begin(), chunks.end(), sample.seconds,
                                      [](double t, const Sample* c) { return t < c->start; });
        if (after == chunks.begin() || sample.seconds >= (*(after - 1))->start + (*(after - 1))->duration ||
            sample.frames.empty()) {
            ++out.outside;
            continue;
        }
        const auto chunk = static_cast<std::size_t>(after - 1 - chunks.begin());
        const int variant = chunks[chunk]->variant;
        ++totals[{chunk, sample.cpu}];
        ++leafCounts[{chunk, sample.cpu, sample.frames.front()}];
        ++symbolTotals[sample.cpu][sample.frames.front()];
        const auto stack = folded(sample.frames);
        ++stackCounts[{variant, sample.cpu, stack}];
        ++stackTotals[sample.cpu][stack];
    }

    std::map<int, std::set<std::string>> keptSymbols;
    for (const auto& [cpu, names] : symbolTotals) {
        keptSymbols[cpu] = topNames(names, bounds.symbolsPerCpu);
    }
    std::map<std::string, int> symbolIndex;
    auto indexOf = [&](const std::string& name) {
        auto [it, fresh] = symbolIndex.try_emplace(name, static_cast<int>(out.symbols.size()));
        if (fresh) {
            out.symbols.push_back(name);
        }
        return it->second;
    };
    for (const auto& [key, n] : totals) {
        const Sample& c = *chunks[key.first];
        out.chunks.push_back({c.variant, c.repetition, c.index, key.second, n});
    }
    std::map<std::tuple<std::size_t, int, int>, int> merged;  // (chunk, cpu, symbol index)
    for (const auto& [key, n] : leafCounts) {
        const auto& [chunk, cpu, name] = key;
        const bool kept = keptSymbols[cpu].count(name) != 0;
        merged[{chunk, cpu, indexOf(kept ? name : kOtherSymbol)}] += n;
    }
    for (const auto& [key, n] : merged) {
        const Sample& c = *chunks[std::get<0>(key)];
        out.counts.push_back({c.variant, c.repetition, c.index, std::get<1>(key), std::get<2>(key), n});
    }
    std::map<std::tuple<int, int, std::string>, int> stacks;
    // The same stacks kept for every variant: one kept for A and summed as [other] for B would
    // look like a change.
    std::map<int, std::set<std::string>> keptStacks;
    for (const auto& [cpu, totalsOfCpu] : stackTotals) {
        keptStacks[cpu] = topNames(totalsOfCpu, bounds.stacksPerCpu);
    }
    for (const auto& [key, n] : stackCounts) {
        const auto& [variant, cpu, stack] = key;
        const auto& keep = keptStacks[cpu];
        stacks[{variant, cpu, keep.count(stack) != 0 ? stack : std::string(kOtherSymbol)}] += n;
    }
    for (const auto& [key, n] : stacks) {
        out.stacks.push_back({std::get<0>(key), rep.index, std::get<1>(key), std::get<2>(key), n});
    }
    return out;
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
