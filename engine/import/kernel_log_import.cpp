// Results the kernel prints through dmesg: time_bench (prototype-kernel, bench_page_pool_simple.ko,
// the kselftest net/bench scripts) and page_frag_test.ko. dmesg holds other lines too; only lines
// carrying the tool's marker are read, and a marked line that does not parse is an error.

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "engine/import/import_format.h"

namespace nf::engine {
namespace {

using Match = std::match_results<std::string_view::const_iterator>;

bool search(std::string_view text, const std::regex& re, Match& m)
{
    return std::regex_search(text.begin(), text.end(), m, re);
}

// The numbers a line's regex captured (digits only), or the first one a double cannot hold.
template <class M>
Result<std::vector<double>> numbers(const ImportSource& src, std::size_t line, const M& m,
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

namespace {

// time_bench records, each from one "Type:NAME Per elem: ..." line or from the lines a mail client
// wrapped it into: the wrapped tails carry no timestamp and the record ends with "tsc_interval:N)".
struct BenchRecord {
    std::string module;  // the prefix before "Type:": "time_bench", "bench_page_pool"
    std::string name;    // "kmem bulk_fallback"
    int step = 0;
    double cycles = 0;
    double ns = 0;
    std::optional<double> period, invokes, tscInterval;
    std::size_t line = 0;
    int load = 0;

    std::string key() const { return step == 0 ? name : name + " step " + std::to_string(step); }
};

std::string squeeze(const std::string& text)
{
    std::string out;
    for (char c : text) {
        if (c == ' ' || c == '\t') {
            if (!out.empty() && out.back() != ' ') {
                out += ' ';
            }
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == ' ') {
        out.pop_back();
    }
    return out;
}

bool startsRecord(std::string_view line, const std::regex& summary)
{
    Match m;
    return line.find("Type:") != std::string_view::npos || std::regex_search(line.begin(), line.end(), m, summary);
}

bool hasTimestamp(std::string_view line)
{
    return !trim(line).empty() && trim(line).front() == '[';
}

// Type:kmem fastpath reuse Per elem: 184 cycles(tsc) 61.747 ns (step:0) - (measurement period
// time:0.617475365 sec time_interval:617475365) - (invoke count:10000000 tsc_interval:1848850440)
// "Type:x PMU inst/clock" lines of time_bench's PMU mode carry no "Per elem:" and are not read.
Result<ImportTable> parseTimeBench(const ImportSource& src, const ImportOptions& /*options*/)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not a kernel log");
    }
    static const std::regex re(
        R"((?:([A-Za-z0-9_]+): )?Type:(.+?) Per elem: (\d+) cycles\(tsc\) (\d+\.\d+) ns(?: \(step:(\d+)\))?)"
        R"((?: - \(measurement period time:(\d+\.\d+) sec time_interval:\d+\) - \(invoke count:(\d+) tsc_interval:(\d+)\))?$)");
    static const std::regex summary(R"(^([A-Za-z0-9_-]+) Per elem: (\d+) cycles\(tsc\) (\d+\.\d+) ns$)");
    static const std::regex end(R"(tsc_interval:\d+\)\s*$)");
    std::vector<BenchRecord> records;
    std::vector<std::pair<std::string, std::pair<double, double>>> summaries;  // kselftest result lines
    std::vector<std::size_t> summaryLines;
    int loads = 0;
    std::string loadedBy;  // the module a "NAME: Loaded" line names
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto text = lines[i];
        const std::size_t number = i + 1;
        if (const auto at = text.find(": Loaded");
            at != std::string_view::npos && text.find("Type:") == std::string_view::npos) {
            ++loads;
            const auto words = splitWords(text.substr(0, at));
            if (!words.empty() && loadedBy.empty()) {
                loadedBy = std::string(words.back());
            }
            continue;
        }
        Match m;
        std::smatch sm;
        const auto t = trim(text);
        if (t.find("Type:") == std::string_view::npos) {
            if (std::regex_search(t.begin(), t.end(), m, summary)) {
                summaries.push_back({m[1].str(), {*parseNumber(m[2].str()), *parseNumber(m[3].str())}});
                summaryLines.push_back(number);
            }
            continue;
        }
        std::string record(t);
        if (record.find("Per elem:") == std::string::npos && record.find("Per elem") == std::string::npos &&
            (i + 1 >= lines.size() || hasTimestamp(lines[i + 1]))) {
            continue;  // "Type:x PMU inst/clock" and other Type lines without a per-element result
        }
        std::size_t j = i;
        // The tail of a wrapped record never holds a record of its own: a next line with "Type:" (or a
        // whole summary line) is the next result, pasted without time stamps or step, never a tail.
        while (!std::regex_search(record, end) && j + 1 < lines.size() && j < i + 5 && !hasTimestamp(lines[j + 1]) &&
               !trim(lines[j + 1]).empty() && !startsRecord(trim(lines[j + 1]), summary)) {
            record += " " + std::string(trim(lines[++j]));
        }
        record = squeeze(record);
        if (record.find("Per elem:") == std::string::npos) {
            continue;
        }
        if (!std::regex_search(record, sm, re)) {
            return importError(src, number, "a time_bench line that does not parse (truncated?): " + quoteLine(record));
        }
        const auto& mm = sm;
        BenchRecord r;
        r.module = mm[1].str();
        r.name = mm[2].str();
        auto v = NF_TRY(numbers(src, number, mm, {3, 4}));
        r.cycles = v[0];
        r.ns = v[1];
        if (mm[5].matched) {
            const auto step = parseNumber(mm[5].str());
            if (!step || *step < 0 || *step > std::numeric_limits<int>::max() || *step != std::floor(*step)) {
                return importError(src, number,
                                   "a time_bench step that is not a whole number of a sane size: " + quoteLine(record));
            }
            r.step = static_cast<int>(*step);
        }
        if (mm[6].matched) {
            r.period = parseNumber(mm[6].str());
            r.invokes = parseNumber(mm[7].str());
            r.tscInterval = parseNumber(mm[8].str());
        }
        r.line = number;
        r.load = std::max(loads, 1) - 1;
        records.push_back(std::move(r));
        i = j;
    }
    // The kselftest script (test_bench_page_pool.sh) ends with its summary lines ("NAME Per elem: N
    // cycles(tsc) X ns", no "Type:"); pasted alone, they are the results.
    const bool summaryOnly = records.empty() && !summaries.empty();
    for (std::size_t s = 0; summaryOnly && s < summaries.size(); ++s) {
        BenchRecord r;
        r.name = summaries[s].first;
        r.cycles = summaries[s].second.first;
        r.ns = summaries[s].second.second;
        r.line = summaryLines[s];
        records.push_back(std::move(r));
    }
    if (records.empty()) {
        return importError(src, 0, "no time_bench 'Type:NAME Per elem:' lines in it");
    }
    // Without "Loaded" lines, the k-th record of a Type belongs to the k-th module load.
    std::vector<std::string> keys;  // in first-seen order
    std::map<std::string, std::vector<const BenchRecord*>> byKey;
    std::map<std::string, int> counts;
    for (auto& r : records) {
        if (loads == 0) {
            r.load = counts[r.key()]++;
        }
        if (!byKey.count(r.key())) {
            keys.push_back(r.key());
        }
        byKey[r.key()].push_back(&r);
    }
    const int runs = 1 + std::max_element(records.begin(), records.end(), [](const auto& a, const auto& b) {
                             return a.load < b.load;
                         })->load;
    for (const auto& k : keys) {
        if (byKey[k].size() != static_cast<std::size_t>(runs)) {
            return importError(src, byKey[k].back()->line,
                               "Type:" + k + " appears " + std::to_string(byKey[k].size()) + " times in " +
                                   std::to_string(runs) + " module loads (a run cut short, or mixed logs?)");
        }
    }
    for (std::size_t s = 0; !summaryOnly && s < summaries.size(); ++s) {
        const auto& [name, value] = summaries[s];
        const auto it = byKey.find(name);
        if (it != byKey.end() && (it->second.back()->cycles != value.first || it->second.back()->ns != value.second)) {
            return importError(src, summaryLines[s],
                               "the summary of " + name + " differs from its Type: line (line " +
                                   std::to_string(it->second.back()->line) + ")");
        }
    }
    ImportTable table;
    const std::string module = !loadedBy.empty()                ? loadedBy
                               : records.front().module.empty() ? std::string("time_bench")
                                                                : records.front().module;
    table.tool = module == "time_bench" ? module : "time_bench (" + module + ")";
    if (summaryOnly) {
        table.notes.emplace_back(
            "only the kselftest summary lines (NAME Per elem: ...): the Type: lines with their periods were not in "
            "the file");
    }
    for (const auto& r : records) {
        const std::string load = "load " + std::to_string(r.load + 1) + " ";
        for (const std::string& prefix : {std::string(), load}) {
            if (!prefix.empty() || r.load == 0) {
                table.read(prefix + r.key() + " ns per elem", r.ns);
                table.read(prefix + r.key() + " cycles per elem", r.cycles);
                if (r.period) {
                    table.read(prefix + r.key() + " measurement period", *r.period);
                    table.read(prefix + r.key() + " invoke count", *r.invokes);
                    table.read(prefix + r.key() + " tsc_interval", *r.tscInterval);
                }
            }
        }
    }
    std::map<std::string, std::set<int>> steps;
    for (const auto& r : records) {
        steps[r.name].insert(r.step);
    }
    for (const auto& [name, set] : steps) {
        table.read("distinct steps for " + name, static_cast<double>(set.size()));
    }
    for (const auto& [name, value] : summaries) {
        table.read("summary " + name + " cycles per elem", value.first);
        table.read("summary " + name + " ns per elem", value.second);
    }
    table.read("summary lines", static_cast<double>(summaries.size()));
    table.read("Type lines", static_cast<double>(records.size()));
    table.read("Type lines total", static_cast<double>(records.size()));
    table.read("Type lines per load", static_cast<double>(keys.size()));
    table.read("module loads", static_cast<double>(runs));
    table.detected = table.tool + ", " + std::to_string(runs) + " module load" + (runs > 1 ? "s" : "") + ", " +
                     std::to_string(keys.size()) + " Types" + (summaries.empty() ? "" : ", kselftest summary");
    for (const auto& k : keys) {
        table.layout.quantities.push_back(k + ".cycles");
        table.layout.quantities.push_back(k + ".ns");
    }
    table.layout.quantities.emplace_back("runs");
    for (const auto& k : keys) {
        table.layout.metrics.push_back({k, "cycles(tsc)/elem", k + ".cycles", "runs", 1.0, false,
                                        "time_bench " + k + ": TSC cycles per element", ""});
    }
    for (const auto& k : keys) {
        table.layout.metrics.push_back(
            {k + "_ns", "ns/elem", k + ".ns", "runs", 1.0, false, "time_bench " + k + ": ns per element", k});
    }
    for (int r = 0; r < runs; ++r) {
        ImportSample sample;
        for (const auto& k : keys) {
            const auto* rec = byKey[k][static_cast<std::size_t>(r)];
            for (const auto* x : byKey[k]) {
                if (x->load == r) {
                    rec = x;
                }
            }
            sample.values.push_back(rec->cycles);
            sample.values.push_back(rec->ns);
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
        auto v = NF_TRY(numbers(src, i + 1, m, {3, 1}));  // took_us, iterations
        table.repetitions.push_back({ImportSample{v[0] / 1e6, {v[0], v[1], 1.0}}});
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
    table.tool = "page_frag_test";
    table.detected = "page_frag_test, " + std::to_string(table.repetitions.size()) + " module loads, mode " + mode;
    for (std::size_t r = 0; r < table.repetitions.size(); ++r) {
        table.read("load " + std::to_string(r + 1) + " took_us", table.repetitions[r][0].values[0]);
    }
    return checkedTable(src, std::move(table));
}

}  // namespace

ImportFormat importers::timeBench()
{
    return {
        .name = "time-bench",
        .tools = {"time_bench"},
        .summary = "time_bench lines 'Type:NAME Per elem: N cycles(tsc) X ns' (dmesg), one metric per Type",
        .detect =
            [](std::string_view text) {
                return detection::markedIf(containsAll(text, {"Per elem:", "cycles(tsc)"}));
            },
        .parse = parseTimeBench,
        .dictionary = {"Type:", "Per elem: ", " cycles(tsc) ", " ns", "Type:for_loop Per elem: 0 cycles(tsc) 0.334 ns",
                       "(step:0)"},
    };
}

ImportFormat importers::pageFragTest()
{
    return {
        .name = "page-frag-test",
        .tools = {"page_frag_test"},
        .summary = "page_frag_test.ko 'N of iterations for MODE testing took: Tus' (dmesg)",
        .detect = [](std::string_view text) { return detection::markedIf(contains(text, "testing took:")); },
        .parse = parsePageFragTest,
        .dictionary = {" of iterations for ", " testing took: ", "us", "non-aligned", "aligned"},
    };
}

}  // namespace nf::engine
