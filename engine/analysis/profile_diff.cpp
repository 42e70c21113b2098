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

// Benjamini-Hochberg over the rows, and the rows by q, then by the size of the change.
void qualify(std::vector<ProfileRow>& rows)
{
    std::vector<double> p;
    p.reserve(rows.size());
    for (const auto& row : rows) {
        p.push_back(row.p);
    }
    const auto q = stats::benjaminiHochberg(p);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        rows[i].q = q[i];
    }
    std::stable_sort(rows.begin(), rows.end(), [](const ProfileRow& a, const ProfileRow& b) {
        const double qa = std::isnan(a.q) ? 2 : a.q;
        const double qb = std::isnan(b.q) ? 2 : b.q;
        return qa != qb ? qa < qb : std::fabs(a.deltaPp) > std::fabs(b.deltaPp);
    });
}

// One side of a comparison across runs on one CPU role: per unit, the CPU's samples and each
// symbol's (by name: runs name their symbols each in their own list).
using RunUnit = std::pair<std::size_t, int>;  // (run, repetition); (run, -1) where the run is the unit

struct SideCounts {
    std::map<RunUnit, double> totals;
    std::map<RunUnit, double> other;  // the unit's samples summed as [other] (symbols it did not keep)
    std::map<std::string, std::map<RunUnit, double>> symbols;
    std::map<std::string, double> symbolTotal;
};

// Each side's counts per role; the unit is the run (`byRun`) or the run's repetition.
std::map<std::string, SideCounts> sideCounts(const std::vector<ProfileRun>& runs, bool byRun)
{
    std::map<std::string, SideCounts> out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const RunProfile& profile = *runs[i].data->profile;
        const auto unitOf = [&](int repetition) { return RunUnit{i, byRun ? -1 : repetition}; };
        const auto roleOf = [&](int cpu) { return roleAcrossRuns(profile, cpu); };
        for (const auto& c : profile.chunks) {
            if (c.variant == runs[i].variant) {
                const auto role = roleOf(c.cpu);
                out[role].totals[unitOf(c.repetition)] += c.samples;
            }
        }
        for (const auto& c : profile.counts) {
            if (c.variant == runs[i].variant) {
                auto& side = out[roleOf(c.cpu)];
                const auto& name = profile.symbols.at(static_cast<std::size_t>(c.symbol));
                if (name == kOtherSymbol) {
                    side.other[unitOf(c.repetition)] += c.samples;
                }
                side.symbols[name][unitOf(c.repetition)] += c.samples;
                side.symbolTotal[name] += c.samples;
            }
        }
    }
    return out;
}

// A symbol's share of one side (a ratio of sums over its units) and the variance of that share
// (the ratio estimator's, linearised; NaN below two units).
struct SideShare {
    double share = 0;
    double variance = 0;
    double samples = 0;  // the CPU's, over the units
    double inSymbol = 0;
    double units = 0;
    bool partial = false;  // not kept in a unit that summed symbols as [other]: its count there is unknown
};

SideShare sideShare(const SideCounts& side, const std::string& symbol)
{
    SideShare out;
    const auto found = side.symbols.find(symbol);
    const auto countIn = [&](const RunUnit& unit) {
        if (found == side.symbols.end()) {
            return 0.0;
        }
        const auto it = found->second.find(unit);
        return it == found->second.end() ? 0.0 : it->second;
    };
    for (const auto& [unit, total] : side.totals) {
        if (total > 0) {
            out.samples += total;
            out.inSymbol += countIn(unit);
            out.units += 1;
            const auto other = side.other.find(unit);
            const bool kept = found != side.symbols.end() && found->second.count(unit) != 0;
            out.partial = out.partial || (!kept && other != side.other.end() && other->second > 0);
        }
    }
    out.share = out.samples > 0 ? out.inSymbol / out.samples : std::nan("");
    if (out.units < 2) {
        out.variance = std::nan("");
        return out;
    }
    const double mean = out.samples / out.units;
    double squares = 0;
    for (const auto& [unit, total] : side.totals) {
        if (total > 0) {
            const double z = (countIn(unit) - out.share * total) / mean;
            squares += z * z;
        }
    }
    out.variance = squares / (out.units * (out.units - 1));
    return out;
}

