#pragma once
// What a lab knows of a run measured in it, stored in the run's environment (section "lava"): the
// LAVA job, the device under test, the worker (dispatcher) that drove it, and the generator. The
// pair (generator and device under test) is a level of the design: runs on different pairs are not
// pooled as if they came from one machine.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/model/run_environment.h"

namespace nf::engine {

inline constexpr const char* kLabSection = "lava";

struct LabFacts {
    std::string job;        // LAVA job id (a MultiNode sub-job: 1234.1)
    std::string device;     // the device under test
    std::string worker;     // the dispatcher's address or name; "" when unknown
    std::string generator;  // the generator device; "" when the job had none to name
    std::string pairName;   // the pair as the lab names it (the tag the job asked for); "" when none

    // The pair's name, else "generator+dut" by the devices' host names, or the dut alone when the
    // generator is unknown. Host names alone may not tell pairs apart (boards netbooted from one
    // image share one): a lab's jobs name the pair by its tag.
    std::string pair() const;
    nlohmann::json toJson() const;
    // The run's lab facts; nullopt for a run not measured in a lab.
    static std::optional<LabFacts> of(const RunEnvironment& environment);
};

}  // namespace nf::engine
