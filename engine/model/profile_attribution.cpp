#include "engine/model/profile_attribution.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace nf::engine {

namespace {

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

}  // namespace

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

}  // namespace nf::engine
