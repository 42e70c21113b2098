#include "engine/analysis/profile_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "engine/stats/descriptive.h"
#include "engine/stats/hypothesis_tests.h"
#include "engine/stats/power.h"

namespace nf::engine {

namespace {

using Unit = std::pair<int, int>;  // (repetition, pair); pair -1: the whole repetition

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

ProfileRow compareSymbol(const CpuCounts& counts, int symbol, double alpha)
{
    ProfileRow row;
    const auto share = [&](int side) {
        double total = 0;
        for (const auto& [unit, n] : counts.totals[side]) {
            total += n;
        }
        const auto it = counts.symbolTotal[side].find(symbol);
        return total > 0 && it != counts.symbolTotal[side].end() ? 100 * it->second / total : 0.0;
    };
    row.baselineSharePct = share(0);
    row.candidateSharePct = share(1);
    const auto at = [&](int side, const Unit& unit) {
        const auto s = counts.symbols[side].find(symbol);
        if (s == counts.symbols[side].end()) {
            return 0.0;
        }
        const auto it = s->second.find(unit);
        return it == s->second.end() ? 0.0 : it->second;
    };
    std::vector<double> differences;
    for (const auto& [unit, baseTotal] : counts.totals[0]) {
        const auto other = counts.totals[1].find(unit);
        if (baseTotal <= 0 || other == counts.totals[1].end() || other->second <= 0) {
            continue;
        }
        differences.push_back(100 * (at(1, unit) / other->second - at(0, unit) / baseTotal));
    }
    row.units = differences.size();
    row.deltaPp = differences.empty() ? row.candidateSharePct - row.baselineSharePct : mean(differences);
    row.lowPp = row.highPp = std::nan("");
    row.p = std::nan("");
    if (differences.size() >= 2) {
        const double sd = stddev(differences);
        const auto n = static_cast<double>(differences.size());
        const double half = stats::tQuantile(1 - alpha / 2, n - 1) * sd / std::sqrt(n);
        row.lowPp = row.deltaPp - half;
        row.highPp = row.deltaPp + half;
        row.p = sd > 0 ? stats::oneSampleT(differences).p : (row.deltaPp == 0 ? 1.0 : 0.0);
    }
    return row;
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
    // Each chunk's unit: its round when the run alternates, else its repetition.
    std::map<std::tuple<int, int, int>, Unit> unitOf;
    bool paired = false;
    const auto& table = data.samples;
    for (std::size_t row = 0; row < table.size(); ++row) {
        const int pair = table.pair(row);
        paired = paired || pair >= 0;
        unitOf[{table.variant(row), table.repetition(row), table.index(row)}] = {table.repetition(row), pair};
    }
    out.unit = paired ? "chunk pair" : "repetition";
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
        for (const auto& [symbol, n] : both) {
            ranked.emplace_back(-n, symbol);
        }
        std::sort(ranked.begin(), ranked.end());
        ranked.resize(std::min(ranked.size(), options.symbolsPerCpu));
        for (const auto& [negative, symbol] : ranked) {
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
