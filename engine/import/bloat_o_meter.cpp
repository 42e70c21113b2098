#include "engine/import/bloat_o_meter.h"

#include <charconv>
#include <limits>
#include <regex>

namespace nf::engine {

namespace {

using Match = std::match_results<std::string_view::const_iterator>;

// print("add/remove: %s/%s grow/shrink: %s/%s up/down: %s/%s (%s)" % (add, remove, grow, shrink,
// up, -down, up-down)).
const std::regex& summaryPattern()
{
    static const std::regex re(
        R"(^add/remove: (\d+)/(\d+) grow/shrink: (\d+)/(\d+) up/down: (\d+)/(-?\d+) \((-?\d+)\)$)");
    return re;
}

// print("Total: Before=%d, After=%d, chg %+.2f%%" % (otot, ntot, percent)).
const std::regex& totalPattern()
{
    static const std::regex re(R"(^Total: Before=(\d+), After=(\d+), chg [+-]?\d+(\.\d+)?%$)");
    return re;
}

// More bytes than any build's symbols add up to: a figure beyond it is no size, and sums of sizes
// below it cannot overflow, whatever the file's length.
constexpr std::int64_t kMostBytes = 1'000'000'000'000;

std::optional<std::int64_t> integer(std::string_view text)
{
    std::int64_t v = 0;
    const bool sign = !text.empty() && text.front() == '+';  // from_chars takes '-' only
    const auto digits = text.substr(sign ? 1 : 0);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || (sign && v < 0) ||
        v > kMostBytes || v < -kMostBytes) {
        return std::nullopt;
    }
    return v;
}

// Group `i` of a match as an integer; -1 when it is out of range.
std::int64_t matched(const Match& m, int i)
{
    return integer(std::string_view(m[i].first, m[i].second)).value_or(-1);
}

// "Function old new delta": the title, or "" when the line is not a header.
std::string headerTitle(std::string_view line)
{
    const auto words = splitWords(line);
    if (words.size() < 4 || words[words.size() - 3] != "old" || words[words.size() - 2] != "new" ||
        words.back() != "delta") {
        return "";
    }
    std::string title;
    for (std::size_t i = 0; i + 3 < words.size(); ++i) {
        title += (title.empty() ? "" : " ") + std::string(words[i]);
    }
    return title;
}

// print("%-40s %7s %7s %+7d" % (n, old.get(n, "-"), new.get(n, "-"), d)).
std::optional<CodeSizeRow> row(std::string_view line, std::int64_t& delta)
{
    const auto words = splitWords(line);
    if (words.size() != 4 || (words[1] == "-" && words[2] == "-")) {
        return std::nullopt;
    }
    CodeSizeRow r{std::string(words[0]), std::nullopt, std::nullopt};
    for (const auto& [word, side] : {std::pair{words[1], &r.oldBytes}, std::pair{words[2], &r.newBytes}}) {
        if (word != "-") {
            *side = integer(word);
            if (!*side || word.front() == '+' || **side < 0) {
                return std::nullopt;
            }
        }
    }
    const auto d = integer(words[3]);
    if (!d || (words[3].front() != '+' && words[3].front() != '-')) {
        return std::nullopt;
    }
    delta = *d;
    return r;
}

// The summary line's figures; `what` says why a line that starts like one is not.
std::optional<CodeSizeSection> summary(std::string_view line, std::string& what)
{
    Match m;
    if (!std::regex_match(line.begin(), line.end(), m, summaryPattern())) {
        what = "a summary line that does not parse: " + quoteLine(line);
        return std::nullopt;
    }
    CodeSizeSection s;
    s.title.clear();
    const auto count = [&](int i) {
        const auto v = matched(m, i);
        return v <= std::numeric_limits<int>::max() ? static_cast<int>(v) : -1;
    };
    s.added = count(1);
    s.removed = count(2);
    s.grown = count(3);
    s.shrunk = count(4);
    s.up = matched(m, 5);
    s.down = -matched(m, 6);
    if (s.added < 0 || s.removed < 0 || s.grown < 0 || s.shrunk < 0 || s.up < 0 || s.down < 0) {
        what = "a figure out of range in " + quoteLine(line);
        return std::nullopt;
    }
    if (matched(m, 7) != s.up - s.down) {
        what = "the summary's (" + std::to_string(matched(m, 7)) +
               ") is not up - down = " + std::to_string(s.up - s.down) + ": not bloat-o-meter's line";
        return std::nullopt;
    }
    return s;
}

// Whether the rows account for every change the summary line counts (they do unless cut).
bool complete(const CodeSizeSection& s)
{
    CodeSizeSection fromRows;
    for (const auto& r : s.rows) {
        const auto d = r.delta();
        fromRows.added += r.oldBytes ? 0 : 1;
        fromRows.removed += r.newBytes ? 0 : 1;
        fromRows.grown += r.oldBytes && r.newBytes && d > 0 ? 1 : 0;
        fromRows.shrunk += r.oldBytes && r.newBytes && d < 0 ? 1 : 0;
        fromRows.up += d > 0 ? d : 0;
        fromRows.down += d < 0 ? -d : 0;
    }
    return fromRows.added == s.added && fromRows.removed == s.removed && fromRows.grown == s.grown &&
           fromRows.shrunk == s.shrunk && fromRows.up == s.up && fromRows.down == s.down;
}

// Why a file has no summary line: quoted by a mail ("> add/remove: ..."), or not the script's.
Error notBloatOMeter(const ImportSource& src, const std::vector<std::string_view>& lines)
{
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto at = lines[i].find("add/remove: ");
        if (at != std::string_view::npos && at > 0 &&
            lines[i].substr(0, at).find_first_not_of(">| \t") == std::string_view::npos &&
            trim(lines[i].substr(0, at)).size() > 0) {
            return importError(src, i + 1,
                               "bloat-o-meter output quoted with '" + std::string(trim(lines[i].substr(0, at))) +
                                   "' (a mail's quoting): remove the quoting and import it again");
        }
    }
    return importError(src, 0,
                       "not bloat-o-meter output (no 'add/remove: A/R grow/shrink: G/S up/down: U/-D (T)' line)");
}

}  // namespace

