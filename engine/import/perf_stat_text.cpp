// perf stat's human-readable output. A block starts at "Performance counter stats for ..." (or
// the "#  time  counts unit events" header of -I) and ends at "seconds time elapsed" (and the
// user/sys lines after it). Inside a block every line must be understood: a counter line, a "#"
// continuation of the line above (a second metric, perf >= 6.5's TopdownL1/L2 groups), the tail
// of a line a mail client wrapped, a note perf prints. Text around blocks is not read.
// A block pasted without its header starts at its first counter line, and is one only if every
// line up to a "seconds time elapsed" line is understood: until then it is text that might be one.

#include <regex>

#include "engine/import/perf_stat_blocks.h"

namespace nf::engine::perf {
namespace {

class TextParser {
public:
    TextParser(const ImportSource& src, Numbers& numbers) : m_src(src), m_num(numbers) {}

    Result<std::vector<Block>> parse()
    {
        const auto lines = splitLines(m_src.text);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (auto r = line(lines[i], i + 1); !r) {
                if (!m_open || !m_block.headerless || m_block.complete) {
                    return r.error();
                }
                m_open = false;  // not a block after all: the lines were text that looked like one
                if (m_broken == 0) {
                    m_broken = i + 1;
                    m_brokenText = quoteLine(trim(lines[i]));
                }
                NF_TRY(outside(trim(lines[i]), i + 1));
            }
            if (m_open && !trim(lines[i]).empty()) {
                m_block.lastLine = i + 1;
            }
        }
        if (m_open) {
            NF_TRY(close(lines.size()));
        }
        return std::move(m_blocks);
    }

private:
    Result<void> line(std::string_view raw, std::size_t number)
    {
        const auto text = trim(raw);
        if (text.find("Performance counter stats for") != std::string_view::npos) {
            if (m_open) {
                if (auto r = close(number); !r) {
                    return r;
                }
            }
            return header(text, number);
        }
        if (text.find("counts unit events") != std::string_view::npos && text.front() == '#') {
            if (m_open) {
                if (auto r = close(number); !r) {
                    return r;
                }
            }
            open(number, "text");
            m_block.interval = true;
            return {};
        }
        if (!m_open) {
            return outside(text, number);
        }
        if (text.empty()) {
            return {};
        }
        if (m_block.complete) {
            return afterElapsed(text, number);
        }
        if (m_block.interval) {
            return intervalLine(text, number);
        }
        return inside(text, number);
    }

    // Outside a block a counter line may start a block pasted without its header; the first such
    // line is remembered for the error when no block is found.
    Result<void> outside(std::string_view text, std::size_t number)
    {
        const auto words = splitWords(text);
        if (words.size() >= 2 && looksNumeric(words[0]) && text.find('#') != std::string_view::npos &&
            (isUnit(words[1]) || words.size() >= 3)) {
            m_headerless = m_headerless == 0 ? number : m_headerless;
            open(number, "text");
            m_block.headerless = true;
            if (!counter(text, number)) {
                m_open = false;
            }
        }
        return {};
    }

    Result<void> header(std::string_view text, std::size_t number)
    {
        open(number, "text");
        static const std::regex re(R"(Performance counter stats for (.*?)(\s*\((\d+) runs\))?:?\s*$)");
        std::match_results<std::string_view::const_iterator> m;
        if (std::regex_search(text.begin(), text.end(), m, re)) {
            m_block.command = m[1].str();
            if (m[3].matched) {
                auto n = parseNumber(m[3].str());
                if (!n || *n < 1 || *n > 100000) {
                    return importError(m_src, number, "'(" + m[3].str() + " runs)': expected 1 to 100000 runs");
                }
                m_block.runs = static_cast<int>(*n);
                m_block.summary = m_block.runs > 1;
            }
        }
        return {};
    }

    void open(std::size_t number, const char* layout)
    {
        m_block = Block{};
        m_block.layout = layout;
        m_block.line = number;
        m_open = true;
        m_group.clear();
        m_last = Last::None;
    }

