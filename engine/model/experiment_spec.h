#pragma once
// What to run: a workload, its parameters, the variants to compare, and how to schedule them.

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/result.h"

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

struct ExperimentSpec {
    std::string workload;
    std::map<std::string, std::string> params;  // -p, applied to every variant
    std::vector<VariantSpec> variants;          // at least one; "default" when none given
    int repetitions = 5;
    double duration = 1.0;              // seconds per variant per repetition
    double warmup = 0.2;                // seconds per variant before the first repetition
    double interval = 0.1;              // sample length when not alternating in chunks
    std::optional<double> chunk;        // alternation chunk in seconds; 0 = off; unset = workload default
    std::vector<int> cpus;              // worker CPUs; empty = chosen by the scheduler
    bool shareCpus = false;             // run on CPUs another run holds (recorded; a warning)
    std::vector<std::string> counters;  // empty = the generic default set
    Order order = Order::Interleaved;
    std::optional<std::uint64_t> seed;  // unset = drawn at run time and recorded
    std::string label;
    std::optional<SweepPoint> sweep;  // set on the runs of a sweep

    // Whether repetition i of every variant ran side by side (interleaved or random order), so that
    // repetitions can be paired; blocked runs cannot.
    bool interleaved() const { return order != Order::Blocked; }
    // Whether the variants alternate in chunks inside each repetition.
    bool alternating() const { return chunk.value_or(0) > 0; }
};

nlohmann::json toJson(const ExperimentSpec& spec);
Result<ExperimentSpec> experimentSpecFromJson(const nlohmann::json& json);

}  // namespace nf::engine
