#include "engine/import/import_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace nf::engine {

const std::vector<ImportFormat>& importFormats()
{
    static const std::vector<ImportFormat> formats = {
        {"perf-stat", "perf stat -x, runs appended in one file, or perf stat -r N summaries (text or -x,)", false,
         parsePerfStat},
        {"sar", "sar -n DEV: packets and kB per second of one interface (--iface)", true, parseSar},
        {"xdpsock", "xdpsock / AF_XDP-example interval statistics: rx and tx pps per interval", true, parseXdpsock},
        {"xdp-bench", "xdp-bench (xdp-tools) summary lines: rx/s per interval", true, parseXdpBench},
        {"time-bench", "time_bench lines 'Type:NAME Per elem: N cycles(tsc) X ns' (dmesg), one metric per Type", false,
         parseTimeBench},
        {"page-frag-test", "page_frag_test.ko 'N of iterations for MODE testing took: Tus' (dmesg)", false,
         parsePageFragTest},
        {"pktgen", "/proc/net/pktgen/DEV after a run: 'Result: OK: ...' and its pps line", false, parsePktgen},
    };
    return formats;
}

const ImportFormat* findImportFormat(std::string_view name)
{
    const auto& formats = importFormats();
    auto it = std::find_if(formats.begin(), formats.end(), [&](const ImportFormat& f) { return f.name == name; });
    return it == formats.end() ? nullptr : &*it;
}

namespace {

bool sameLayout(const RunLayout& a, const RunLayout& b)
{
    if (a.quantities != b.quantities || a.metrics.size() != b.metrics.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.metrics.size(); ++i) {
        if (a.metrics[i].name != b.metrics[i].name || a.metrics[i].unit != b.metrics[i].unit) {
            return false;
        }
    }
    return true;
}

std::string metricNames(const RunLayout& layout)
{
    std::string out;
    for (const auto& m : layout.metrics) {
        out += (out.empty() ? "" : ", ") + m.name;
    }
    return out;
}

}  // namespace

Result<ImportTable> parseImportFiles(const ImportFormat& format, const std::vector<ImportSource>& files,
                                     const ImportOptions& options)
{
    ImportTable all;
    for (std::size_t i = 0; i < files.size(); ++i) {
        auto table = format.parse(files[i], options);
        if (!table) {
            return table.error();
        }
        if (i == 0) {
            all = std::move(*table);
            continue;
        }
        if (!sameLayout(all.layout, table->layout)) {
            return importError(files[i], 0,
                               "its metrics (" + metricNames(table->layout) + ") differ from those of " +
                                   files[0].path + " (" + metricNames(all.layout) + "): import them separately");
        }
        if ((!table->host.empty() && !all.host.empty() && table->host != all.host) ||
            (!table->kernel.empty() && !all.kernel.empty() && table->kernel != all.kernel)) {
            return importError(files[i], 0,
                               "it was recorded on " + table->host + " " + table->kernel + ", " + files[0].path +
                                   " on " + all.host + " " + all.kernel + ": import each machine or kernel separately");
        }
        for (auto& rep : table->repetitions) {
            all.repetitions.push_back(std::move(rep));
        }
        all.reconstructed = all.reconstructed || table->reconstructed;
        all.host = all.host.empty() ? table->host : all.host;
        all.kernel = all.kernel.empty() ? table->kernel : all.kernel;
    }
    return all;
}

Error importError(const ImportSource& src, std::size_t line, const std::string& what)
{
    return Error{src.path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what};
}

std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        auto line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

std::vector<std::string_view> splitWords(std::string_view line)
{
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
            ++i;
        }
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
            ++i;
        }
        if (i > start) {
            words.push_back(line.substr(start, i - start));
        }
    }
    return words;
}

std::string_view trim(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return text;
}

std::optional<double> parseNumber(std::string_view text, bool grouped)
{
    std::string digits;
    digits.reserve(text.size());
    for (char c : text) {
        if (grouped && c == ',') {
            continue;
        }
        digits += c;
    }
    if (digits.empty()) {
        return std::nullopt;
    }
    double value = 0;
    const char* end = digits.data() + digits.size();
    auto [ptr, ec] = std::from_chars(digits.data(), end, value);
    if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

std::size_t binaryLine(std::string_view text)
{
    std::size_t line = 1;
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n') {
            ++line;
        } else if (u < 0x20 && c != '\t' && c != '\r') {
            return line;
        }
    }
    return 0;
}

std::string quoteLine(std::string_view line)
{
    line = trim(line);
    std::string out(line.substr(0, 60));
    return "'" + out + (line.size() > 60 ? "...'" : "'");
}

Result<ImportTable> checkedTable(const ImportSource& src, ImportTable table)
{
    for (std::size_t r = 0; r < table.repetitions.size(); ++r) {
        for (const auto& sample : table.repetitions[r]) {
            if (!std::isfinite(sample.duration) || sample.duration < 0) {
                return importError(src, 0,
                                   "repetition " + std::to_string(r + 1) + " has an interval of " +
                                       std::to_string(sample.duration) + " s");
            }
            for (std::size_t q = 0; q < sample.values.size(); ++q) {
                if (std::isinf(sample.values[q])) {
                    const auto& name = q < table.layout.quantities.size() ? table.layout.quantities[q] : "a value";
                    return importError(src, 0,
                                       name + " of repetition " + std::to_string(r + 1) + " is too large to use");
                }
            }
        }
    }
    return table;
}

}  // namespace nf::engine