    Result<void> close(std::size_t number)
    {
        m_open = false;
        m_block.endLine = number;
        if (m_block.interval) {
            m_block.complete = !m_block.counts.empty();
        }
        if (!m_block.complete && m_block.headerless) {
            return {};  // counter lines with neither header nor elapsed line: text, not a block
        }
        if (!m_block.complete) {
            const std::size_t at = m_block.counts.empty() ? m_block.line : m_block.counts.back().line;
            return importError(m_src, at,
                               "the perf stat block that starts at line " + std::to_string(m_block.line) +
                                   " ends without its 'seconds time elapsed' line (truncated?)");
        }
        m_blocks.push_back(std::move(m_block));
        if (m_blocks.size() > kMaxImportRepetitions) {
            return importError(m_src, number,
                               "more than " + std::to_string(kMaxImportRepetitions) +
                                   " perf stat runs in one import: import them in parts");
        }
        return {};
    }

    Result<void> afterElapsed(std::string_view text, std::size_t number)
    {
        const auto words = splitWords(text);
        if (words.size() == 3 && words[1] == "seconds" && (words[2] == "user" || words[2] == "sys")) {
            auto v = NF_TRY(m_num.read(words[0], number, NumberKind::Decimal, "time"));
            (words[2] == "user" ? m_block.user : m_block.sys) = v;
            return {};
        }
        if (isPerfNote(text)) {
            return {};
        }
        return close(number);  // the text after the block
    }

    Result<void> inside(std::string_view text, std::size_t number)
    {
        if (text.find("seconds time elapsed") != std::string_view::npos) {
            return elapsed(text, number);
        }
        if (isPerfNote(text)) {
            return {};
        }
        if (text.front() == '#') {
            return continuation(text.substr(1), number);
        }
        const auto hash = text.find('#');
        const auto before = trim(text.substr(0, hash));
        static const std::regex group(R"([A-Za-z][A-Za-z0-9_]*( \([A-Za-z0-9_]+\))?)");
        if (hash != std::string_view::npos && std::regex_match(std::string(before), group) && !isMissing(before)) {
            m_group = std::string(before);
            m_groupNames.clear();
            m_unlabelled = false;
            return groupMetric(text.substr(hash + 1), number);
        }
        if (auto c = counter(text, number); c) {
            return {};
        } else if (m_last != Last::None && text.find_first_of("0123456789#") == std::string_view::npos &&
                   m_lastHadMetric) {
            // The tail of a comment a mail client wrapped onto its own line ("utilized").
            auto& metrics = m_block.counts.back().metrics;
            if (!metrics.empty()) {
                metrics.front().first += " " + std::string(text);
            }
            m_lastHadMetric = false;
            return {};
        } else {
            return c.error();
        }
    }

    Result<void> elapsed(std::string_view text, std::size_t number)
    {
        Noise n;
        auto rest = NF_TRY(noise(m_num, text, number, n));
        const auto words = splitWords(rest);
        if (words.size() < 4 || words[words.size() - 3] != "seconds") {
            return importError(m_src, number, "unreadable elapsed time " + quoteLine(text));
        }
        auto v = NF_TRY(m_num.read(words[0], number, NumberKind::Decimal, "elapsed time"));
        m_block.elapsed = v;
        if (words.size() == 6 && words[1] == "+-") {
            auto se = NF_TRY(m_num.read(words[2], number, NumberKind::Decimal, "elapsed time's +-"));
            m_block.elapsedSe = se;
        } else if (words.size() != 4) {
            return importError(m_src, number, "unreadable elapsed time " + quoteLine(text));
        }
        m_block.elapsedNoisePct = n.noisePct;
        m_block.complete = true;
        return {};
    }

    Result<void> groupMetric(std::string_view text, std::size_t number)
    {
        Noise n;
        auto m = NF_TRY(metricWithNoise(m_num, text, number, n));
        if (std::find(m_groupNames.begin(), m_groupNames.end(), m.first) != m_groupNames.end()) {
            // perf >= 6.5 on hybrid CPUs can print the second PMU's group without its label line.
            auto other = otherPmu();
            if (m_unlabelled || other.empty()) {
                return importError(m_src, number,
                                   "metric " + m.first + " repeats in group " + m_group +
                                       " and no label names the group it belongs to");
            }
            const auto paren = m_group.find(" (");
            m_group = m_group.substr(0, paren) + " (" + other + ")";
            m_groupNames.clear();
            m_unlabelled = true;
        }
        m_groupNames.push_back(m.first);
        m_block.groupMetrics.push_back({m_group, m.first, m.second, n.runningPct, number});
        m_last = Last::Group;
        return {};
    }

