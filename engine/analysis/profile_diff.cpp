#include "engine/analysis/profile_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "engine/model/metric.h"
#include "engine/stats/descriptive.h"
#include "engine/stats/hypothesis_tests.h"
#include "engine/stats/power.h"

namespace nf::engine {

namespace {

// A unit's key: (repetition, pair) for chunk pairs, (repetition, -1) for repetitions, (baseline's
// placement, candidate's placement) for placement cells, (setup, -2) for setups.
using Unit = std::pair<int, int>;
using ChunkKey = std::tuple<int, int, int>;  // variant, repetition, index

struct CpuCounts {
    std::map<Unit, double> totals[2];                  // baseline, candidate
    std::map<int, std::map<Unit, double>> symbols[2];  // symbol -> unit -> samples
    std::map<int, double> symbolTotal[2];              // symbol -> samples
};

double nsPerOp(const RunData& data, int variant)
{
    for (const auto& metric : data.layout.metrics) {
        if (metric.name == "ns_per_op" || metric.name == "pps") {
            const auto values = data.repetitionValues(variant, metric, {});
            if (values.empty()) {
                return std::nan("");
            }
            const double m = mean(values);
            return metric.name == "ns_per_op" ? m : (m > 0 ? 1e9 / m : std::nan(""));
        }
    }
    return std::nan("");
}

// One symbol's counts in one unit of each variant: in the symbol, and on the CPU in all.
struct UnitCounts {
    double base = 0;
    double baseTotal = 0;
    double cand = 0;
    double candTotal = 0;
};

double countAt(const std::map<int, std::map<Unit, double>>& symbols, int symbol, const Unit& unit)
{
    const auto s = symbols.find(symbol);
    if (s == symbols.end()) {
        return 0;
    }
    const auto it = s->second.find(unit);
    return it == s->second.end() ? 0 : it->second;
}

// The shares are ratios of sums over the units both variants have samples in; their difference's
// standard error is the ratio estimator's (linearised per unit, paired), floored at the multinomial
// sampling error of the pooled share, below which no real profile varies: a symbol sampled a few
// times in every unit would otherwise give near-identical unit values and a spurious tiny error.
ProfileRow compareSymbol(const CpuCounts& counts, int symbol, double alpha)
{
    std::vector<UnitCounts> units;
    for (const auto& [unit, baseTotal] : counts.totals[0]) {
        const auto other = counts.totals[1].find(unit);
        if (baseTotal > 0 && other != counts.totals[1].end() && other->second > 0) {
            units.push_back({countAt(counts.symbols[0], symbol, unit), baseTotal,
                             countAt(counts.symbols[1], symbol, unit), other->second});
        }
    }
    ProfileRow row;
    row.units = units.size();
    row.lowPp = row.highPp = row.p = std::nan("");
    if (units.empty()) {
        row.baselineSharePct = row.candidateSharePct = row.deltaPp = std::nan("");
        return row;
    }
    UnitCounts sum;
    for (const auto& u : units) {
        sum.base += u.base;
        sum.baseTotal += u.baseTotal;
        sum.cand += u.cand;
        sum.candTotal += u.candTotal;
    }
    const double rBase = sum.base / sum.baseTotal;
    const double rCand = sum.cand / sum.candTotal;
    row.baselineSharePct = 100 * rBase;
    row.candidateSharePct = 100 * rCand;
    row.deltaPp = row.candidateSharePct - row.baselineSharePct;
    if (units.size() < 2) {
        return row;
    }
    const auto n = static_cast<double>(units.size());
    const double baseMean = sum.baseTotal / n;
    const double candMean = sum.candTotal / n;
    double squares = 0;
    for (const auto& u : units) {
        const double z = (u.cand - rCand * u.candTotal) / candMean - (u.base - rBase * u.baseTotal) / baseMean;
        squares += z * z;
    }
    const double linearised = squares / (n * (n - 1));
    const double pooled = (sum.base + sum.cand) / (sum.baseTotal + sum.candTotal);
    const double sampling = pooled * (1 - pooled) * (1 / sum.baseTotal + 1 / sum.candTotal);
    const double se = 100 * std::sqrt(std::max(linearised, sampling));
    if (!(se > 0)) {  // never or always in the symbol, in both
        row.p = row.deltaPp == 0 ? 1.0 : 0.0;
        row.lowPp = row.highPp = row.deltaPp;
        return row;
    }
    const double half = stats::tQuantile(1 - alpha / 2, n - 1) * se;
    row.lowPp = row.deltaPp - half;
    row.highPp = row.deltaPp + half;
    row.p = stats::twoSidedT(row.deltaPp / se, n - 1);
    return row;
}

// The setup of each chunk of a live run side by side, numbered per variant in round order: a new
// one where the repetition or the variant's place changes (as engine/analysis/analysis_input does
// for the verdict's setups).
std::map<ChunkKey, int> setupsOf(const RunData& data)
{
    std::map<ChunkKey, int> out;
    const int place = data.layout.quantityIndex(quantity::kPlace);
    const RunTable& table = data.samples;
    if (place < 0 || static_cast<std::size_t>(place) >= table.quantities()) {
        return out;
    }
    std::map<int, std::vector<std::tuple<int, int, double, int>>> rows;  // variant -> (rep, pair, place, index)
    for (std::size_t row = 0; row < table.size(); ++row) {
        const double at = table.value(row, static_cast<std::size_t>(place));
        if (std::isfinite(at)) {
            rows[table.variant(row)].emplace_back(table.repetition(row), table.pair(row), at, table.index(row));
        }
    }
    for (auto& [variant, list] : rows) {
        std::sort(list.begin(), list.end());
        int setup = -1;
        std::pair<int, double> last{-1, std::nan("")};
        for (const auto& [rep, pair, at, index] : list) {
            if (setup < 0 || std::pair{rep, at} != last) {
                ++setup;
                last = {rep, at};
            }
            out[{variant, rep, index}] = setup;
        }
    }
    return out;
}

// Each chunk's unit in the design asked for, and the unit's name.
std::pair<std::map<ChunkKey, Unit>, std::string> unitsOf(const RunData& data, int baseline, int candidate,
                                                         const std::optional<Design>& design)
{
    std::map<ChunkKey, Unit> unitOf;
    const auto& table = data.samples;
    bool paired = false;
    for (std::size_t row = 0; row < table.size(); ++row) {
        const int pair = table.pair(row);
        paired = paired || pair >= 0;
        unitOf[{table.variant(row), table.repetition(row), table.index(row)}] = {table.repetition(row), pair};
    }
    if (design == Design::Layouts && !data.layouts.empty()) {
        for (auto& [key, unit] : unitOf) {
            const int rep = std::get<1>(key);
            unit = {data.layoutOf(baseline, rep), data.layoutOf(candidate, rep)};
        }
        return {unitOf, "placement cell"};
    }
    if (design == Design::Setups) {
        const auto setups = setupsOf(data);
        if (!setups.empty()) {
            for (auto& [key, unit] : unitOf) {
                const auto it = setups.find(key);
                unit = {it == setups.end() ? -1 : it->second, -2};
            }
            return {unitOf, "setup"};
        }
    }
    return {unitOf, paired ? "chunk pair" : "repetition"};
}

}  // namespace

ProfileComparison compareProfiles(const RunData& data, int baseline, int candidate, const ProfileOptions& options)
{
    ProfileComparison out;
    out.baseline = data.variantNames.at(static_cast<std::size_t>(baseline));
    out.candidate = data.variantNames.at(static_cast<std::size_t>(candidate));
    if (!data.profile) {
        return out;
    }
    const RunProfile& profile = *data.profile;
    out.event = profile.summary.event;
    auto [unitOf, unitName] = unitsOf(data, baseline, candidate, options.design);
    out.unit = unitName;
    const auto sideOf = [&](int variant) { return variant == baseline ? 0 : variant == candidate ? 1 : -1; };
    std::map<int, CpuCounts> cpus;
    for (const auto& c : profile.chunks) {
        const int side = sideOf(c.variant);
        const auto unit = unitOf.find({c.variant, c.repetition, c.index});
        if (side >= 0 && unit != unitOf.end()) {
            cpus[c.cpu].totals[side][unit->second] += c.samples;
        }
    }
    for (const auto& c : profile.counts) {
        const int side = sideOf(c.variant);
        const auto unit = unitOf.find({c.variant, c.repetition, c.index});
        if (side >= 0 && unit != unitOf.end()) {
            auto& counts = cpus[c.cpu];
            counts.symbols[side][c.symbol][unit->second] += c.samples;
            counts.symbolTotal[side][c.symbol] += c.samples;
        }
    }
    const double baseNs = nsPerOp(data, baseline);
    const double candNs = nsPerOp(data, candidate);
    for (const auto& [cpu, counts] : cpus) {
        std::map<int, double> both;
        for (const int side : {0, 1}) {
            for (const auto& [symbol, n] : counts.symbolTotal[side]) {
                both[symbol] += n;
            }
        }
        std::vector<std::pair<double, int>> ranked;
        ranked.reserve(both.size());
        for (const auto& [symbol, n] : both) {
            ranked.emplace_back(-n, symbol);
        }
        std::sort(ranked.begin(), ranked.end());
        ranked.resize(std::min(ranked.size(), options.symbolsPerCpu));
        for (const auto& [negative, symbol] : ranked) {
            if (profile.symbols.at(static_cast<std::size_t>(symbol)) == kOtherSymbol) {
                continue;  // a sum of whatever each repetition did not keep: not one function
            }
            auto row = compareSymbol(counts, symbol, options.alpha);
            row.symbol = profile.symbols.at(static_cast<std::size_t>(symbol));
            row.cpu = cpu;
            row.role = profile.roleOf(cpu);
            row.baselineNsPerOp = row.baselineSharePct / 100 * baseNs;
            row.candidateNsPerOp = row.candidateSharePct / 100 * candNs;
            out.rows.push_back(std::move(row));
        }
    }
    std::vector<double> p;
    for (const auto& row : out.rows) {
        p.push_back(row.p);
    }
    const auto q = stats::benjaminiHochberg(p);
    for (std::size_t i = 0; i < out.rows.size(); ++i) {
        out.rows[i].q = q[i];
    }
    std::stable_sort(out.rows.begin(), out.rows.end(), [](const ProfileRow& a, const ProfileRow& b) {
        const double qa = std::isnan(a.q) ? 2 : a.q;
        const double qb = std::isnan(b.q) ? 2 : b.q;
        return qa != qb ? qa < qb : std::fabs(a.deltaPp) > std::fabs(b.deltaPp);
    });
    return out;
}

}  // namespace nf::engine
