#include "engine/analysis/multiplicity.h"

#include <algorithm>
#include <cmath>

#include "engine/stats/hypothesis_tests.h"

namespace nf::engine {

namespace {

// The smallest alpha a Holm-adjusted interval is drawn at (see decideFamily).
constexpr double kMinAdjustedAlpha = 1e-12;

// Whether combine(a, b) is one constant over every pair of finite, non-zero values (at least two).
template <class Combine>
bool constantOver(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b, Combine combine)
{
    if (a.size() != b.size()) {
        return false;
    }
    double first = std::nan("");
    std::size_t seen = 0;
    for (std::size_t v = 0; v < a.size(); ++v) {
        if (a[v].size() != b[v].size()) {
            return false;
        }
        for (std::size_t i = 0; i < a[v].size(); ++i) {
            const double x = a[v][i];
            const double y = b[v][i];
            if (!std::isfinite(x) || !std::isfinite(y) || x == 0 || y == 0) {
                if (std::isfinite(x) != std::isfinite(y)) {
                    return false;
                }
                continue;
            }
            const double c = combine(x, y);
            if (seen++ == 0) {
                first = c;
            } else if (std::fabs(c - first) > 1e-9 * std::fabs(first)) {
                return false;
            }
        }
    }
    return seen >= 2;
}

}  // namespace

bool oneQuantity(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b)
{
    return constantOver(a, b, [](double x, double y) { return x / y; }) ||
           constantOver(a, b, [](double x, double y) { return x * y; });
}

void decideFamily(const std::vector<FamilyMember>& family, std::size_t primaryMetric, const CompareOptions& o,
                  bool holm, const SameQuantity& same, const CompareAgain& again)
{
    std::vector<const FamilyMember*> others;
    for (const auto& member : family) {
        if (member.metric == primaryMetric || !holm) {
            decideAdjusted(*member.result, member.result->p, o);
        } else {
            others.push_back(&member);
        }
    }
    // Hypotheses: the other metrics, those of one quantity together; each group's p is its
    // largest (they are equal for a quantity in other units, close for a reciprocal).
    std::vector<std::vector<const FamilyMember*>> groups;
    for (const auto* member : others) {
        const auto group = std::find_if(groups.begin(), groups.end(),
                                        [&](const auto& g) { return same(g.front()->metric, member->metric); });
        if (group == groups.end()) {
            groups.push_back({member});
        } else {
            group->push_back(member);
        }
    }
    std::vector<double> ps;
    for (const auto& group : groups) {
        double p = 0;
        for (const auto* member : group) {
            p = std::isnan(member->result->p) || std::isnan(p) ? std::nan("") : std::max(p, member->result->p);
        }
        ps.push_back(p);
    }
    const auto adjusted = stats::holm(ps);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        for (const auto* member : groups[g]) {
            Comparison& r = *member->result;
            const double p = r.p;
            if (adjusted[g] > p && p > 0 && std::isfinite(adjusted[g])) {
                CompareOptions wider = o;
                // Floored where a double still tells 1 - alpha / 2 from 1: members of one quantity
                // whose p-values are both tiny (1e-300 and 1e-200, rounding at extreme statistics)
                // would ask for a level of exactly 1. Past the floor the interval matches the
                // verdict only when the adjusted p is below alpha; else it is left unbounded.
                const double exact = o.alpha * p / adjusted[g];
                wider.alpha = std::max(exact, kMinAdjustedAlpha);
                r = again(member->metric, r.design, wider);
                r.p = p;
                if (exact < kMinAdjustedAlpha && adjusted[g] >= o.alpha) {
                    r.interval.ci = {};
                    r.interval.note = "the adjusted level is too close to 1 for an interval: unbounded";
                }
            }
            decideAdjusted(r, adjusted[g], o);
        }
    }
}

}  // namespace nf::engine
