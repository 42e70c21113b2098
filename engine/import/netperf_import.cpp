// netperf 2.x (HewlettPackard/netperf): the result tables of the stream tests (TCP_STREAM,
// TCP_MAERTS, TCP_SENDFILE, UDP_STREAM) and of the request/response tests (TCP_RR, TCP_CRR, UDP_RR),
// with the banner and column headers (-P 1, the default) or without them (-P 0), with or without the
// CPU columns of -c/-C, and the omni selectors' output (-o: a CSV header and its values; -k:
// KEY=value lines). One netperf run is one repetition; a file of several runs of one test (a shell
// loop, before/after pasted together) is several. Interim results (-D) are not stored: the run's
// own result is.
//
//   MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 10.10.1.2 () port 0 AF_INET
//   Local /Remote
//   Socket Size   Request  Resp.   Elapsed  Trans.
//   Send   Recv   Size     Size    Time     Rate
//   bytes  Bytes  bytes    bytes   secs.    per sec
//
//   16384  87380  1        1       60.00    58764.13
//   16384  87380

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <regex>

#include "engine/import/import_format.h"

namespace nf::engine {
namespace {

enum class Shape { Unknown, Stream, UdpStream, RequestResponse, Omni };

// A column of a classic result line: what a person calls it, and the quantity it is stored as ("":
// read only, e.g. a socket size, which is a setting rather than a measurement).
struct Column {
    const char* reading;
    const char* quantity;
};

// netperf's nettest_bsd.c formats, line by line: the first result line, and the CPU columns -c/-C add.
constexpr Column kStream[] = {{"recv socket size", ""},
                              {"send socket size", ""},
                              {"send message size", ""},
                              {"elapsed", "elapsed_s"},
                              {"throughput", "throughput"}};
constexpr Column kCpu[] = {{"local cpu util", "local_cpu"},
                           {"remote cpu util", "remote_cpu"},
                           {"local service demand", "local_sdem"},
                           {"remote service demand", "remote_sdem"}};
constexpr Column kUdpLocal[] = {{"socket size", ""},
                                {"message size", ""},
                                {"elapsed", "elapsed_s"},
                                {"messages okay", "messages_sent"},
                                {"messages errors", "send_errors"},
                                {"throughput", "send_throughput"}};
constexpr Column kUdpLocalCpu[] = {{"local cpu util", "local_cpu"}, {"local service demand", "local_sdem"}};
constexpr Column kUdpRemote[] = {{"remote socket size", ""},
                                 {"remote elapsed", ""},
                                 {"remote messages okay", "messages_received"},
                                 {"remote throughput", "recv_throughput"}};
constexpr Column kUdpRemoteCpu[] = {{"remote cpu util", "remote_cpu"}, {"remote service demand", "remote_sdem"}};
constexpr Column kRequestResponse[] = {{"local send socket size", ""}, {"local recv socket size", ""},
                                       {"request size", ""},           {"response size", ""},
                                       {"elapsed", "elapsed_s"},       {"transaction rate", "transaction_rate"}};
constexpr Column kRemoteSockets[] = {{"remote send socket size", ""}, {"remote recv socket size", ""}};

// The omni output selectors noisefloor stores, by their -k name and their -o header.
struct OmniColumn {
    const char* selector;
    const char* header;
    const char* quantity;
};
constexpr OmniColumn kOmni[] = {
    {"THROUGHPUT", "Throughput", "throughput"},
    {"TRANSACTION_RATE", "Transaction Rate Tran/s", "transaction_rate"},
    {"MEAN_LATENCY", "Mean Latency Microseconds", "mean_latency"},
    {"P50_LATENCY", "50th Percentile Latency Microseconds", "p50_latency"},
    {"P90_LATENCY", "90th Percentile Latency Microseconds", "p90_latency"},
    {"P99_LATENCY", "99th Percentile Latency Microseconds", "p99_latency"},
    {"MIN_LATENCY", "Minimum Latency Microseconds", "min_latency"},
    {"MAX_LATENCY", "Maximum Latency Microseconds", "max_latency"},
    {"STDDEV_LATENCY", "Stddev Latency Microseconds", "stddev_latency"},
    {"LOCAL_CPU_UTIL", "Local CPU Util %", "local_cpu"},
    {"REMOTE_CPU_UTIL", "Remote CPU Util %", "remote_cpu"},
    {"ELAPSED_TIME", "Elapsed Time (sec)", "elapsed_s"},
};

// Every quantity a netperf run can give, in the order its metrics are listed (the first present is
// the primary one): the metric is the quantity per run.
struct QuantityMetric {
    const char* quantity;
    const char* metric;  // "": stored without a metric
    const char* unit;
    bool higherIsBetter;
    const char* description;
};
constexpr QuantityMetric kQuantities[] = {
    {"throughput", "throughput", "Mbit/s", true, "netperf throughput"},
    {"recv_throughput", "recv_throughput", "Mbit/s", true, "netperf UDP_STREAM: what the receiver got"},
    {"send_throughput", "send_throughput", "Mbit/s", true, "netperf UDP_STREAM: what the sender sent"},
    {"transaction_rate", "transaction_rate", "trans/s", true, "netperf transactions per second"},
    {"mean_latency", "mean_latency_us", "us", false, "netperf mean latency of a transaction"},
    {"p50_latency", "p50_latency_us", "us", false, "netperf median latency"},
    {"p90_latency", "p90_latency_us", "us", false, "netperf 90th percentile latency"},
    {"p99_latency", "p99_latency_us", "us", false, "netperf 99th percentile latency"},
    {"min_latency", "min_latency_us", "us", false, "netperf minimum latency"},
    {"max_latency", "max_latency_us", "us", false, "netperf maximum latency"},
    {"stddev_latency", "stddev_latency_us", "us", false, "netperf standard deviation of the latency"},
    {"send_errors", "send_errors", "errors", false, "netperf UDP_STREAM send errors per run"},
    {"local_cpu", "local_cpu_pct", "%", false, "CPU utilization on the netperf side"},
    {"remote_cpu", "remote_cpu_pct", "%", false, "CPU utilization on the netserver side"},
    {"local_sdem", "local_service_demand", "", false, "CPU time per unit of work on the netperf side"},
    {"remote_sdem", "remote_service_demand", "", false, "CPU time per unit of work on the netserver side"},
    {"messages_sent", "", "", false, ""},
    {"messages_received", "", "", false, ""},
    {"elapsed_s", "", "", false, ""},
};

struct Run {
    std::size_t line = 0;  // the banner's, or the first result line's without one (-P 0)
    std::string test{};    // "TCP_RR"; "" without a banner
    Shape shape = Shape::Unknown;
    bool cpu = false;
    std::string unit{};  // the throughput unit as printed ("10^6bits/sec"), "" when not printed
    std::vector<std::pair<std::string, double>> read{};
    std::vector<std::pair<std::string, double>> values{};  // quantity -> value, as stored
    bool done = false;
};

std::optional<std::string> bannerTest(std::string_view line)
{
    if (!contains(line, " TEST")) {
        return std::nullopt;
    }
    static const std::regex re(
        R"((?:MIGRATED )?((?:TCP|UDP|SCTP|SDP|OMNI|DLCO|DLCL|XTI TCP|XTI UDP)(?: [A-Za-z/]+)*) TEST\b)");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_search(line.begin(), line.end(), m, re)) {
        return std::nullopt;
    }
    static const std::pair<const char*, const char*> names[] = {
        {"TCP STREAM", "TCP_STREAM"},
        {"TCP MAERTS", "TCP_MAERTS"},
        {"TCP SENDFILE", "TCP_SENDFILE"},
        {"UDP STREAM", "UDP_STREAM"},
        {"UDP UNIDIRECTIONAL SEND", "UDP_STREAM"},
        {"TCP REQUEST/RESPONSE", "TCP_RR"},
        {"UDP REQUEST/RESPONSE", "UDP_RR"},
        {"TCP Connect/Request/Response", "TCP_CRR"},
        {"TCP Connect/Close", "TCP_CC"},
    };
    const std::string what = m[1].str();
    for (const auto& [banner, name] : names) {
        if (what == banner) {
            return name;
        }
    }
    std::string name;
    for (const char c : what) {
        name += c == ' ' || c == '/' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return name;
}

// Mbit/s per unit of a throughput netperf prints in `unit`: 10^6bits (-f m, the default), 10^3bits,
// 10^9bits, or KBytes, MBytes, GBytes (-f K/M/G, powers of 1024).
std::optional<double> megabitsPer(std::string_view unit)
{
    static const std::regex bits(R"(^10\^(\d)bits(/s|/sec)?$)");
    static const std::regex bytes(R"(^([KMG]?)Bytes ?(/s|/sec)?$)");
    std::match_results<std::string_view::const_iterator> m;
    if (std::regex_match(unit.begin(), unit.end(), m, bits)) {
        return std::pow(10.0, *parseNumber(m[1].str()) - 6);
    }
    if (std::regex_match(unit.begin(), unit.end(), m, bytes)) {
        const std::string prefix = m[1].str();
        const double power = prefix.empty() ? 0 : prefix == "K" ? 10 : prefix == "M" ? 20 : 30;
        return std::pow(2.0, power) * 8 / 1e6;
    }
    return std::nullopt;
}

// The throughput unit of a column header's last line ("bytes  bytes   bytes    secs.    10^6bits/sec",
// "...  MBytes  /s  % S ..."), "" when it names none.
std::string unitOf(std::string_view line)
{
    const auto words = splitWords(line);
    for (std::size_t w = 0; w < words.size(); ++w) {
        if (contains(words[w], "bits") || contains(words[w], "Bytes")) {
            std::string unit(words[w]);
            if (w + 1 < words.size() && words[w + 1].front() == '/') {
                unit += " " + std::string(words[w + 1]);
            }
            return unit;
        }
    }
    return "";
}

class NetperfReader {
public:
    explicit NetperfReader(const ImportSource& src) : m_src(src) {}

