#include "engine/report/decision_text.h"

#include <fmt/format.h>

#include <cmath>

#include "engine/report/evidence.h"

namespace nf::engine {

namespace {

nlohmann::json number(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace

void writeDecisionText(const DecisionRecord& d, const std::string& baseline, const std::string& candidate,
                       std::ostream& out)
{
    out << fmt::format("\nUntil decided (the run's own verdict, valid at every look): {} on {}; stopped: {}\n",
                       d.decision, d.metric, d.stopReason);
    if (!d.looks.empty()) {
        const auto& l = d.looks.back();
        const bool bounded = std::isfinite(l.lowPct) && std::isfinite(l.highPct);
        out << fmt::format("  {} vs {}: {:+.3f}% ({:g}% time-uniform {}), {} looks, {} {}s, {:.1f} s measured\n",
                           candidate, baseline, l.estimatePct, (1 - d.alpha) * 100,
                           bounded ? fmt::format("{:+.3f}..{:+.3f}%", l.lowPct, l.highPct) : std::string("unbounded"),
                           d.looks.size(), l.units, d.unit, l.elapsed);
    }
    if (d.decision == "inconclusive") {
        out << (d.secondsNeeded >= 0
                    ? fmt::format("  at this spread it would need about {:.0f} s more of measuring\n", d.secondsNeeded)
                    : std::string("  at this estimate no amount of measuring is expected to decide\n"));
    }
    out << fmt::format("  method: {}; margin +-{:g}%; above: the fixed-n analysis of the same data\n", d.method,
                       d.marginPct);
}

std::vector<std::string> decisionLines(const DecisionRecord& d)
{
    std::vector<std::string> lines;
    std::string first = fmt::format("until decided: {} on {}", d.decision, d.metric);
    if (!d.looks.empty()) {
        const auto& l = d.looks.back();
        const bool bounded = std::isfinite(l.lowPct) && std::isfinite(l.highPct);
        first += fmt::format(", {:+.2f}% ({:g}% CS {})", l.estimatePct, (1 - d.alpha) * 100,
                             bounded ? fmt::format("{:+.2f}..{:+.2f}", l.lowPct, l.highPct) : std::string("unbounded"));
        lines.push_back(first);
        lines.push_back(fmt::format("  {} look{}, {} {}s, {:.1f} s; stopped: {}", d.looks.size(),
                                    d.looks.size() == 1 ? "" : "s", l.units, d.unit, l.elapsed, d.stopReason));
    } else {
        lines.push_back(first);
    }
    if (d.decision == "inconclusive" && d.secondsNeeded >= 0) {
        lines.push_back(fmt::format("  it would need about {:.0f} s more of measuring", d.secondsNeeded));
    }
    // The method by its name and first reference; --verbose and the JSON give it whole.
    const auto cut = d.method.find(" et al. ");
    const std::string named = cut == std::string::npos ? d.method : d.method.substr(0, d.method.find(',', cut)) + ")";
    for (auto& line : wrap(fmt::format("  margin +-{:g}%; {}", d.marginPct, named), 72, "    ")) {
        lines.push_back(std::move(line));
    }
    lines.push_back("  the table: fixed-n analysis of the same data, for reference");
    return lines;
}

nlohmann::json decisionJson(const DecisionRecord& d)
{
    nlohmann::json looks = nlohmann::json::array();
    for (const auto& l : d.looks) {
        looks.push_back({{"look", l.look},
                         {"repetitions", l.repetitions},
                         {"units", l.units},
                         {"elapsed_s", l.elapsed},
                         {"estimate_pct", number(l.estimatePct)},
                         {"ci_low_pct", number(l.lowPct)},
                         {"ci_high_pct", number(l.highPct)},
                         {"sd_log", number(l.sdLog)},
                         {"decision", l.decision}});
    }
    nlohmann::json j = {{"method", d.method},
                        {"metric", d.metric},
                        {"unit", d.unit},
                        {"alpha", d.alpha},
                        {"margin_pct", d.marginPct},
                        {"max_time_s", d.maxTime},
                        {"decision", d.decision},
                        {"stop_reason", d.stopReason},
                        {"seconds_needed", d.secondsNeeded >= 0 ? nlohmann::json(d.secondsNeeded) : nullptr},
                        {"looks", looks}};
    if (!d.looks.empty()) {
        const auto& l = d.looks.back();
        j["estimate_pct"] = number(l.estimatePct);
        j["ci_low_pct"] = number(l.lowPct);
        j["ci_high_pct"] = number(l.highPct);
        j["units"] = l.units;
        j["elapsed_s"] = l.elapsed;
    }
    return j;
}

}  // namespace nf::engine
