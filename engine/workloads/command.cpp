#include "command.h"

#include "import_format.h"

namespace nf::engine::workloads {

WorkloadInfo commandInfo()
{
    std::vector<std::string> extractors = {"none"};
    for (const auto& f : importFormats()) {
        extractors.push_back(f.name);
    }
    WorkloadInfo info;
    info.name = "command";
    info.summary = "a command run once per repetition, as its own pinned process";
    info.description =
        "Runs `cmd` once per repetition and variant (split into arguments without a shell unless shell=yes), "
        "pinned to the run's CPU, with counters opened on the process while it is stopped before exec, plus "
        "CPU-wide counters on counter_cpus (kernel threads doing the work). Records wall time, exit status and "
        "counters; the metric comes from the output through metric_regex (one capture group) or an importer "
        "(extractor). A repetition that fails (status, timeout, no metric) is recorded and left out of the "
        "statistics with a warning.";
    info.params = {
        {"cmd", ParamType::Text, "", "the command and its arguments", 0, 0, {}, ""},
        {"shell", ParamType::Choice, "no", "run cmd with /bin/sh -c", 0, 0, {"no", "yes"}, ""},
        {"prepare", ParamType::Text, "", "shell command before every repetition (not measured)", 0, 0, {}, ""},
        {"cleanup", ParamType::Text, "", "shell command after every repetition (not measured)", 0, 0, {}, ""},
        {"timeout", ParamType::Real, "60", "seconds before the command is killed", 0.001, 86400, {}, "s"},
        {"metric_regex", ParamType::Text, "", "regex with one capture group: the metric in the output", 0, 0, {}, ""},
        {"extractor", ParamType::Choice, "none", "an importer that reads the metric from the output", 0, 0, extractors,
         ""},
        {"metric_name", ParamType::Text, "metric", "name of the metric read from the output", 0, 0, {}, ""},
        {"metric_unit", ParamType::Text, "", "its unit", 0, 0, {}, ""},
        {"higher_is_better", ParamType::Choice, "no", "its direction", 0, 0, {"no", "yes"}, ""},
        {"counter_cpus", ParamType::Text, "", "CPUs counted system-wide during the command, e.g. 0-1", 0, 0, {}, ""},
    };
    info.primaryMetric = "wall_ms";
    info.defaultChunk = 0;
    info.external = true;
    info.make = [](const ParamSet&) -> Result<std::unique_ptr<CallLoop>> {
        return Error{"the command workload runs a process per repetition, not a call loop"};
    };
    return info;
}

}  // namespace nf::engine::workloads
