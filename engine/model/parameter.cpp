#include "engine/model/parameter.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace nf::engine {

namespace {

std::string formatNumber(double v)
{
    std::ostringstream out;
    out.precision(12);
    out << v;
    return out.str();
}

const ParamSpec* findSpec(const std::vector<ParamSpec>& specs, const std::string& name)
{
    for (const auto& s : specs) {
        if (s.name == name) {
            return &s;
        }
    }
    return nullptr;
}

std::string names(const std::vector<ParamSpec>& specs)
{
    std::string out;
    for (const auto& s : specs) {
        out += (out.empty() ? "" : ", ") + s.name;
    }
    return out.empty() ? "none" : out;
}

// Checks one value against its spec; on success returns the canonical text and its number.
Result<std::pair<std::string, double>> check(const ParamSpec& spec, const std::string& value)
{
    const std::string where = spec.name + "=" + value + ": ";
    const char* first = value.data();
    const char* last = value.data() + value.size();
    switch (spec.type) {
        case ParamType::Int: {
            std::int64_t v = 0;
            const auto [ptr, ec] = std::from_chars(first, last, v);
            if (value.empty() || ec != std::errc() || ptr != last) {
                return Error{where + "not an integer"};
            }
            if (static_cast<double>(v) < spec.min || static_cast<double>(v) > spec.max) {
                return Error{where + "out of range " + spec.rangeText()};
            }
            return std::pair{std::to_string(v), static_cast<double>(v)};
        }
        case ParamType::Real: {
            double v = 0;
            const auto [ptr, ec] = std::from_chars(first, last, v);
            if (value.empty() || ec != std::errc() || ptr != last || !std::isfinite(v)) {
                return Error{where + "not a number"};
            }
            if (v < spec.min || v > spec.max) {
                return Error{where + "out of range " + spec.rangeText()};
            }
            return std::pair{formatNumber(v), v};
        }
        case ParamType::Choice:
            for (const auto& c : spec.choices) {
                if (c == value) {
                    return std::pair{value, 0.0};
                }
            }
            return Error{where + "not one of " + spec.rangeText()};
        case ParamType::Text: return std::pair{value, 0.0};
    }
    return Error{where + "unknown parameter type"};
}

}  // namespace

std::string ParamSpec::rangeText() const
{
    switch (type) {
        case ParamType::Int:
        case ParamType::Real: return formatNumber(min) + ".." + formatNumber(max);
        case ParamType::Choice: {
            std::string out;
            for (const auto& c : choices) {
                out += (out.empty() ? "" : "|") + c;
            }
            return out;
        }
        case ParamType::Text: return "text";
    }
    return "";
}

std::string_view toString(ParamType type)
{
    switch (type) {
        case ParamType::Int: return "int";
        case ParamType::Real: return "real";
        case ParamType::Choice: return "choice";
        case ParamType::Text: return "text";
    }
    return "text";
}

std::int64_t ParamSet::integer(const std::string& name) const
{
    return static_cast<std::int64_t>(m_numbers.at(name));
}

double ParamSet::real(const std::string& name) const
{
    return m_numbers.at(name);
}

const std::string& ParamSet::text(const std::string& name) const
{
    return m_values.at(name);
}

Result<ParamSet> ParamSet::resolve(const std::vector<ParamSpec>& specs,
                                   const std::vector<const std::map<std::string, std::string>*>& layers,
                                   std::string_view workload)
{
    std::map<std::string, std::string> raw;
    for (const auto& s : specs) {
        raw[s.name] = s.defaultValue;
    }
    for (const auto* layer : layers) {
        for (const auto& [key, value] : *layer) {
            if (findSpec(specs, key) == nullptr) {
                return Error{"workload " + std::string(workload) + " has no parameter '" + key +
                             "' (parameters: " + names(specs) + ")"};
            }
            raw[key] = value;
        }
    }
    ParamSet set;
    for (const auto& s : specs) {
        auto checked = NF_TRY(check(s, raw[s.name]));
        set.m_values[s.name] = checked.first;
        set.m_numbers[s.name] = checked.second;
    }
    return set;
}

Result<std::pair<std::string, std::string>> parseAssignment(std::string_view text)
{
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
        return Error{"'" + std::string(text) + "': expected key=value"};
    }
    return std::pair{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

}  // namespace nf::engine
