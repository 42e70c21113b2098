#include "engine/analysis/text_input.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace nf::engine {

namespace {

// The column'th field of `line`, split at any of `delimiters` (runs of them count as one).
std::optional<std::string> field(std::string_view line, int column, std::string_view delimiters)
{
    int index = 0;
    std::size_t pos = line.find_first_not_of(delimiters);
    while (pos != std::string_view::npos) {
        const std::size_t end = line.find_first_of(delimiters, pos);
        if (++index == column) {
            return std::string(line.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
        }
        pos = end == std::string_view::npos ? end : line.find_first_not_of(delimiters, end);
    }
    return std::nullopt;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// [+-]?digits{min..max} exactly.
bool isInteger(std::string_view s, std::size_t minDigits, std::size_t maxDigits)
{
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        s.remove_prefix(1);
    }
    return s.size() >= minDigits && s.size() <= maxDigits && std::all_of(s.begin(), s.end(), isDigit);
}

// digits, then an optional fraction (".digits") and exponent ("e-5"), the fraction only if `fraction`.
bool isUnsignedNumber(std::string_view s, std::size_t digits, bool fraction)
{
    std::size_t i = 0;
    while (i < s.size() && isDigit(s[i])) {
        ++i;
    }
    if (i == 0 || (digits != 0 && i != digits)) {
        return false;
    }
    if (fraction && i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && isDigit(s[i])) {
            ++i;
        }
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
            ++i;
        }
        const std::size_t first = i;
        while (i < s.size() && isDigit(s[i])) {
            ++i;
        }
        if (i == first) {
            return false;
        }
    }
    return i == s.size();
}

constexpr std::string_view kFieldDelimiters = " \t,;";

// The field of `line` that ends at `end` (exclusive) / starts at `begin`, split at the default
// delimiters.
std::string_view fieldBefore(std::string_view line, std::size_t end)
{
    std::size_t begin = end;
    while (begin > 0 && kFieldDelimiters.find(line[begin - 1]) == std::string_view::npos) {
        --begin;
    }
    return line.substr(begin, end - begin);
}

std::string_view fieldFrom(std::string_view line, std::size_t begin)
{
    const std::size_t end = line.find_first_of(kFieldDelimiters, begin);
    return line.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
}

// 1 to 3 digits, then a group of exactly 3 (and a fraction or exponent): "1,010.5", "1 010.5".
bool looksGrouped(std::string_view left, std::string_view right)
{
    return isInteger(left, 1, 3) && isUnsignedNumber(right, 3, true);
}

struct Ambiguity {
    std::string text;  // the number as it may have been meant
    bool comma = false;
};

// A separator of `line` (default delimiters) that could be inside one number:
// - a comma as a thousands separator ("1,010.5": 1 to 3 digits, then exactly 3) or a decimal comma
//   ("10,5": digits on both sides); "1,10.0" or "1.5,2.5" can only be two fields;
// - a single space as a thousands separator ("1 010.5", the SI style), which the default
//   delimiters would read as the two fields 1 and 010.5.
std::optional<Ambiguity> ambiguousSeparator(std::string_view line)
{
    for (std::size_t comma = line.find(','); comma != std::string_view::npos; comma = line.find(',', comma + 1)) {
        const std::string_view left = fieldBefore(line, comma);
        const std::string_view right = fieldFrom(line, comma + 1);
        if (looksGrouped(left, right) || (isInteger(left, 1, 400) && isUnsignedNumber(right, 0, false))) {
            const std::size_t begin = static_cast<std::size_t>(left.data() - line.data());
            const std::size_t last = line.find_first_of(" \t;", comma);
            return Ambiguity{std::string(line.substr(begin, last == std::string_view::npos ? last : last - begin)),
                             true};
        }
    }
    for (std::size_t space = line.find(' '); space != std::string_view::npos; space = line.find(' ', space + 1)) {
        const std::string_view left = fieldBefore(line, space);
        const std::string_view right = fieldFrom(line, space + 1);
        if (!looksGrouped(left, right)) {
            continue;
        }
        // The whole number: every further " ddd" group and the last one's fraction.
        std::size_t end = space + 1 + right.size();
        while (end + 4 <= line.size() && line[end] == ' ' && isUnsignedNumber(fieldFrom(line, end + 1), 3, true)) {
            end += 1 + fieldFrom(line, end + 1).size();
        }
        const std::size_t begin = static_cast<std::size_t>(left.data() - line.data());
        return Ambiguity{std::string(line.substr(begin, end - begin)), false};
    }
    return std::nullopt;
}

