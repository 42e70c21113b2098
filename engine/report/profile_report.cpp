#include "engine/report/profile_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/report/evidence.h"

namespace nf::engine {

namespace {

constexpr std::size_t kWidth = 72;
constexpr std::size_t kSymbolWidth = 21;

nlohmann::json number(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::string cpuList(const std::vector<ProfileCpu>& cpus)
{
    std::string out;
    for (const auto& c : cpus) {
        out += (out.empty() ? "" : ", ") + std::to_string(c.cpu) + " (" + c.role + ")";
    }
    return out;
}

std::string qText(double q)
{
    if (std::isnan(q)) {
        return "-";
    }
    return q < 0.001 ? "<0.001" : fmt::format("{:.3f}", q);
}

// Cut past two thirds, so that names that differ at their start (template arguments) or at their
// end stay apart ("pushRound<tru~ false>", "_raw_spin_unl~restore" beside "_raw_spin_unlock_irq").
std::string symbolCell(const std::string& symbol)
{
    if (symbol.size() <= kSymbolWidth) {
        return symbol;
    }
    const std::size_t head = (kSymbolWidth - 1) * 2 / 3;
    return symbol.substr(0, head) + "~" + symbol.substr(symbol.size() - (kSymbolWidth - 1 - head));
}

void writeRow(const ProfileRow& row, std::size_t cpus, std::ostream& out)
{
    const std::string ci = row.partial             ? "in [other]"
                           : std::isnan(row.lowPp) ? "-"
                                                   : fmt::format("{:+.2f}..{:+.2f}", row.lowPp, row.highPp);
    const auto share = [](double pct) { return std::isfinite(pct) ? fmt::format("{:.2f}", pct) : std::string("-"); };
    const std::string delta = std::isfinite(row.deltaPp) ? fmt::format("{:+.2f}", row.deltaPp) : "-";
    out << fmt::format("  {:<{}} {:>3} {:>6} {:>6} {:>6} {:>14} {:>6}\n", symbolCell(row.symbol), kSymbolWidth,
                       cpus > 1 && row.cpu >= 0 ? std::to_string(row.cpu) : std::string(""),
                       share(row.baselineSharePct), share(row.candidateSharePct), delta, ci, qText(row.q));
    // A share is of the CPU's time: it can fall while the time per operation in the symbol grows
    // (the retpoline's callee), so the time per operation is said beside it where the run has one.
    if (std::isfinite(row.baselineNsPerOp) && std::isfinite(row.candidateNsPerOp) &&
        (row.baselineNsPerOp > 0 || row.candidateNsPerOp > 0)) {
        out << fmt::format("    per op: {:.3g} -> {:.3g} ns\n", row.baselineNsPerOp, row.candidateNsPerOp);
    }
}

void writeRows(const ProfileComparison& c, double alpha, std::size_t cpus, std::ostream& out)
{
    std::vector<const ProfileRow*> changed;
    std::size_t fewestUnits = 0;
    for (const auto& row : c.rows) {
        if (!std::isnan(row.q) && row.q < alpha) {
            changed.push_back(&row);
        }
        fewestUnits = fewestUnits == 0 ? row.units : std::min(fewestUnits, row.units);
    }
    out << "\n"
        << c.candidate << " against " << c.baseline << ", per " << c.unit << " (" << fewestUnits << " "
        << (c.unit == "chunk pair"   ? "pairs"
            : c.unit == "repetition" ? "repetitions"
                                     : c.unit + "s")
        << "):\n";
    const std::string header = fmt::format("  {:<{}} {:>3} {:>6} {:>6} {:>6} {:>14} {:>6}\n", "symbol", kSymbolWidth,
                                           "cpu", "base%", "cand%", "delta", "95% CI (pp)", "q");
    const bool untested =
        std::none_of(c.rows.begin(), c.rows.end(), [](const ProfileRow& r) { return std::isfinite(r.p); });
    if (!c.rows.empty() && untested) {  // "can't tell", never "nothing changed"
        for (const auto& line : wrap("  no intervals: a side has fewer than two " + c.unit +
                                         "s (an import: a file per boot, or --slice SECONDS of one recording), "
                                         "or every symbol was summed as [other] somewhere; the largest differences, "
                                         "untested:",
                                     kWidth, "  ")) {
            out << line << '\n';
        }
    }
    if (changed.empty()) {
        // Nothing at q < alpha: still the largest differences, so that too few units read as such.
        std::vector<const ProfileRow*> largest;
        for (const auto& row : c.rows) {
            if (std::isfinite(row.deltaPp)) {
                largest.push_back(&row);
            }
        }
        std::stable_sort(largest.begin(), largest.end(),
                         [](const auto* a, const auto* b) { return std::fabs(a->deltaPp) > std::fabs(b->deltaPp); });
        largest.resize(std::min<std::size_t>(largest.size(), 3));
        const std::string none = fmt::format(
            "  no symbol's share changed at q < {:g} ({} rows over {} units); "
            "the largest differences:",
            alpha, c.rows.size(), fewestUnits);
        for (const auto& line : untested ? std::vector<std::string>{} : wrap(none, kWidth, "  ")) {
            out << line << '\n';
        }
        if (!largest.empty()) {
            out << header;
        }
        for (const auto* row : largest) {
            writeRow(*row, cpus, out);
        }
        return;
    }
    out << header;
    for (const auto* row : changed) {
        writeRow(*row, cpus, out);
    }
    const std::size_t rest = c.rows.size() - changed.size();
    if (rest > 0) {
        out << fmt::format("  {} more rows with q >= {:g} (--format json: all)\n", rest, alpha);
    }
}

}  // namespace

std::vector<std::string> profileSummaryLines(const ProfileSummary& s)
{
    if (!s.source.empty()) {
        std::string cpus;
        for (const auto& c : s.cpus) {
            cpus += (cpus.empty() ? "" : "; ") + (c.cpu >= 0 ? std::to_string(c.cpu) + " (" + c.role + ")" : c.role);
        }
        return wrap(fmt::format("profile: {} samples, imported from {} ({}): {} samples{}", s.event, s.source, cpus,
                                s.samples, s.lost > 0 ? fmt::format(", {} lost", s.lost) : std::string()),
                    kWidth, "  ");
    }
    std::string text = fmt::format(
        "profile: {} at {} Hz on CPU {}; {} samples in chunks, {} between them (left out), "
        "{} lost; the ring reader took {:.3f} s of CPU{}",
        s.event, s.hz, cpuList(s.cpus), s.samples, s.outside, s.lost, s.readerSeconds,
        s.readerOnMeasured ? ", on a measured CPU (no other)" : "");
    return wrap(text, kWidth, "  ");
}

void writeProfileText(const ProfileSummary& summary, const std::vector<ProfileComparison>& comparisons, double alpha,
                      std::ostream& out)
{
    out << "\nwhere the time went\n";
    for (const auto& line : profileSummaryLines(summary)) {
        out << line << '\n';
    }
    for (const auto& line :
         wrap("share: of a CPU's samples in the variant's chunks (an import's: in its files) whose "
              "interrupted instruction was in the symbol (self, not its callees; idle included); delta: "
              "candidate minus baseline, percentage points, its interval over the units; q: "
              "Benjamini-Hochberg over the rows; '-' where a side summed the symbol as [other]",
              kWidth, "  ")) {
        out << line << '\n';
    }
    for (const auto& c : comparisons) {
        writeRows(c, alpha, summary.cpus.size(), out);
    }
}

nlohmann::json profileSummaryJson(const ProfileSummary& s)
{
    auto cpus = nlohmann::json::array();
    for (const auto& c : s.cpus) {
        cpus.push_back({{"cpu", c.cpu}, {"role", c.role}});
    }
    const bool measured = s.source.empty();  // an import knows no rate and had no ring reader
    return {{"event", s.event},
            {"source", measured ? "run --profile" : s.source},
            {"hz", measured ? nlohmann::json(s.hz) : nlohmann::json()},
            {"cpus", cpus},
            {"samples", s.samples},
            {"outside_chunks", s.outside},
            {"lost", s.lost},
            {"reader_cpu_s", measured ? nlohmann::json(s.readerSeconds) : nlohmann::json()},
            {"reader_on_measured_cpu", measured ? nlohmann::json(s.readerOnMeasured) : nlohmann::json()}};
}

nlohmann::json profileRowsJson(const ProfileComparison& c)
{
    auto rows = nlohmann::json::array();
    for (const auto& r : c.rows) {
        rows.push_back(
            {{"symbol", r.symbol},
             {"cpu", r.cpu},
             {"role", r.role},
             {"share_pct", {{c.baseline, r.baselineSharePct}, {c.candidate, r.candidateSharePct}}},
             {"delta_pp", number(r.deltaPp)},
             {"partial", r.partial},
             {"ci_low_pp", number(r.lowPp)},
             {"ci_high_pp", number(r.highPp)},
             {"p_value", number(r.p)},
             {"q_value", number(r.q)},
             {"units", r.units},
             {"ns_per_op", {{c.baseline, number(r.baselineNsPerOp)}, {c.candidate, number(r.candidateNsPerOp)}}}});
    }
    return rows;
}

}  // namespace nf::engine