    // The hybrid PMU (cpu_core, cpu_atom) the events name that no group label of this level has.
    std::string otherPmu() const
    {
        const auto paren = m_group.find(" (");
        if (paren == std::string::npos) {
            return "";
        }
        const auto level = m_group.substr(0, paren);
        for (const auto& c : m_block.counts) {
            const auto slash = c.event.find('/');
            if (slash == std::string::npos || slash == 0) {
                continue;
            }
            auto pmu = c.event.substr(0, slash);
            const bool labelled =
                std::any_of(m_block.groupMetrics.begin(), m_block.groupMetrics.end(),
                            [&](const GroupMetric& g) { return g.group == level + " (" + pmu + ")"; });
            if (!labelled) {
                return pmu;
            }
        }
        return "";
    }

    Result<void> continuation(std::string_view text, std::size_t number)
    {
        if (m_last == Last::Group) {
            return groupMetric(text, number);
        }
        if (m_last != Last::Count) {
            return importError(m_src, number, "a '#' line without the counter it continues: " + quoteLine(text));
        }
        Noise n;
        auto m = NF_TRY(metricWithNoise(m_num, text, number, n));
        auto& c = m_block.counts.back();
        c.continuation.push_back(m);
        if (!std::isnan(n.noisePct)) {
            c.noisePct = n.noisePct;
        }
        if (!std::isnan(n.runningPct)) {
            c.runningPct = n.runningPct;
        }
        return {};
    }

    Result<void> counter(std::string_view text, std::size_t number, int interval = -1)
    {
        Count c;
        c.line = number;
        c.interval = interval;
        const auto hash = text.find('#');
        Noise n;
        auto body = NF_TRY(noise(m_num, hash == std::string_view::npos ? text : text.substr(0, hash), number, n));
        std::string_view comment = hash == std::string_view::npos ? std::string_view() : text.substr(hash + 1);
        if (!comment.empty()) {
            auto rest = NF_TRY(noise(m_num, comment, number, n));
            comment = rest;
        }
        c.noisePct = n.noisePct;
        c.runningPct = n.runningPct;
        std::string_view t = trim(body);
        auto words = splitWords(t);
        std::size_t w = 0;
        bool aggregate = false;
        if (!words.empty() && isScope(words[0], aggregate)) {
            c.scope = std::string(words[0]);
            ++w;
            if (aggregate) {
                if (w >= words.size()) {
                    return importError(m_src, number, "not a perf stat counter line: " + quoteLine(text));
                }
                auto cpus = NF_TRY(m_num.read(words[w], number, NumberKind::Integer, "CPU count"));
                c.cpus = cpus;
                ++w;
            }
        }
        if (w < words.size() && words[w].front() == '<') {
            const auto rest = t.substr(static_cast<std::size_t>(words[w].data() - t.data()));
            const auto close = rest.find('>');
            if (close == std::string_view::npos || !isMissing(rest.substr(0, close + 1))) {
                return importError(m_src, number, "not a perf stat counter line: " + quoteLine(text));
            }
            c.missing = std::string(rest.substr(0, close + 1));
            words = splitWords(rest.substr(close + 1));
            w = 0;
        } else {
            std::string grouped;  // "173 719 355 962": the value without its space separators
            std::size_t took = 1;
            if (w < words.size()) {
                if (auto g = spaceGrouped(words, w)) {
                    grouped = g->first;
                    took = g->second;
                }
            }
            const std::string_view value = !grouped.empty()   ? std::string_view(grouped)
                                           : w < words.size() ? words[w]
                                                              : std::string_view();
            if (!looksNumeric(value)) {
                return importError(m_src, number, "not a perf stat counter line: " + quoteLine(text));
            }
            const bool unit =
                std::any_of(words.begin() + static_cast<std::ptrdiff_t>(w + took), words.end(), [](std::string_view x) {
                    return isUnit(x) || (x.size() > 2 && x.front() == '(' && isUnit(x.substr(1, x.size() - 2)));
                });
            auto v =
                NF_TRY(m_num.read(value, number, unit ? NumberKind::Either : NumberKind::Integer, "counter value"));
            c.value = v;
            w += took;
        }
        if (w < words.size() && isUnit(words[w]) && w + 1 < words.size()) {
            c.unit = std::string(words[w]);
            ++w;
        }
        if (w >= words.size()) {
            return importError(m_src, number, "a counter line without its event: " + quoteLine(text));
        }
        c.event = std::string(words[w++]);
        if (c.unit.empty() && c.event.ends_with("-msecs")) {
            c.unit = "msec";  // perf of 2009-2010 named the unit in the event: "task-clock-msecs"
        }
        for (; w < words.size(); ++w) {
            const auto word = words[w];
            if (word.size() > 2 && word.front() == '(' && word.back() == ')' &&
                isUnit(word.substr(1, word.size() - 2))) {
                c.unit = std::string(word.substr(1, word.size() - 2));  // old "task-clock (msec)"
            } else if (word.front() == '[' && word.back() == ']') {
                c.event += " " + std::string(word);  // the PMU of an uncore event
            } else {
                return importError(m_src, number, "not a perf stat counter line: " + quoteLine(text));
            }
        }
        m_lastHadMetric = false;
        if (!trim(comment).empty()) {
            auto m = NF_TRY(metric(m_num, comment, number));
            c.metrics.push_back(m);
            m_lastHadMetric = true;
        }
        m_block.counts.push_back(std::move(c));
        m_last = Last::Count;
        return {};
    }

