#pragma once
// Typed workload parameters: what a workload accepts (ParamSpec) and what a variant got (ParamSet).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace nf::engine {

enum class ParamType { Int, Real, Choice, Text };

struct ParamSpec {
    std::string name{};
    ParamType type = ParamType::Int;
    std::string defaultValue{};  // as text, e.g. "1000"
    std::string description{};
    double min = 0;  // Int and Real: inclusive range
    double max = 0;
    std::vector<std::string> choices{};  // Choice
    std::string unit{};                  // "", "bytes", "s", "%"
    // Variants that differ in it run different code (check=early against late), so that where the
    // linker put each is a factor of their comparison (ExperimentSpec::layouts).
    bool selectsCode = false;

    std::string rangeText() const;  // "1..1000000", "late|early"
};

std::string_view toString(ParamType type);

// Parameter values of one variant after defaults, -p settings and the variant's overrides applied
// and checked against their specs.
class ParamSet {
public:
    std::int64_t integer(const std::string& name) const;
    double real(const std::string& name) const;
    const std::string& text(const std::string& name) const;
    const std::map<std::string, std::string>& all() const { return m_values; }

    // Applies `layers` in order over the defaults; each value is checked. Errors name the parameter,
    // the bad value and the accepted range: "work=0: out of range 1..100000000".
    static Result<ParamSet> resolve(const std::vector<ParamSpec>& specs,
                                    const std::vector<const std::map<std::string, std::string>*>& layers,
                                    std::string_view workload);

private:
    std::map<std::string, std::string> m_values;  // canonical text
    std::map<std::string, double> m_numbers;
};

// "key=value" -> {key, value}; both sides non-empty.
Result<std::pair<std::string, std::string>> parseAssignment(std::string_view text);

}  // namespace nf::engine
