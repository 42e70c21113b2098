#pragma once
// What to run: a workload, its parameters, the variants to compare, and how to schedule them.

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace nf::engine {

enum class Order { Interleaved, Random, Blocked };
std::string_view toString(Order order);
Result<Order> parseOrder(std::string_view text);

struct VariantSpec {
    std::string name;
    std::map<std::string, std::string> overrides;
};

// 1-64 letters, digits, '_', '-' or '.'.
bool validVariantName(const std::string& name);

// "b:work=1000,check=early" -> {b, {work:1000, check:early}}; "a" -> {a, {}}. Errors quote the text
// and name no command-line option.
Result<VariantSpec> parseVariant(std::string_view text);
// "work=1000,check=early" -> {work:1000, check:early}: what follows the variant name's ':'.
Result<std::map<std::string, std::string>> parseOverrides(std::string_view text);

// One point of a parameter sweep: every point is a complete run of all variants with `param` set to
// `value`; the runs of one sweep share `id`.
struct SweepPoint {
    std::string id;
    std::string param;
    std::string value;
    int index = 0;  // 0-based position of this point in the sweep
    int points = 0;
};

// Where the hardware counts come from (`--pmu`): the kernel's perf events, or the simulated PMU
// (probes/simulated_pmu.h) that stands in for a hardware one to test the counter path. Never chosen
// automatically; every output of a simulated run says SIMULATED counters first.
struct PmuChoice {
    bool simulated = false;
    double running = 1.0;   // simulated: the fraction of each period the counters run (multiplexing)
    double periodMs = 1.0;  // simulated: the multiplexing period
    int failRead = 0;       // simulated: the n-th read of every counter group fails; 0 = never
};

// "perf", "simulated", "simulated:running=0.5,period_ms=1,fail_read=3" (only what differs from the
// defaults).
std::string toString(const PmuChoice& pmu);
// The inverse; errors quote the text and name no command-line option. Ranges are checkExperiment's.
Result<PmuChoice> parsePmu(std::string_view text);

// What every output of a run with the simulated PMU says in its first lines (the settings too);
// "" for perf. JSON outputs carry it under kSimulatedCountersKey, which sorts before every other key.
std::string simulatedCountersNote(const PmuChoice& pmu);
inline constexpr const char* kSimulatedCountersKey = "SIMULATED_counters";

// In which modes the hardware counters count (`--counters-mode`): user mode only (the kernel's
// work, interrupts and ticks included, is left out, as google/benchmark counts) or user and kernel
// mode. Software events (task-clock, context-switches, cpu-migrations, page-faults) count in
// both modes either way: the clean-chunk rule reads context-switches. The workload's default:
// User for in-process call loops (an interrupt would land in whichever variant's chunk it hit),
// All for live tests and commands (the kernel's receive work is the point there).
enum class CountersMode { User, All };
std::string_view toString(CountersMode mode);  // "user", "all"
Result<CountersMode> parseCountersMode(std::string_view text);
// "user mode (kernel excluded)", "user and kernel mode": how every output states it.
std::string_view describe(CountersMode mode);

// `--until decided`: the run alternates until the primary metric of the candidate against the
// baseline is decided by a confidence sequence (engine/analysis/sequential.h), or `maxTime` seconds
// of measuring have passed; --reps is then only the most the plan could hold.
struct UntilDecided {
    double maxTime = 600;  // seconds of measuring time, from the first measured unit
    double marginPct = 1;  // equivalent: the sequence lies inside +-margin
    double alpha = 0.05;   // P(the sequence ever misses) <= alpha
};

// Code placements (docs/measurement.md, "Code layout as a factor"): an in-process workload's hot
// code exists in kMaxLayouts copies at different addresses. `--layouts K` draws placements 0..K-1
// per repetition; `layout=N` among a variant's parameters (or -p) pins it to placement N.
inline constexpr int kMaxLayouts = 8;
inline constexpr const char* kLayoutParam = "layout";

struct ExperimentSpec {
    std::string workload;
    std::map<std::string, std::string> params;  // -p, applied to every variant
    std::vector<VariantSpec> variants;          // at least one; "default" when none given
    int repetitions = 5;
    double duration = 1.0;        // seconds per variant per repetition
    double warmup = 0.2;          // seconds per variant before the first repetition
    double interval = 0.1;        // sample length when not alternating in chunks
    std::optional<double> chunk;  // alternation chunk in seconds; 0 = off; unset = workload default
    std::vector<int> cpus;        // worker CPUs; empty = chosen by the scheduler
    // Where the harness's own threads run (--housekeeping): the sampler, the recorder, the event
    // stream. Empty = every allowed CPU the run does not measure on.
    std::vector<int> housekeeping;
    bool shareCpus = false;             // run on CPUs another run holds (recorded; a warning)
    std::vector<std::string> counters;  // empty = the generic default set
    PmuChoice pmu;                      // perf unless asked for
    Order order = Order::Interleaved;
    std::optional<std::uint64_t> seed;  // unset = drawn at run time and recorded
    std::string label;
    // The metric the verdict rests on (--primary): tested at alpha alone, the others Holm-adjusted
    // among themselves. "" = the workload's (or the importer's) default.
    std::string primaryMetric;
    std::optional<SweepPoint> sweep;    // set on the runs of a sweep
    std::optional<UntilDecided> until;  // unset: a fixed number of repetitions
    // Placements drawn per repetition (0: placement 0 only, layout not a factor); unset = the
    // workload's default, resolved by checkExperiment: kMaxLayouts when the variants run different
    // code of a workload with placed code, else 0.
    std::optional<int> layouts;
    // Setups per repetition of a live run side by side (--setups): phases in which the variants'
    // receivers are started anew on traded places; a multiple of the variants. Unset = resolved by
    // checkExperiment to one per 20 chunk rounds (at least one per variant) for a run side by side,
    // else left unset (docs/measurement.md, "Setups as a factor").
    std::optional<int> setups;
    // run --profile: samples a second per measured CPU (engine/run/profile_stage.h); unset = not
    // profiled.
    std::optional<int> profileHz;
    // Unset = the workload's default, resolved by checkExperiment. A stored spec without the field
    // (one written before it existed) reads back as All, the only mode there was.
    std::optional<CountersMode> countersMode;

    // The placement variant v is pinned to (layout=N in its overrides, else in params), if any; the
    // text as given when it is not a number is the checker's to refuse.
    std::optional<std::string> pinnedLayout(std::size_t variant) const;

    // Whether repetition i of every variant ran side by side (interleaved or random order), so that
    // repetitions can be paired; blocked runs cannot.
    bool interleaved() const { return order != Order::Blocked; }
    // Whether the variants alternate in chunks inside each repetition.
    bool alternating() const { return chunk.value_or(0) > 0; }
};

nlohmann::json toJson(const ExperimentSpec& spec);
Result<ExperimentSpec> experimentSpecFromJson(const nlohmann::json& json);

}  // namespace nf::engine
