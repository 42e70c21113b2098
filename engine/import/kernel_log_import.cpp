// Results the kernel prints: time_bench (prototype-kernel, bench_page_pool_simple.ko) and
// page_frag_test.ko through dmesg, and pktgen's /proc/net/pktgen/DEV. dmesg holds other lines too;
// only lines carrying the tool's marker are read, and a marked line that does not parse is an error.

#include <map>
#include <regex>

#include "engine/import/import_format.h"

namespace nf::engine {
namespace {

using Match = std::match_results<std::string_view::const_iterator>;

bool search(std::string_view text, const std::regex& re, Match& m)
{
    return std::regex_search(text.begin(), text.end(), m, re);
}

// The numbers a line's regex captured (digits only), or the first one a double cannot hold.
Result<std::vector<double>> numbers(const ImportSource& src, std::size_t line, const Match& m,
                                    std::initializer_list<int> groups)
{
    std::vector<double> out;
    for (int g : groups) {
        const auto text = m[g].str();
        auto value = parseNumber(text);
        if (!value) {
            return importError(src, line, "number out of range: " + quoteLine(text));
        }
        out.push_back(*value);
    }
    return out;
}

}  // namespace

// "Type:for_loop Per elem: 0 cycles(tsc) 0.334 ns (step:0) - (measurement period time:...)".
// Each module load prints every Type once: the k-th line of a Type belongs to run k.
Result<ImportTable> parseTimeBench(const ImportSource& src, const ImportOptions& /*options*/)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not a kernel log");
    }
    static const std::regex re(R"(Type:(\S+) Per elem: (\d+) cycles\(tsc\) (\d+\.\d+) ns)");
    std::vector<std::string> types;                                        // in first-seen order
    std::map<std::string, std::vector<std::pair<double, double>>> values;  // cycles, ns per run
    std::map<std::string, std::size_t> lastLine;
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto text = lines[i];
        if (text.find("Type:") == std::string_view::npos || text.find("Per elem:") == std::string_view::npos) {
            continue;  // other kernel messages; time_bench's PMU lines ("Type:x PMU inst/clock")
        }
        Match m;
        if (!search(text, re, m)) {
            return importError(src, i + 1, "a time_bench line that does not parse (truncated?): " + quoteLine(text));
        }
        auto v = numbers(src, i + 1, m, {2, 3});
        if (!v) {
            return v.error();
        }
        const std::string type = m[1].str();
        if (!values.count(type)) {
            types.push_back(type);
        }
        values[type].emplace_back((*v)[0], (*v)[1]);
        lastLine[type] = i + 1;
    }
    if (types.empty()) {
        return importError(src, 0, "no time_bench 'Type:NAME Per elem:' lines in it");
    }
    const std::size_t runs = values[types.front()].size();
    for (const auto& t : types) {
        if (values[t].size() != runs) {
            return importError(src, lastLine[t],
                               "Type:" + t + " appears " + std::to_string(values[t].size()) + " times but Type:" +
                                   types.front() + " " + std::to_string(runs) + " (a run cut short, or mixed logs?)");
        }
    }
    ImportTable table;
    for (const auto& t : types) {
        table.layout.quantities.push_back(t + ".cycles");
        table.layout.quantities.push_back(t + ".ns");
    }
    table.layout.quantities.emplace_back("runs");
    for (const auto& t : types) {
        table.layout.metrics.push_back({t, "cycles(tsc)/elem", t + ".cycles", "runs", 1.0, false,
                                        "time_bench " + t + ": TSC cycles per element", ""});
    }
    for (const auto& t : types) {
        table.layout.metrics.push_back(
            {t + "_ns", "ns/elem", t + ".ns", "runs", 1.0, false, "time_bench " + t + ": ns per element", t});
    }
    for (std::size_t r = 0; r < runs; ++r) {
        ImportSample sample;
        for (const auto& t : types) {
            sample.values.push_back(values[t][r].first);
            sample.values.push_back(values[t][r].second);
        }
        sample.values.push_back(1.0);
        table.repetitions.push_back({std::move(sample)});
    }
    return checkedTable(src, std::move(table));
}