ProfileRow compareSides(const SideCounts& base, const SideCounts& cand, const std::string& symbol, double alpha)
{
    const auto a = sideShare(base, symbol);
    const auto b = sideShare(cand, symbol);
    ProfileRow row;
    row.units = static_cast<std::size_t>(a.units + b.units);
    row.baselineSharePct = 100 * a.share;
    row.candidateSharePct = 100 * b.share;
    row.deltaPp = row.candidateSharePct - row.baselineSharePct;
    row.lowPp = row.highPp = row.p = std::nan("");
    row.partial = a.partial || b.partial;
    if (a.partial) {  // summed as [other] in a unit: that side's share is unknown, not 0
        row.baselineSharePct = row.deltaPp = std::nan("");
    }
    if (b.partial) {
        row.candidateSharePct = row.deltaPp = std::nan("");
    }
    if (a.units < 2 || b.units < 2 || row.partial) {
        return row;
    }
    const double v = a.variance + b.variance;
    const double pooled = (a.inSymbol + b.inSymbol) / (a.samples + b.samples);
    const double sampling = pooled * (1 - pooled) * (1 / a.samples + 1 / b.samples);
    const double se = 100 * std::sqrt(std::max(v, sampling));
    if (!(se > 0)) {
        row.p = row.deltaPp == 0 ? 1.0 : 0.0;
        row.lowPp = row.highPp = row.deltaPp;
        return row;
    }
    // Welch-Satterthwaite; where the sampling floor holds the degrees of freedom of both sides.
    const double df = v >= sampling && v > 0
                          ? v * v / (a.variance * a.variance / (a.units - 1) + b.variance * b.variance / (b.units - 1))
                          : a.units + b.units - 2;
    const double half = stats::tQuantile(1 - alpha / 2, df) * se;
    row.lowPp = row.deltaPp - half;
    row.highPp = row.deltaPp + half;
    row.p = stats::twoSidedT(row.deltaPp / se, df);
    return row;
}

// The mean time per operation of a side's runs (nsPerOp of each), NaN where none has one.
double sideNsPerOp(const std::vector<ProfileRun>& runs)
{
    std::vector<double> values;
    for (const auto& r : runs) {
        const double ns = nsPerOp(*r.data, r.variant);
        if (std::isfinite(ns)) {
            values.push_back(ns);
        }
    }
    return values.empty() ? std::nan("") : mean(values);
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
    qualify(out.rows);
    return out;
}

std::string roleAcrossRuns(const RunProfile& profile, int cpu)
{
    return cpu < 0 ? std::string("pooled") : profile.roleOf(cpu);
}

ProfileComparison compareProfilesAcross(const std::string& baseline, const std::vector<ProfileRun>& base,
                                        const std::string& candidate, const std::vector<ProfileRun>& cand,
                                        const ProfileOptions& options)
{
    ProfileComparison out;
    out.baseline = baseline;
    out.candidate = candidate;
    if (base.empty() || cand.empty()) {
        return out;
    }
    const bool byRun = base.size() > 1 && cand.size() > 1;
    out.unit = byRun ? "run" : "repetition";
    const auto baseCounts = sideCounts(base, byRun);
    const auto candCounts = sideCounts(cand, byRun);
    const double baseNs = sideNsPerOp(base);
    const double candNs = sideNsPerOp(cand);
    for (const auto& [role, a] : baseCounts) {
        const auto other = candCounts.find(role);
        if (other == candCounts.end()) {
            continue;
        }
        const auto& b = other->second;
        std::map<std::string, double> both = a.symbolTotal;
        for (const auto& [name, n] : b.symbolTotal) {
            both[name] += n;
        }
        std::vector<std::pair<double, std::string>> ranked;
        ranked.reserve(both.size());
        for (const auto& [name, n] : both) {
            ranked.emplace_back(-n, name);
        }
        std::sort(ranked.begin(), ranked.end());
        ranked.resize(std::min(ranked.size(), options.symbolsPerCpu));
        for (const auto& [negative, name] : ranked) {
            if (name == kOtherSymbol) {
                continue;
            }
            auto row = compareSides(a, b, name, options.alpha);
            row.symbol = name;
            row.cpu = -1;  // CPUs match by role: the number may differ from run to run
            row.role = role;
            row.baselineNsPerOp = row.baselineSharePct / 100 * baseNs;
            row.candidateNsPerOp = row.candidateSharePct / 100 * candNs;
            out.rows.push_back(std::move(row));
        }
    }
    qualify(out.rows);
    return out;
}

}  // namespace nf::engine