    Result<std::vector<Run>> read()
    {
        const auto lines = splitLines(m_src.text);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            NF_TRY(line(trim(lines[i]), i + 1));
        }
        NF_TRY(closeRun());
        if (m_runs.empty()) {
            return importError(m_src, 0, "no netperf result in it");
        }
        return std::move(m_runs);
    }

    bool warned() const { return m_warned; }
    bool confidence() const { return m_confidence; }

private:
    Result<void> line(std::string_view text, std::size_t number)
    {
        if (text.empty()) {
            return {};
        }
        if (auto test = bannerTest(text)) {
            NF_TRY(closeRun());
            m_runs.push_back({.line = number, .test = *test});
            m_confidence = m_confidence || contains(text, "% conf.");
            m_csvHeader.clear();
            return {};
        }
        if (text.rfind("!!!", 0) == 0) {
            m_warned = true;  // netperf did not reach the confidence it was asked for
            return {};
        }
        static const std::regex keyval(R"(^([A-Z][A-Z0-9_]*)=(.*)$)");
        std::match_results<std::string_view::const_iterator> m;
        if (std::regex_match(text.begin(), text.end(), m, keyval)) {
            return keyValue(m[1].str(), m[2].str(), number);
        }
        const auto words = splitWords(text);
        const bool numeric = std::all_of(words.begin(), words.end(), [](auto w) { return parseNumber(w).has_value(); });
        if (numeric) {
            return row(words, number);
        }
        if (m_second) {
            return importError(m_src, number,
                               "the second result line of the run at line " + std::to_string(m_secondLine) +
                                   " is missing (cut short?): " + quoteLine(text));
        }
        if (contains(text, ",") && open()) {
            return csv(text, number);
        }
        header(text);
        return {};
    }

