#pragma once
// Text the CLI reads that is not an experiment: the input files of `noisefloor stat` (one number
// per line, or one column of a table, as ministat reads them) and run ids. Pure: text in, values
// out, so it is fuzzed (tests/fuzz) and tested without files or a database.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace nf::engine {

// Space, tab, ',' and ';': what separates fields unless the delimiters are given.
inline constexpr std::string_view kDefaultStatDelimiters = " \t,;";

struct StatColumn {
    int column = 1;                         // from 1
    std::optional<std::string> delimiters;  // runs of them separate fields; unset: the default ones
};

// The column'th field of every line that is not blank or a '#' comment; each must be a finite
// number. At least two values. Errors name `path` and the line: "a.txt:7: 'x' is not a finite
// number", quoting at most 40 bytes of what they read. With the default delimiters a comma or a
// single space is a separator only where it cannot be part of a number: a line with "1,010.5" or
// "1 010.5" (a thousands separator?) or "10,5" (a decimal comma?) is refused rather than read as 1
// or 10; given delimiters (-d ',', -d ' ') say what a comma or a space is.
Result<std::vector<double>> parseStatValues(std::string_view text, const std::string& path, const StatColumn& column);

// Delimiters that cannot split a number: not empty, and no digit, sign, '.', 'e' or 'E'.
Result<void> checkStatDelimiters(std::string_view delimiters);

// A run named on the command line: a positive id, or "last" (0). Errors name the text.
Result<std::int64_t> parseRunId(const std::string& name);

}  // namespace nf::engine
