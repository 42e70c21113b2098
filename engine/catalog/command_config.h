#pragma once
// The command workload's settings of one variant, parsed and checked: the argument vector, the
// hooks, the timeout and how the metric is read from the output.

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/model/parameter.h"

namespace nf::engine::catalog {

struct CommandConfig {
    std::vector<std::string> argv;
    std::string text;
    std::string prepare;
    std::string cleanup;
    double timeout = 60;
    std::optional<std::regex> regex;
    std::string extractor;  // "" or an import format
    std::string metricName;
    std::string metricUnit;
    bool higherIsBetter = false;
    std::vector<int> counterCpus;
    bool hasMetric() const { return regex || !extractor.empty(); }
};

// Bad settings (empty cmd, an unterminated quote, a regex without exactly one group, both
// metric_regex and extractor) are errors naming the parameter.
Result<CommandConfig> commandConfig(const ParamSet& p);

// Splits a command into arguments like a shell would split words, with '...' and "..." quoting and
// backslash escapes, but without expansion of any kind. Fails on an unterminated quote.
Result<std::vector<std::string>> splitCommand(const std::string& text);

}  // namespace nf::engine::catalog
