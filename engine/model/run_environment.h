#pragma once
// Where and how a run was measured, typed for the reports. The stored form is the JSON object the
// runners write (system facts, TSC calibration, counters, measurement, tool, import origin); it is
// kept whole in `json` for `show` and `export`, and the facts the reports decide on are read from it
// once, here.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/experiment_spec.h"

namespace nf::engine {

enum class MeasurementKind { CallLoop, Live, Command, Import };

struct ImportOrigin {
    std::string format;              // "perf-stat"
    std::vector<std::string> files;  // as named when imported
    std::string hostFrom;            // "option", "file" or "unknown"
    std::string kernelFrom;
    bool reconstructed = false;  // values rebuilt from summaries (perf stat -r imports of schema 1)
    std::string detected;        // the layout the importer recognised: "perf stat text, -r 200 summary"
    std::string tool;            // the tool and mode the file names: "xdp-bench redirect"
    std::string toolVersion;     // when the file printed it
    bool summaries = false;      // stored as summaries (n, mean, standard error)
    std::vector<std::string> notes;
    // Where the packets of the per-packet metrics came from (import --rate): "--rate 22.8Mpps" or
    // "rx_pps of xdpsock rxdrop output in x.txt"; "" when no rate was joined.
    std::string rate;

    // "perf-stat output in a.txt, b.txt (perf stat text, -r 200 summary)".
    std::string describe() const;
};

struct NotMeasured {
    std::string counters;  // "cycles, instructions, branch-misses"
    std::string reason;    // why they did not open
};

struct RunEnvironment {
    nlohmann::json json = nlohmann::json::object();  // the stored form, every fact

    MeasurementKind kind = MeasurementKind::CallLoop;
    bool hypervisor = false;
    std::string boost;                 // "on", "off", "" when unknown
    std::optional<double> tscHz;       // calibrated TSC frequency
    std::optional<bool> tscInvariant;  // unset when no TSC was read (imports)
    int workerCpu = -1;                // in-process and command runs
    // Where the counters counted, and the hardware events' mode where the run recorded it: "the
    // worker thread (CPU 3), hardware events in user mode (kernel excluded)".
    std::string counterTarget;
    std::optional<CountersMode> countersMode;  // unset: recorded before --counters-mode (user and kernel)
    std::vector<std::string> countersOpened;
    std::vector<NotMeasured> notMeasured;  // grouped by reason: a machine without a PMU is one line
    std::vector<std::pair<std::string, std::string>> unsupported;  // each counter that did not open, and why
    std::string toolVersion;
    std::string commandLine;  // as typed; "" for runs that did not record it
    std::optional<ImportOrigin> import;

    bool live() const { return kind == MeasurementKind::Live; }
    bool imported() const { return import.has_value(); }
    // "cycles, instructions (no hardware PMU ...)": one line per reason.
    std::vector<std::string> notMeasuredLines() const;
    // Why `counter` did not open, "" when it did (or was not asked for).
    std::string whyNotOpened(const std::string& counter) const;
    // json[section] as an object, or an empty one.
    nlohmann::json section(const char* name) const;

    // Reads what the runners wrote; a missing or malformed member leaves its field at the default.
    static RunEnvironment fromJson(nlohmann::json json);
};

}  // namespace nf::engine
