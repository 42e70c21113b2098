#pragma once
// What to run: a workload, its parameters, the variants to compare, and how to schedule them.

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace nf::engine {

enum class Order { Interleaved, Random, Blocked };
std::string_view toString(Order order);
Result<Order> parseOrder(std::string_view text);

struct VariantSpec {
    std::string name;
    std::map<std::string, std::string> overrides;
};

// "b:work=1000,check=early" -> {b, {work:1000, check:early}}; "a" -> {a, {}}.
Result<VariantSpec> parseVariant(std::string_view text);

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
    std::vector<std::string> counters;  // empty = the generic default set
    Order order = Order::Interleaved;
    std::optional<std::uint64_t> seed;  // unset = drawn at run time and recorded
    std::string label;
    std::optional<SweepPoint> sweep;  // set on the runs of a sweep

    // Checks what does not need the workload: counts and durations in range, variant names unique
    // and non-empty. Errors name the option and value.
    Result<void> validate() const;
};

nlohmann::json toJson(const ExperimentSpec& spec);
Result<ExperimentSpec> experimentSpecFromJson(const nlohmann::json& json);

}  // namespace nf::engine
