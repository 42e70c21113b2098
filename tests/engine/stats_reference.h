#pragma once
// The reference values of tests/data/stats/reference.json (SciPy 1.10.1 and mpmath 1.2.1, made by
// tests/engine/stats_reference.py; the ctest stats_reference checks that the file is current).

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nf::test {

inline const nlohmann::json& reference()
{
    static const nlohmann::json j = nlohmann::json::parse(std::ifstream(NF_STATS_REFERENCE));
    return j;
}

// A data set of the reference by name ("x10", "count1e12_b", ...).
inline std::vector<double> referenceData(const std::string& name)
{
    return reference().at("data").at(name).get<std::vector<double>>();
}

// A number of the reference: reference()[group][name][field].
inline double referenceValue(const std::string& group, const std::string& name, const std::string& field)
{
    return reference().at(group).at(name).at(field).get<double>();
}

}  // namespace nf::test