    bool open() const { return !m_runs.empty() && !m_runs.back().done; }

    Run& current(std::size_t number)
    {
        if (!open()) {
            m_runs.push_back({.line = number});  // no banner: -P 0
        }
        return m_runs.back();
    }

    // A column header line of the classic output: which shape of result follows.
    void header(std::string_view text)
    {
        if (!open()) {
            return;
        }
        auto& run = m_runs.back();
        if (text.rfind("Recv", 0) == 0 && contains(text, "Send")) {
            run.shape = Shape::Stream;
            run.cpu = contains(text, "Utilization");
        } else if (text.rfind("Socket", 0) == 0 && contains(text, "Messages")) {
            run.shape = Shape::UdpStream;
            run.cpu = contains(text, "CPU");
        } else if (text.rfind("Local /Remote", 0) == 0) {
            run.shape = Shape::RequestResponse;
        } else if (text.rfind("Socket Size", 0) == 0 && contains(text, "Request")) {
            run.shape = Shape::RequestResponse;
            run.cpu = contains(text, "CPU");
        } else if (text.rfind("bytes", 0) == 0 && run.shape != Shape::RequestResponse) {
            run.unit = unitOf(text);
        }
    }

    Result<void> row(const std::vector<std::string_view>& words, std::size_t number)
    {
        if (m_second) {
            return secondRow(words, number);
        }
        auto& run = current(number);
        const std::size_t n = words.size();
        if (run.shape == Shape::Unknown) {  // -P 0: the shape from the number of columns
            run.shape = n == 5 || n == 9 ? Shape::Stream : n == 8 ? Shape::UdpStream : Shape::RequestResponse;
            run.cpu = n == 9 || n == 8 || n == 10;
        }
        const std::size_t want = run.shape == Shape::Stream            ? (run.cpu ? 9 : 5)
                                 : run.shape == Shape::UdpStream       ? (run.cpu ? 8 : 6)
                                 : run.shape == Shape::RequestResponse ? (run.cpu ? 10 : 6)
                                                                       : 0;
        if (n != want) {
            return importError(m_src, number,
                               "a result line of " + std::to_string(n) + " numbers where the " + describe(run) +
                                   " has " + std::to_string(want) + ": " + quoteLine(joined(words)));
        }
        if (run.shape == Shape::Stream) {
            take(run, kStream, words, 0);
            if (run.cpu) {
                take(run, kCpu, words, 5);
            }
            run.done = true;
            return {};
        }
        m_first.assign(words.begin(), words.end());
        m_second = true;
        m_secondLine = number;
        return {};
    }

