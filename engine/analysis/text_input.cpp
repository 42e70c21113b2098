#include "engine/analysis/text_input.h"

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

// The text around the first comma of `line` that could be read as part of one number: "1,010.5"
// (a thousands separator: 1 to 3 digits, then exactly 3) or "10,5" (a decimal comma: digits on both
// sides). "1,10.0" or "1.5,2.5" can only be two fields.
std::optional<std::string> ambiguousComma(std::string_view line)
{
    constexpr std::string_view kField = " \t,;";
    for (std::size_t comma = line.find(','); comma != std::string_view::npos; comma = line.find(',', comma + 1)) {
        std::size_t leftBegin = comma;
        while (leftBegin > 0 && kField.find(line[leftBegin - 1]) == std::string_view::npos) {
            --leftBegin;
        }
        const std::string_view left = line.substr(leftBegin, comma - leftBegin);
        const std::size_t end = line.find_first_of(kField, comma + 1);
        const std::string_view right =
            line.substr(comma + 1, end == std::string_view::npos ? std::string_view::npos : end - comma - 1);
        const bool thousands = isInteger(left, 1, 3) && isUnsignedNumber(right, 3, true);
        const bool decimalComma = isInteger(left, 1, 400) && isUnsignedNumber(right, 0, false);
        if (thousands || decimalComma) {
            const std::size_t last = line.find_first_of(" \t;", comma);
            return std::string(
                line.substr(leftBegin, last == std::string_view::npos ? std::string_view::npos : last - leftBegin));
        }
    }
    return std::nullopt;
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
            if (const auto ambiguous = ambiguousComma(line)) {
                return Error{path + ":" + std::to_string(number) + ": '" + *ambiguous +
                             "' is ambiguous: a thousands separator, a decimal comma or two columns? Write "
                             "numbers with a decimal point and no grouping, or give the delimiters (-d)"};
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
            return Error{path + ":" + std::to_string(number) + ": '" + *value + "' is not a finite number"};
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