// "2000000 of iterations for non-aligned testing took: 123456us" (one line per module load).
Result<ImportTable> parsePageFragTest(const ImportSource& src, const ImportOptions& /*options*/)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not a kernel log");
    }
    static const std::regex re(R"((\d+) of iterations for (.+) testing took: (\d+)us\s*$)");
    std::string mode;
    std::size_t modeLine = 0;
    ImportTable table;
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto text = lines[i];
        if (text.find("testing took:") == std::string_view::npos) {
            continue;
        }
        Match m;
        if (!search(text, re, m)) {
            return importError(src, i + 1,
                               "a 'testing took:' line that does not parse (truncated?): " + quoteLine(text));
        }
        if (mode.empty()) {
            mode = m[2].str();
            modeLine = i + 1;
        } else if (m[2].str() != mode) {
            return importError(src, i + 1,
                               "test mode '" + m[2].str() + "' after '" + mode + "' (line " + std::to_string(modeLine) +
                                   "): import each mode separately, e.g. as --variant");
        }
        auto v = numbers(src, i + 1, m, {3, 1});  // took_us, iterations
        if (!v) {
            return v.error();
        }
        table.repetitions.push_back({ImportSample{(*v)[0] / 1e6, {(*v)[0], (*v)[1], 1.0}}});
    }
    if (table.repetitions.empty()) {
        return importError(src, 0, "no page_frag_test 'testing took:' lines in it");
    }
    table.layout.quantities = {"took_us", "iterations", "runs"};
    table.layout.metrics = {
        {"ns_per_iteration", "ns", "took_us", "iterations", 1000.0, false, "page_frag_test time per iteration", ""},
        {"took_us", "us", "took_us", "runs", 1.0, false, "page_frag_test time for all iterations", ""},
    };
    table.notes.push_back("page_frag_test mode: " + mode);
    return checkedTable(src, std::move(table));
}

// "Result: OK: 1005183(c1005016+d166) usec, 10000000 (60byte,0frags)" then
// "  9948434pps 4775Mb/sec (4775248320bps) errors: 0" (net/core/pktgen.c show_results()).
Result<ImportTable> parsePktgen(const ImportSource& src, const ImportOptions& /*options*/)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not /proc/net/pktgen output");
    }
    static const std::regex ok(R"(^Result: OK: (\d+)\(c(\d+)\+d(\d+)\) usec, (\d+) \((\d+)byte,(\d+)frags\)\s*$)");
    static const std::regex rate(R"(^\s*(\d+)pps (\d+)Mb/sec \((\d+)bps\) errors: (\d+)\s*$)");
    ImportTable table;
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto text = trim(lines[i]);
        if (text.rfind("Result:", 0) != 0) {
            continue;
        }
        Match m;
        if (!search(text, ok, m)) {
            return importError(src, i + 1, "pktgen did not finish a run: " + quoteLine(text));
        }
        Match r;
        if (i + 1 >= lines.size() || !search(lines[i + 1], rate, r)) {
            return importError(src, i + 2, "the pps line after 'Result: OK:' is missing or cut short");
        }
        auto v = numbers(src, i + 1, m, {1, 4, 5});  // usec, packets, bytes per packet
        auto errors = numbers(src, i + 2, r, {4});
        if (!v || !errors) {
            return !v ? v.error() : errors.error();
        }
        const double usec = (*v)[0];
        const double packets = (*v)[1];
        table.repetitions.push_back({ImportSample{usec / 1e6, {packets, packets * (*v)[2], (*errors)[0], usec}}});
        ++i;
    }
    if (table.repetitions.empty()) {
        return importError(src, 0, "no pktgen 'Result: OK:' in it");
    }
    table.layout.quantities = {"packets", "bytes", "errors", "usec"};
    table.layout.metrics = {
        {"pps", "packets/s", "packets", "usec", 1e6, true, "pktgen packets sent per second", ""},
        {"Mbps", "Mb/s", "bytes", "usec", 8.0, true, "pktgen megabits per second", ""},
        {"errors", "errors/s", "errors", "usec", 1e6, false, "pktgen transmit errors per second", ""},
    };
    return checkedTable(src, std::move(table));
}

}  // namespace nf::engine