    // The second line of a UDP_STREAM result (the receiver's) or of a request/response one (the
    // remote socket sizes). Without headers, its length tells the two apart.
    Result<void> secondRow(const std::vector<std::string_view>& words, std::size_t number)
    {
        auto& run = m_runs.back();
        m_second = false;
        if (run.test.empty() && !run.cpu) {
            run.shape = words.size() == 4 ? Shape::UdpStream : Shape::RequestResponse;
        }
        const std::size_t want = run.shape == Shape::UdpStream ? (run.cpu ? 6 : 4) : 2;
        if (words.size() != want) {
            return importError(m_src, number,
                               "the " + describe(run) + "'s second result line has " + std::to_string(words.size()) +
                                   " numbers, not " + std::to_string(want) + ": " + quoteLine(joined(words)));
        }
        if (run.shape == Shape::UdpStream) {
            take(run, kUdpLocal, m_first, 0);
            if (run.cpu) {
                take(run, kUdpLocalCpu, m_first, 6);
            }
            take(run, kUdpRemote, words, 0);
            if (run.cpu) {
                take(run, kUdpRemoteCpu, words, 4);
            }
        } else {
            take(run, kRequestResponse, m_first, 0);
            if (run.cpu) {
                take(run, kCpu, m_first, 6);
            }
            take(run, kRemoteSockets, words, 0);
        }
        run.done = true;
        return {};
    }

