// pktgen: /proc/net/pktgen/DEV after a run ("Result: OK: 1005183(c1005016+d166) usec, 10000000
// (60byte,0frags)" and "  9948434pps 4775Mb/sec (4775248320bps) errors: 0", net/core/pktgen.c
// show_results()), and the samples/pktgen scripts, which print it per thread after "Device: DEV@N".
// The threads of one script run send at the same time: their rates add up to the run's rate.

#include <regex>

#include "engine/import/import_format.h"

namespace nf::engine {
namespace {

using Match = std::match_results<std::string_view::const_iterator>;

struct Thread {
    std::string device;  // "ixgbe1@0", "" for a /proc file without a Device: line
    double usec = 0, cpu = 0, idle = 0, packets = 0, size = 0;
    double pps = 0, mbps = 0, bps = 0, errors = 0;
    std::size_t line = 0;
};

Result<double> num(const ImportSource& src, std::size_t line, const std::string& text)
{
    auto v = parseNumber(text);
    if (!v) {
        return importError(src, line, "number out of range: " + quoteLine(text));
    }
    return *v;
}

Result<ImportTable> parsePktgen(const ImportSource& src, const ImportOptions& /*options*/)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not /proc/net/pktgen output");
    }
    static const std::regex ok(R"(^Result: OK: (\d+)\(c(\d+)\+d(\d+)\) usec, (\d+) \((\d+)byte,(\d+)frags\)\s*$)");
    static const std::regex rate(R"(^\s*(\d+)pps (\d+)Mb/sec \((\d+)bps\) errors: (\d+)\s*$)");
    static const std::regex device(R"(Device: (\S+))");
    static const std::regex params(R"(^Params: count (\d+))");
    std::vector<std::vector<Thread>> runs;
    std::string device_;
    bool newRun = true;
    std::optional<double> count;
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto text = trim(lines[i]);
        Match m;
        if (std::regex_search(text.begin(), text.end(), m, params) && !count) {
            count = parseNumber(m[1].str());
            continue;
        }
        if (text.rfind("Running...", 0) == 0) {
            newRun = true;
            continue;
        }
        if (std::regex_search(text.begin(), text.end(), m, device)) {
            device_ = m[1].str();
            const auto at = device_.rfind('@');
            if (at != std::string::npos && device_.substr(at + 1) == "0" && !runs.empty() && !runs.back().empty()) {
                newRun = true;  // thread 0 again: the next run of the script
            }
            continue;
        }
        if (text.rfind("Result:", 0) != 0) {
            continue;
        }
        if (text.find("add_device=") != std::string_view::npos ||
            text.find("rem_device_all") != std::string_view::npos) {
            return importError(src, i + 1,
                               "a pktgen thread file (/proc/net/pktgen/kpktgend_N): its 'Result: OK:' is the status "
                               "of a command, not a measurement; import /proc/net/pktgen/DEV");
        }
        if (!std::regex_search(text.begin(), text.end(), m, ok)) {
            return importError(src, i + 1, "pktgen did not finish a run: " + quoteLine(text));
        }
        Match r;
        if (i + 1 >= lines.size() || !std::regex_search(lines[i + 1].begin(), lines[i + 1].end(), r, rate)) {
            return importError(src, i + 2, "the pps line after 'Result: OK:' is missing or cut short");
        }
        Thread t;
        t.device = device_;
        t.line = i + 1;
        double* fields[] = {&t.usec, &t.cpu, &t.idle, &t.packets, &t.size};
        for (int g = 1; g <= 5; ++g) {
            auto v = NF_TRY(num(src, i + 1, m[g].str()));
            *fields[g - 1] = v;
        }
        double* rates[] = {&t.pps, &t.mbps, &t.bps, &t.errors};
        for (int g = 1; g <= 4; ++g) {
            auto v = NF_TRY(num(src, i + 2, r[g].str()));
            *rates[g - 1] = v;
        }
        if (newRun || device_.empty()) {
            runs.emplace_back();
            newRun = false;
        }
        runs.back().push_back(t);
        device_.clear();
        ++i;
    }
    if (runs.empty()) {
        return importError(src, 0, "no pktgen 'Result: OK:' in it");
    }
    ImportTable table;
    table.tool = "pktgen";
    table.layout.quantities = {"packets", "bytes", "errors", "usec", "pps", "Mbps", "threads", "runs"};
    table.layout.metrics = {
        {"pps", "packets/s", "pps", "runs", 1.0, true, "pktgen packets sent per second, all threads", ""},
        {"Mbps", "Mb/s", "Mbps", "runs", 1.0, true, "pktgen megabits per second, all threads", ""},
        {"errors", "errors", "errors", "runs", 1.0, false, "pktgen transmit errors per run", ""},
    };
    std::size_t threads = 0;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        ImportSample s{0, std::vector<double>(8, 0.0)};
        for (std::size_t n = 0; n < runs[k].size(); ++n) {
            const auto& t = runs[k][n];
            s.values[0] += t.packets;
            s.values[1] += t.packets * t.size;
            s.values[2] += t.errors;
            s.values[3] = std::max(s.values[3], t.usec);
            s.values[4] += t.pps;
            s.values[5] += t.mbps;
            const std::string run = k == 0 ? "" : "run " + std::to_string(k + 1) + " ";
            const std::string th = run + "thread " + std::to_string(n) + " ";
            table.read(th + "usec", t.usec);
            table.read(th + "packets sent", t.packets);
            table.read(th + "pps", t.pps);
            table.read(th + "Mb/sec", t.mbps);
            table.read(th + "bps", t.bps);
            table.read(th + "errors", t.errors);
            if (k == 0 && n == 0) {
                table.read("result usec total", t.usec);
                table.read("result usec c", t.cpu);
                table.read("result usec d", t.idle);
                table.read("packets sent", t.packets);
                table.read("pkt size", t.size);
                table.read("pps", t.pps);
                table.read("Mb/sec", t.mbps);
                table.read("bps", t.bps);
                table.read("errors", t.errors);
            }
        }
        s.values[6] = static_cast<double>(runs[k].size());
        s.values[7] = 1.0;
        s.duration = s.values[3] / 1e6;
        const std::string run = k == 0 ? "" : "run " + std::to_string(k + 1) + " ";
        table.read(run + "total pps", s.values[4]);
        table.read(run + "total packets", s.values[0]);
        table.read(run + "threads", s.values[6]);
        threads = std::max(threads, runs[k].size());
        table.repetitions.push_back({std::move(s)});
    }
    if (count) {
        table.read("Params count", *count);
    }
    table.detected = "pktgen, " + std::to_string(runs.size()) + " run" + (runs.size() > 1 ? "s" : "") +
                     (threads > 1 ? " of " + std::to_string(threads) + " threads each (their rates summed)" : "");
    return checkedTable(src, std::move(table));
}

}  // namespace

ImportFormat importers::pktgen()
{
    return {
        .name = "pktgen",
        .tools = {"pktgen"},
        .summary = "/proc/net/pktgen/DEV or the samples/pktgen scripts' output (-t N threads summed)",
        .detect =
            [](std::string_view text) {
                return detection::markedIf(containsAny(text, {"Result: OK:", "Result: ERROR:"}));
            },
        .parse = parsePktgen,
        .dictionary = {"Result: OK: ", "(c", "+d", ") usec, ", "byte,", "frags)", "pps ", "Mb/sec (", "bps) errors: "},
    };
}

}  // namespace nf::engine
