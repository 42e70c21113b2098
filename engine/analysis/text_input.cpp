#include "engine/analysis/text_input.h"

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
        const auto value = field(line, column.column, column.delimiters);
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