    template <std::size_t N>
    static void take(Run& run, const Column (&columns)[N], const std::vector<std::string_view>& words, std::size_t at)
    {
        for (std::size_t c = 0; c < N; ++c) {
            const double value = *parseNumber(words[at + c]);
            run.read.emplace_back(columns[c].reading, value);
            if (*columns[c].quantity != '\0') {
                run.values.emplace_back(columns[c].quantity, value);
            }
        }
    }

    // -o: the first comma-separated line after the banner names the columns, the next holds the values.
    Result<void> csv(std::string_view text, std::size_t number)
    {
        std::vector<std::string> fields;
        std::size_t start = 0;
        while (start <= text.size()) {
            const auto end = std::min(text.find(',', start), text.size());
            fields.emplace_back(trim(text.substr(start, end - start)));
            start = end + 1;
        }
        if (m_csvHeader.empty()) {
            m_csvHeader = fields;
            return {};
        }
        if (fields.size() != m_csvHeader.size()) {
            return importError(m_src, number,
                               std::to_string(fields.size()) + " values under " + std::to_string(m_csvHeader.size()) +
                                   " -o columns: " + quoteLine(text));
        }
        auto& run = m_runs.back();
        run.shape = Shape::Omni;
        for (std::size_t f = 0; f < fields.size(); ++f) {
            NF_TRY(omniValue(run, m_csvHeader[f], fields[f], false, number));
        }
        run.done = true;
        m_csvHeader.clear();
        return {};
    }

    // -k: KEY=value lines, one run's selectors after its banner (or, with -P 0, until a key repeats).
    Result<void> keyValue(const std::string& key, const std::string& value, std::size_t number)
    {
        if (open() && m_runs.back().shape == Shape::Omni &&
            std::any_of(m_runs.back().read.begin(), m_runs.back().read.end(),
                        [&](const auto& r) { return r.first == key; })) {
            m_runs.back().done = true;  // the next run's selectors begin
        }
        auto& run = current(number);
        run.shape = Shape::Omni;
        return omniValue(run, key, value, true, number);
    }

    Result<void> omniValue(Run& run, const std::string& name, const std::string& text, bool selector,
                           std::size_t number)
    {
        if (name == (selector ? "THROUGHPUT_UNITS" : "Throughput Units")) {
            run.unit = text;
            return {};
        }
        const auto value = parseNumber(text);
        if (!value) {
            return {};  // a word (PROTOCOL=TCP, a command line): not a figure
        }
        run.read.emplace_back(name, *value);
        for (const auto& c : kOmni) {
            if (name == (selector ? c.selector : c.header)) {
                if (std::any_of(run.values.begin(), run.values.end(),
                                [&](const auto& v) { return v.first == c.quantity; })) {
                    return importError(m_src, number, name + " twice in one run");
                }
                run.values.emplace_back(c.quantity, *value);
            }
        }
        return {};
    }

    Result<void> closeRun()
    {
        if (m_second) {
            return importError(m_src, m_secondLine, "the result's second line is missing (cut short?)");
        }
        if (!m_runs.empty() && m_runs.back().shape == Shape::Omni && !m_runs.back().values.empty()) {
            m_runs.back().done = true;
        }
        if (open()) {
            return importError(m_src, m_runs.back().line,
                               "the netperf " + describe(m_runs.back()) +
                                   " has no result noisefloor reads (cut short, or -O columns: use -o or -k)");
        }
        return {};
    }

    static std::string describe(const Run& run) { return run.test.empty() ? "run" : run.test + " run"; }

    static std::string joined(const std::vector<std::string_view>& words)
    {
        std::string out;
        for (const auto w : words) {
            out += (out.empty() ? "" : " ") + std::string(w);
        }
        return out;
    }

