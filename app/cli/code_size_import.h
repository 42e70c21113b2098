#pragma once
// noisefloor import bloat-o-meter FILE --label LABEL: the kernel's scripts/bloat-o-meter output
// stored as the code size of LABEL (the new build's), as `noisefloor size --label` stores its own.
// No run: import_command.cpp routes it here before the run importers.

#include <string>

#include "app/cli/cli.h"
#include "engine/import/import_format.h"

namespace nf::cli {

// The name `import` takes for it: noisefloor import bloat-o-meter FILE.
inline constexpr const char* kBloatOMeterTool = "bloat-o-meter";

// Parses `src`, stores it under `label` (replacing what the label had) and says what it stored;
// the exit status (2 for a file that is not the script's output).
int importCodeSize(const engine::ImportSource& src, const std::string& label, const Context& ctx);

}  // namespace nf::cli