    Result<void> intervalLine(std::string_view text, std::size_t number)
    {
        const auto words = splitWords(text);
        if (text.front() == '#') {
            return continuation(text.substr(1), number);
        }
        if (words.size() < 3 || !looksNumeric(words[0])) {
            return close(number);  // the end of the -I lines
        }
        const std::string stamp(words[0]);
        if (m_block.intervalText.empty() || m_block.intervalText.back() != stamp) {
            auto ts = NF_TRY(m_num.read(words[0], number, NumberKind::PointDecimal, "interval time"));
            m_block.intervals.push_back(ts);
            m_block.intervalText.push_back(stamp);
        }
        const auto rest = text.substr(static_cast<std::size_t>(words[1].data() - text.data()));
        return counter(rest, number, static_cast<int>(m_block.intervals.size() - 1));
    }

    enum class Last { None, Count, Group };

    const ImportSource& m_src;
    Numbers& m_num;
    std::vector<Block> m_blocks;
    Block m_block;
    bool m_open = false;
    std::string m_group;
    std::vector<std::string> m_groupNames;
    bool m_unlabelled = false;
    Last m_last = Last::None;
    bool m_lastHadMetric = false;
    std::size_t m_headerless = 0;
    std::size_t m_broken = 0;  // the first line that showed counter lines without a header were no block
    std::string m_brokenText;

public:
    std::size_t headerless() const { return m_headerless; }
    // Why the counter lines without a header were no block: what is missing, or the line that broke them off.
    std::string headerlessReason() const
    {
        if (m_broken != 0) {
            return "perf stat counter lines without their 'Performance counter stats for' header, broken off at line " +
                   std::to_string(m_broken) + " (" + m_brokenText +
                   ") before a 'seconds time elapsed' line: the block cannot be told from other text";
        }
        return contains(m_src.text, "seconds time elapsed")
                   ? "perf stat counter lines without their 'Performance counter stats for' header, and their "
                     "'seconds time elapsed' line not after them: the block cannot be told from other text"
                   : "perf stat counter lines without their 'Performance counter stats for' header and without "
                     "their 'seconds time elapsed' line (pasted without them?): the block cannot be told from "
                     "other text";
    }
};

}  // namespace

Result<std::vector<Block>> parseTextBlocks(const ImportSource& src, Numbers& numbers)
{
    TextParser parser(src, numbers);
    auto blocks = parser.parse();
    if (blocks && blocks->empty() && parser.headerless() != 0) {
        return importError(src, parser.headerless(), parser.headerlessReason());
    }
    return blocks;
}

}  // namespace nf::engine::perf