    const ImportSource& m_src;
    std::vector<Run> m_runs;
    std::vector<std::string_view> m_first;  // the first line of a two-line result
    bool m_second = false;                  // its second line is due
    std::size_t m_secondLine = 0;
    std::vector<std::string> m_csvHeader;
    bool m_warned = false;
    bool m_confidence = false;
};

// The runs of one file must be runs of one test with the same columns.
Result<void> checkRuns(const ImportSource& src, const std::vector<Run>& runs)
{
    const auto& first = runs.front();
    for (const auto& run : runs) {
        if (run.test != first.test || run.shape != first.shape) {
            return importError(src, run.line,
                               "a " + (run.test.empty() ? std::string("netperf") : run.test) + " result after " +
                                   (first.test.empty() ? std::string("netperf") : first.test) + " results (line " +
                                   std::to_string(first.line) + "): import each test separately");
        }
        auto names = [](const Run& r) {
            std::vector<std::string> out;
            for (const auto& v : r.values) {
                out.push_back(v.first);
            }
            return out;
        };
        if (names(run) != names(first)) {
            return importError(src, run.line,
                               "its columns differ from those of the run at line " + std::to_string(first.line) +
                                   " (-c/-C or other selectors?): import them separately");
        }
    }
    return {};
}

// The table: every run's quantities with throughputs in Mbit/s, one sample per run.
Result<ImportTable> tableOf(const ImportSource& src, const std::vector<Run>& runs)
{
    ImportTable table;
    const auto& first = runs.front();
    for (const auto& q : kQuantities) {
        const auto has = [&](const auto& v) { return v.first == q.quantity; };
        if (std::none_of(first.values.begin(), first.values.end(), has)) {
            continue;
        }
        table.layout.quantities.emplace_back(q.quantity);
        if (*q.metric != '\0') {
            std::string unit = q.unit;
            if (std::string(q.quantity).find("sdem") != std::string::npos) {
                unit = first.shape == Shape::RequestResponse ? "us/Tr" : "us/KB";
            }
            table.layout.metrics.push_back(
                {q.metric, unit, q.quantity, "runs", 1.0, q.higherIsBetter, q.description, ""});
        }
    }
    if (table.layout.metrics.empty()) {
        return importError(src, first.line, "none of its netperf figures is one noisefloor compares");
    }
    table.layout.quantities.emplace_back("runs");
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const auto& run = runs[r];
        double factor = 1;
        if (!run.unit.empty() && run.unit != "Trans/s") {
            const auto per = megabitsPer(run.unit);
            if (!per) {
                return importError(src, run.line, "throughput in '" + run.unit + "', a unit noisefloor does not know");
            }
            factor = *per;
        }
        ImportSample sample;
        for (const auto& name : table.layout.quantities) {
            double value = name == "runs" ? 1.0 : std::nan("");
            for (const auto& [q, v] : run.values) {
                value = q == name ? v : value;
            }
            value *= contains(name, "throughput") ? factor : 1.0;
            sample.duration = name == "elapsed_s" ? value : sample.duration;
            sample.values.push_back(value);
        }
        const std::string prefix = r == 0 ? "" : "run " + std::to_string(r + 1) + " ";
        for (const auto& [key, value] : run.read) {
            table.read(prefix + key, value);
        }
        table.repetitions.push_back({std::move(sample)});
    }
    table.read("runs", static_cast<double>(runs.size()));
    return table;
}

bool requestResponse(const std::string& test)
{
    const auto endsWith = [&](std::string_view end) {
        return test.size() >= end.size() && test.compare(test.size() - end.size(), end.size(), end) == 0;
    };
    return endsWith("_RR") || endsWith("_CRR") || endsWith("_CC");
}

