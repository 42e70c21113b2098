// The fields of perf stat's text lines: numbers, event scopes, units, the "( +- 0.51% )" noise and
// "(54.18%)" counted share at the end of a line, and the metric after a "#".

#include <algorithm>
#include <regex>

#include "engine/import/perf_stat_blocks.h"

namespace nf::engine::perf {

bool looksNumeric(std::string_view token)
{
    if (token.empty()) {
        return false;
    }
    bool digit = false;
    for (std::size_t i = 0; i < token.size(); ++i) {
        const char c = token[i];
        if (c >= '0' && c <= '9') {
            digit = true;
        } else if (c != '.' && c != ',' && !((c == '-' || c == '+') && i == 0) && !(c == 'e' && i > 0 && digit)) {
            return false;
        }
    }
    return digit;
}

namespace {

bool digits(std::string_view text, std::size_t n)
{
    return text.size() == n && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<std::pair<std::string, std::size_t>> spaceGrouped(const std::vector<std::string_view>& words,
                                                                std::size_t w)
{
    // The groups of words[w] split at U+202F and U+00A0, then the words after it that are groups.
    std::vector<std::string> groups;
    std::string token(words[w]);
    for (const std::string_view sep : {"\u202F", "\u00A0"}) {
        for (auto at = token.find(sep); at != std::string::npos; at = token.find(sep, at + 1)) {
            token.replace(at, sep.size(), " ");
        }
    }
    for (const auto g : splitWords(token)) {
        groups.emplace_back(g);
    }
    std::size_t took = 1;
    const auto open = [&] {  // the number so far ends with a whole group: another may follow
        return groups.size() == 1 ? !groups.front().empty() && groups.front().size() <= 3 &&
                                        digits(groups.front(), groups.front().size())
                                  : digits(groups.back(), 3);
    };
    while (w + took < words.size() && !groups.empty() && open() &&
           words[w + took].find_first_not_of("0123456789.,") == std::string_view::npos && words[w + took].size() >= 3 &&
           digits(words[w + took].substr(0, 3), 3) &&
           (words[w + took].size() == 3 || words[w + took][3] == '.' || words[w + took][3] == ',')) {
        groups.emplace_back(words[w + took]);
        ++took;
        if (groups.back().size() > 3) {
            break;  // the decimals end the number
        }
    }
    if (groups.size() < 2 || groups.front().empty() || groups.front().size() > 3 ||
        !digits(groups.front(), groups.front().size())) {
        return std::nullopt;
    }
    std::string joined;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const auto& g = groups[i];
        const bool last = i + 1 == groups.size();
        if (i > 0 && !digits(std::string_view(g).substr(0, 3), 3)) {
            return std::nullopt;
        }
        if (i > 0 && !last && g.size() != 3) {
            return std::nullopt;
        }
        if (last && g.size() > 3 && (g.size() < 5 || g.find_first_not_of("0123456789", 4) != std::string::npos)) {
            return std::nullopt;
        }
        joined += g;
    }
    return std::pair{joined, took};
}

bool isMissing(std::string_view token)
{
    return token == "<not supported>" || token == "<not counted>";
}

bool isScope(std::string_view word, bool& aggregate)
{
    static const std::regex cpu(R"(CPU\d+)");
    static const std::regex agg(R"((S\d+(-D\d+)?(-C\d+|-L\d+|-T\d+)?)|N\d+)");
    const std::string w(word);
    if (std::regex_match(w, cpu)) {
        aggregate = false;
        return true;
    }
    if (std::regex_match(w, agg)) {
        aggregate = true;
        return true;
    }
    return false;
}

Result<double> Numbers::read(std::string_view token, std::size_t line, NumberKind kind, const char* what)
{
    if (kind == NumberKind::PointDecimal) {
        if (const auto value = parseNumber(token)) {
            return voting() ? 0.0 : *value;
        }
        kind = NumberKind::Decimal;  // not as the tool prints it: read in the file's style
    }
    if (m_style == nullptr) {
        if (!looksNumeric(token)) {
            return importError(m_src, line, std::string(what) + " '" + std::string(token) + "' is not a number");
        }
        m_vote.see(token, line, kind);
        return 0.0;
    }
    NumberStyle style = *m_style;
    if (kind == NumberKind::Decimal) {
        style.group = 0;
    }
    auto value = parseStyled(token, style);
    if (!value) {
        return importError(
            m_src, line,
            std::string(what) + " '" + std::string(token) + "' is not a number in the file's " + m_style->name());
    }
    return *value;
}

bool isUnit(std::string_view word)
{
    static const std::vector<std::string_view> units = {"msec", "usec",   "nsec", "sec", "ns",    "us",  "ms",
                                                        "s",    "Joules", "MiB",  "kB",  "bytes", "GiB", "W"};
    return std::find(units.begin(), units.end(), word) != units.end();
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

// Lines perf itself prints inside a block that carry no value.
bool isPerfNote(std::string_view text)
{
    static const std::vector<std::string_view> notes = {
        "Some events weren't counted", "echo 0 > /proc/sys/kernel/nmi_watchdog", "perf stat ...",
        "The events in group usually have to be from the same PMU", "Try reorganizing the group."};
    return std::any_of(notes.begin(), notes.end(), [&](std::string_view n) { return startsWith(text, n); });
}

// "( +- 0.51% )" and "(54.18%)" at the end of a line; returns the text before them.
Error Numbers::error(std::size_t line, const std::string& text) const
{
    return importError(m_src, line, text);
}

Result<std::string_view> noise(Numbers& num, std::string_view text, std::size_t number, Noise& out)
{
    for (;;) {
        text = trim(text);
        if (text.empty() || text.back() != ')') {
            return text;
        }
        const auto open = text.rfind('(');
        if (open == std::string_view::npos) {
            return text;
        }
        auto inner = trim(text.substr(open + 1, text.size() - open - 2));
        const bool plusMinus = startsWith(inner, "+-");
        if (plusMinus) {
            inner = trim(inner.substr(2));
        }
        if (inner.empty() || inner.back() != '%' || !looksNumeric(inner.substr(0, inner.size() - 1))) {
            return text;  // "(msec)", "(cpu_core)": not a percentage
        }
        auto v = NF_TRY(num.read(inner.substr(0, inner.size() - 1), number, NumberKind::Decimal, "percentage"));
        if (plusMinus && v < 0) {  // perf stat prints the relative standard deviation, never below 0
            return num.error(number, "+- " + std::string(inner) + ": a negative relative standard deviation");
        }
        (plusMinus ? out.noisePct : out.runningPct) = v;
        text = text.substr(0, open);
    }
}

// A metric after its noise and counted share are taken off: "2.76 insn per cycle  ( +- 0.10% )".
Result<std::pair<std::string, double>> metricWithNoise(Numbers& num, std::string_view text, std::size_t number,
                                                       Noise& n)
{
    auto rest = NF_TRY(noise(num, text, number, n));
    return metric(num, rest, number);
}

// "2.993 GHz", "0.19% of all branches", "nan %  tma_backend_bound".
Result<std::pair<std::string, double>> metric(Numbers& num, std::string_view text, std::size_t number)
{
    const auto words = splitWords(text);
    if (words.empty()) {
        return std::pair<std::string, double>{"", kNaN};
    }
    std::string_view first = words[0];
    std::string name;
    bool pct = false;
    if (first.size() > 1 && first.back() == '%') {
        first.remove_suffix(1);
        pct = true;
    }
    double value = kNaN;
    if (first == "nan" || first == "-nan") {
        value = kNaN;
    } else if (looksNumeric(first)) {
        auto v = NF_TRY(num.read(first, number, NumberKind::Decimal, "metric value"));
        value = v;
    } else {
        return std::pair<std::string, double>{std::string(trim(text)), kNaN};  // a name without a value
    }
    for (std::size_t i = 1; i < words.size(); ++i) {
        if (i == 1 && words[i] == "%") {
            pct = true;
            continue;
        }
        name += (name.empty() ? "" : " ") + std::string(words[i]);
    }
    (void)pct;
    return std::pair<std::string, double>{name, value};
}

}  // namespace nf::engine::perf
