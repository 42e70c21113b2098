#pragma once
// An imported table as an ordinary run: the RunStart and repetitions a measured run would give
// its observer, so that the store, compare, show, export and the GUI handle it unchanged.

#include <optional>
#include <string>
#include <vector>

#include "engine/import/import_format.h"
#include "engine/model/run_data.h"

namespace nf::engine {

struct ImportRequest {
    std::string format{};
    std::vector<std::string> files{};  // as named on the command line
    std::string label{};
    std::string variant = "default";
    std::string host{};    // "" = what the file says, else unknown
    std::string kernel{};  // likewise
    std::string cpuModel{};
    std::string primary{};      // --primary: "" = the importer's choice (its table's first metric)
    std::string commandLine{};  // the import command as typed
    std::string toolVersion{};
};

struct ImportedRun {
    RunStart start;
    std::vector<RepetitionResult> repetitions;
    std::vector<SummaryStat> summaries;       // perf stat -r: what the tool summarised, per repetition
    std::optional<ProfileRecording> profile;  // perf script, perf report
};

// The workload name imported runs carry: "import:perf-stat".
std::string importWorkloadName(const std::string& format);

// Fails when the request is not usable (no label, an empty variant name).
Result<ImportedRun> importedRun(const ImportTable& table, const ImportRequest& request);

}  // namespace nf::engine
