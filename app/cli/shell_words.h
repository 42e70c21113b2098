#pragma once
// A command line written as one string (campaign new --step '...') split into words as a POSIX
// shell splits them: blanks separate words; single quotes keep everything; double quotes keep all
// but \" and \\; a backslash outside quotes keeps the next character. Nothing is expanded (no
// variables, globs or command substitution): the words are what was written.

#include <string>
#include <vector>

#include "base/result.h"

namespace nf::cli {

// Fails on an unterminated quote or a trailing backslash.
Result<std::vector<std::string>> shellWords(const std::string& text);

}  // namespace nf::cli