// An omni run's THROUGHPUT in Trans/s, or without units in a request/response test, is a
// transaction rate.
void rateFromThroughput(std::vector<Run>& runs)
{
    for (auto& run : runs) {
        if (run.shape == Shape::Omni && (run.unit == "Trans/s" || (run.unit.empty() && requestResponse(run.test)))) {
            for (auto& v : run.values) {
                v.first = v.first == "throughput" ? "transaction_rate" : v.first;
            }
        }
    }
}

Result<ImportTable> parseNetperf(const ImportSource& src, const ImportOptions& /*options*/)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not netperf output");
    }
    NetperfReader reader(src);
    auto runs = NF_TRY(reader.read());
    rateFromThroughput(runs);
    NF_TRY(checkRuns(src, runs));
    auto table = NF_TRY(tableOf(src, runs));
    const auto& first = runs.front();
    const std::string test = first.test.empty() ? std::string("test without banner (-P 0)") : first.test;
    table.tool = "netperf" + (first.test.empty() ? std::string() : " " + first.test);
    table.detected = "netperf " + test +
                     (first.shape == Shape::Omni ? std::string(", omni selectors") : std::string()) +
                     (first.cpu ? ", with CPU utilization" : "") + ", " + std::to_string(runs.size()) + " run" +
                     (runs.size() == 1 ? "" : "s");
    if (first.unit.empty() && (first.shape == Shape::Stream || first.shape == Shape::UdpStream)) {
        table.notes.emplace_back("no column headers (-P 0): the throughput is read as 10^6bits/s, netperf's default");
    } else if (first.unit.empty() && table.layout.quantityIndex("throughput") >= 0) {
        table.notes.emplace_back("THROUGHPUT without THROUGHPUT_UNITS: read as 10^6bits/s, netperf's default");
    }
    if (reader.confidence()) {
        table.notes.emplace_back("netperf ran each test until its confidence interval (-i/-I) was reached");
    }
    if (reader.warned()) {
        table.notes.emplace_back("netperf warned that it did not reach the confidence it was asked for (!!! WARNING)");
    }
    return checkedTable(src, std::move(table));
}

int detectNetperf(std::string_view text)
{
    if (containsAll(text, {"THROUGHPUT=", "THROUGHPUT_UNITS="})) {
        return detection::kMarked;
    }
    if (!containsAny(text, {" TEST from ", " TEST to ", " TEST\n"})) {
        return detection::kNotIt;
    }
    for (const auto line : splitLines(text)) {
        if (bannerTest(line)) {
            return detection::kMarked;
        }
    }
    return detection::kNotIt;
}

}  // namespace

ImportFormat importers::netperf()
{
    return {
        .name = "netperf",
        .tools = {"netperf"},
        .summary =
            "netperf TCP_STREAM, UDP_STREAM, TCP_RR, TCP_CRR, UDP_RR results (-P 1 or -P 0, -c/-C), "
            "omni -o CSV and -k selectors; one repetition per run",
        .detect = detectNetperf,
        .parse = parseNetperf,
        .dictionary = {"MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to ",
                       "MIGRATED TCP REQUEST/RESPONSE TEST from ",
                       "MIGRATED UDP STREAM TEST from ",
                       " : first burst 0",
                       "Recv   Send    Send",
                       "Socket Socket  Message  Elapsed",
                       "Size   Size    Size     Time     Throughput",
                       "bytes  bytes   bytes    secs.    10^6bits/sec",
                       "Utilization       Service Demand",
                       "Socket  Message  Elapsed      Messages",
                       "Local /Remote",
                       "Socket Size   Request  Resp.   Elapsed  Trans.",
                       "CPU    CPU    S.dem   S.dem",
                       "MBytes  /s",
                       "10^9bits/s",
                       "Trans/s",
                       "!!! WARNING",
                       "THROUGHPUT=",
                       "THROUGHPUT_UNITS=",
                       "Mean Latency Microseconds",
                       "Transaction Rate Tran/s",
                       ",",
                       "16384  87380  1        1       60.00    58764.13",
                       "16384  87380"},
    };
}

}  // namespace nf::engine