Result<BloatOMeterImport> parseBloatOMeter(const ImportSource& src)
{
    if (const auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not bloat-o-meter output");
    }
    enum class Expect { Summary, Header, Rows, AfterTotal };
    Expect expect = Expect::Summary;
    BloatOMeterImport out;
    std::vector<bool> cut;  // per section: "..." where an author left rows out
    std::size_t summaryLine = 0;
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto text = trim(lines[i]);
        const std::size_t n = i + 1;
        if (text.rfind("add/remove:", 0) == 0) {
            if (expect == Expect::Header) {
                return importError(src, n,
                                   "a summary line where the table's header (NAME old new delta) of line " +
                                       std::to_string(summaryLine) + "'s table belongs");
            }
            std::string what;
            auto s = summary(text, what);
            if (!s) {
                return importError(src, n, what);
            }
            out.diff.sections.push_back(std::move(*s));
            cut.push_back(false);
            summaryLine = n;
            expect = Expect::Header;
            continue;
        }
        if (expect == Expect::Summary || text.empty()) {
            continue;  // before the output: a command line, a title; blank lines between its tables
        }
        auto& section = out.diff.sections.back();
        if (expect == Expect::Header) {
            section.title = headerTitle(text);
            if (section.title.empty()) {
                return importError(
                    src, n,
                    "the summary line " + std::to_string(summaryLine) +
                        " is not followed by the table's header (NAME old new delta): " + quoteLine(text));
            }
            for (std::size_t k = 0; k + 1 < out.diff.sections.size(); ++k) {
                if (out.diff.sections[k].title == section.title) {
                    return importError(src, n,
                                       "a second '" + section.title +
                                           "' table: two outputs of bloat-o-meter in one file; import each "
                                           "on its own");
                }
            }
            expect = Expect::Rows;
            continue;
        }
        if (expect == Expect::AfterTotal) {
            return importError(src, n, "after the total, only another table's summary line: " + quoteLine(text));
        }
        if (text == "...") {
            cut.back() = true;
            continue;
        }
        if (text.rfind("Total:", 0) == 0) {
            Match m;
            if (!std::regex_match(text.begin(), text.end(), m, totalPattern())) {
                return importError(src, n, "a total line that does not parse: " + quoteLine(text));
            }
            section.before = matched(m, 1);
            section.after = matched(m, 2);
            if (*section.before < 0 || *section.after < 0) {
                return importError(src, n, "a figure out of range in " + quoteLine(text));
            }
            if (*section.after - *section.before != section.net()) {
                return importError(src, n,
                                   "After - Before is not the summary's up - down (" + std::to_string(section.net()) +
                                       "): not bloat-o-meter's total");
            }
            expect = Expect::AfterTotal;
            continue;
        }
        std::int64_t delta = 0;
        auto r = row(text, delta);
        if (!r) {
            return importError(src, n, "not a row of bloat-o-meter's table (NAME OLD NEW DELTA): " + quoteLine(text));
        }
        if (r->delta() != delta) {
            return importError(src, n,
                               "the delta " + std::string(splitWords(text)[3]) + " is not new - old (" +
                                   std::to_string(r->delta()) + "): " + quoteLine(text));
        }
        section.rows.push_back(std::move(*r));
    }
    if (out.diff.sections.empty()) {
        return notBloatOMeter(src, lines);
    }
    if (expect == Expect::Header) {
        return importError(src, summaryLine,
                           "the summary line is not followed by the table's header "
                           "(NAME old new delta)");
    }
    for (std::size_t k = 0; k < out.diff.sections.size(); ++k) {
        const auto& s = out.diff.sections[k];
        if (cut[k] || !complete(s)) {
            out.notes.push_back("the '" + s.title + "' table lists " + std::to_string(s.rows.size()) + " of its " +
                                std::to_string(s.added + s.removed + s.grown + s.shrunk) +
                                " changed symbols (cut in the source): its summary line's figures are kept");
        }
    }
    return out;
}

bool looksLikeBloatOMeter(const std::string& text)
{
    const auto lines = splitLines(text);
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        const auto line = trim(lines[i]);
        if (std::regex_match(line.begin(), line.end(), summaryPattern())) {
            return !headerTitle(trim(lines[i + 1])).empty();
        }
    }
    return false;
}

}  // namespace nf::engine
