#include "engine/catalog/descriptors.h"

#include "engine/catalog/command_config.h"
#include "engine/import/import_format.h"

namespace nf::engine::catalog {

WorkloadDescriptor command()
{
    std::vector<std::string> extractors = {"none"};
    for (const auto& f : importFormats()) {
        extractors.push_back(f.name);
    }
    WorkloadDescriptor info;
    info.summary = "a command run once per repetition, as its own pinned process";
    info.description =
        "Runs `cmd` once per repetition and variant (split into arguments without a shell unless shell=yes), "
        "pinned to the run's CPU, with counters opened on the process while it is stopped before exec, plus "
        "CPU-wide counters on counter_cpus (kernel threads doing the work). Records wall time, exit status and "
        "counters; the metric comes from the output through metric_regex (one capture group) or an importer "
        "(extractor). A repetition that fails (status, timeout, no metric) is recorded and left out of the "
        "statistics with a warning. Its environment grows by NOISEFLOOR_LAYOUT_PAD, 784 * L mod 4096 bytes in "
        "placement L (0..7) drawn per repetition and variant, which moves its initial stack (stored as the "
        "repetition's layout).";
    info.params = {
        {.name = "cmd", .type = ParamType::Text, .defaultValue = "", .description = "the command and its arguments"},
        {.name = "shell",
         .type = ParamType::Choice,
         .defaultValue = "no",
         .description = "run cmd with /bin/sh -c",
         .choices = {"no", "yes"}},
        {.name = "prepare",
         .type = ParamType::Text,
         .defaultValue = "",
         .description = "shell command before every repetition (not measured)"},
        {.name = "cleanup",
         .type = ParamType::Text,
         .defaultValue = "",
         .description = "shell command after every repetition (not measured)"},
        {.name = "timeout",
         .type = ParamType::Real,
         .defaultValue = "60",
         .description = "seconds before the command is killed",
         .min = 0.001,
         .max = 86400,
         .unit = "s"},
        {.name = "metric_regex",
         .type = ParamType::Text,
         .defaultValue = "",
         .description = "regex with one capture group: the metric in the output"},
        {.name = "extractor",
         .type = ParamType::Choice,
         .defaultValue = "none",
         .description = "an importer that reads the metric from the output",
         .choices = extractors},
        {.name = "metric_name",
         .type = ParamType::Text,
         .defaultValue = "metric",
         .description = "name of the metric read from the output"},
        {.name = "metric_unit", .type = ParamType::Text, .defaultValue = "", .description = "its unit"},
        {.name = "higher_is_better",
         .type = ParamType::Choice,
         .defaultValue = "no",
         .description = "its direction",
         .choices = {"no", "yes"}},
        {.name = "counter_cpus",
         .type = ParamType::Text,
         .defaultValue = "",
         .description = "CPUs counted system-wide during the command, e.g. 0-1"},
    };
    info.primaryMetric = "wall_ms";
    info.defaultChunk = 0;
    info.check = [](const ParamSet& p, const CheckContext&) -> Result<void> {
        NF_TRY(commandConfig(p));
        return {};
    };
    return info;
}

}  // namespace nf::engine::catalog
