#pragma once
// Text the CLI reads that is not an experiment: the input files of `noisefloor stat` (one number
// per line, or one column of a table, as ministat reads them) and run ids. Pure: text in, values
// out, so it is fuzzed (tests/fuzz) and tested without files or a database.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "probes/result.h"

namespace nf::engine {

struct StatColumn {
    int column = 1;                    // from 1
    std::string delimiters = " \t,;";  // runs of them separate fields
};

// The column'th field of every line that is not blank or a '#' comment; each must be a finite
// number. At least two values. Errors name `path` and the line: "a.txt:7: 'x' is not a finite
// number".
Result<std::vector<double>> parseStatValues(std::string_view text, const std::string& path, const StatColumn& column);

// A run named on the command line: a positive id, or "last" (0). Errors name the text.
Result<std::int64_t> parseRunId(const std::string& name);

}  // namespace nf::engine