// `text` quoted for a message: at most 40 bytes of it (cut where a UTF-8 character begins, with
// its length said), control characters shown as '?'. A line of 10 MB is not echoed whole.
std::string quoted(std::string_view text)
{
    constexpr std::size_t kMax = 40;
    constexpr std::size_t kShown = 32;
    std::string_view shown = text;
    if (text.size() > kMax) {
        std::size_t cut = kShown;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
            --cut;
        }
        shown = text.substr(0, cut);
    }
    std::string out = "'";
    for (char c : shown) {
        const auto u = static_cast<unsigned char>(c);
        out += u < 0x20 || u == 0x7f ? '?' : c;
    }
    out += shown.size() < text.size() ? fmt::format("...' ({} bytes)", text.size()) : "'";
    return out;
}

std::vector<std::string_view> lines(std::string_view text)
{
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = text.find('\n', start);
        out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        start = end == std::string_view::npos ? text.size() : end + 1;
    }
    return out;
}

}  // namespace

Result<std::vector<double>> parseStatValues(std::string_view text, const std::string& path, const StatColumn& column)
{
    std::vector<double> values;
    int number = 0;
    for (std::string_view line : lines(text)) {
        ++number;
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string_view::npos || line[first] == '#') {
            continue;
        }
        if (line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (!column.delimiters) {
            if (const auto ambiguous = ambiguousSeparator(line)) {
                return Error{
                    fmt::format("{}:{}: {} is ambiguous: {} or two columns? Write numbers with a decimal "
                                "point and no grouping, or give the delimiters (-d)",
                                path, number, quoted(ambiguous->text),
                                ambiguous->comma ? "a thousands separator, a decimal comma" : "a thousands separator")};
            }
        }
        const auto value = field(line, column.column, column.delimiters.value_or(std::string(kDefaultStatDelimiters)));
        if (!value) {
            return Error{path + ":" + std::to_string(number) + ": no column " + std::to_string(column.column)};
        }
        std::size_t used = 0;
        double v = 0;
        try {
            v = std::stod(*value, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != value->size() || !std::isfinite(v)) {
            return Error{path + ":" + std::to_string(number) + ": " + quoted(*value) + " is not a finite number"};
        }
        values.push_back(v);
    }
    if (values.size() < 2) {
        return Error{path + ": " + std::to_string(values.size()) + " value(s); at least 2 are needed"};
    }
    return values;
}

Result<void> checkStatDelimiters(std::string_view delimiters)
{
    if (delimiters.empty()) {
        return Error{"-d '': give at least one delimiter"};
    }
    for (char c : delimiters) {
        if (isDigit(c) || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E') {
            return Error{"-d '" + std::string(delimiters) + "': '" + std::string(1, c) +
                         "' is part of numbers and cannot separate them"};
        }
    }
    return {};
}

Result<std::int64_t> parseRunId(const std::string& name)
{
    if (name == "last") {
        return 0;
    }
    try {
        std::size_t used = 0;
        const std::int64_t id = std::stoll(name, &used);
        if (used == name.size() && id > 0) {
            return id;
        }
    } catch (const std::exception&) {
    }
    return Error{"RUN '" + name + "': expected a run id (see 'noisefloor list') or 'last'"};
}

}  // namespace nf::engine
