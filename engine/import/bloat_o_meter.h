#pragma once
// The output of the kernel's scripts/bloat-o-meter (as pasted into patches and mails) read back
// into the code size diff `noisefloor size` makes: `noisefloor import bloat-o-meter FILE`. It is no
// run (no repetitions, no samples), so it is not an ImportFormat of importer_list.h: `import`
// routes it before the run importers and stores it per label (data/code_size_store.h).

#include <string>
#include <vector>

#include "base/result.h"
#include "engine/import/import_format.h"
#include "engine/model/code_size.h"

namespace nf::engine {

struct BloatOMeterImport {
    CodeSizeDiff diff;
    std::vector<std::string> notes;  // what the reader should know: a table cut in the source
};

// One output of the script, in any of its versions since 2012: lines before its first summary line
// (a command, a title) are passed over; from there on every line belongs to it: a summary line
// ("add/remove: A/R grow/shrink: G/S up/down: U/-D (T)"), the table's header ("Function", "Data",
// "RO Data" with -c, "function" before 2017, then old, new, delta), its rows ("NAME OLD NEW
// DELTA", '-' where a side has no such symbol), "..." where an author cut rows, and the total
// ("Total: Before=N, After=N, chg +P%", since 2016). Lines may be indented alike (a mail's
// indent). Errors name the file and line: a file with no summary line is not the script's output;
// a row whose delta is not new - old, or a summary whose (T) is not U - D, is not either.
Result<BloatOMeterImport> parseBloatOMeter(const ImportSource& src);

// Whether the text has the script's summary line and table header: `import` without a tool name
// takes such a file as bloat-o-meter's.
bool looksLikeBloatOMeter(const std::string& text);

}  // namespace nf::engine
