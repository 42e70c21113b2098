#pragma once
// Runs another process and waits for it: this noisefloor binary with other arguments (a campaign's
// steps, as separate processes so that each stores its runs as the command would by hand), or a
// shell command (a campaign's --reboot command). Output goes where this process's goes; the child
// starts with no signal blocked or ignored.

#include <string>
#include <utility>
#include <vector>

#include "base/result.h"

namespace nf::cli {

// Extra environment variables for the child, beside this process's.
using ChildEnvironment = std::vector<std::pair<std::string, std::string>>;

// The exit status of `noisefloor ARGS...` (this executable), 128 + N when signal N ended it;
// `quiet`: its standard output goes to /dev/null (its errors still show).
Result<int> runNoisefloor(const std::vector<std::string>& args, const ChildEnvironment& env = {}, bool quiet = false);

// This executable's path, as a unit file names it.
std::string selfExecutable();

// The exit status of PROGRAM ARGS... found on PATH.
Result<int> runProgram(const std::vector<std::string>& argv, const ChildEnvironment& env = {});

}  // namespace nf::cli
