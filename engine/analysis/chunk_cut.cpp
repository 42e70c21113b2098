#include "engine/analysis/chunk_cut.h"

#include <span>

#include "engine/stats/descriptive.h"

namespace nf::engine {

// Which chunks to leave out of the pairs and the repetition values: those the measuring thread did
// not run through. Either
// it was switched out (its context-switches count is above zero) or the whole CPU stalled (the
// chunk took more than 1.5 times its variant's median chunk: a hypervisor that deschedules the
// vCPU leaves no trace in the guest's counters). Chunks are calibrated to one length per variant,
// so the cut is the same relative to every variant's own speed. When any variant would lose more
// than 90% of its chunks (a variant that blocks by design, a machine too busy to measure on),
// every chunk is kept and the report says so.
ChunkCut preemptedChunks(const RunTable& table, int contextSwitches, std::size_t nv)
{
    ChunkCut out{std::vector<bool>(table.size(), false), 0, 0, false, {}, {}};
    const auto q = static_cast<std::size_t>(contextSwitches);
    const auto switches = contextSwitches >= 0 && q < table.quantities() ? table.column(q) : std::span<const double>();
    const auto variants = table.variants();
    const auto pairs = table.pairs();
    const auto durations = table.durations();
    std::vector<std::size_t> chunks(nv, 0);
    for (std::size_t i = 0; i < table.size(); ++i) {
        chunks.at(variants[i]) += pairs[i] >= 0 ? 1 : 0;
    }
    std::vector<double> limit(nv, 0);
    for (std::size_t v = 0; v < nv; ++v) {
        std::vector<double> chunkDurations;
        chunkDurations.reserve(chunks[v]);
        for (std::size_t i = 0; i < table.size(); ++i) {
            if (pairs[i] >= 0 && variants[i] == v) {
                chunkDurations.push_back(durations[i]);
            }
        }
        limit[v] = chunkDurations.empty() ? 0 : 1.5 * median(std::move(chunkDurations));
    }
    std::vector<std::size_t> hit(nv, 0);
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (pairs[i] < 0) {
            continue;
        }
        const std::size_t v = variants[i];
        const bool switched = !switches.empty() && switches[i] > 0;
        if (switched || durations[i] > limit[v]) {
            out.leftOut[i] = true;
            ++hit[v];
        }
    }
    for (std::size_t v = 0; v < nv; ++v) {
        out.chunks += chunks[v];
        out.hit += hit[v];
        if (10 * hit[v] > 9 * chunks[v]) {
            out.keptAll = true;
        }
    }
    if (out.keptAll) {
        std::fill(out.leftOut.begin(), out.leftOut.end(), false);
    }
    out.chunksOf = std::move(chunks);
    out.hitOf = std::move(hit);
    return out;
}

ChunkCut chunkCut(const RunData& data)
{
    return preemptedChunks(data.samples, data.layout.quantityIndex("context-switches"), data.variantNames.size());
}

std::vector<double> repetitionValues(const RunData& data, const ChunkCut& cut, int variant, const MetricSpec& metric)
{
    return data.repetitionValues(variant, metric, cut.leftOut);
}

}  // namespace nf::engine
