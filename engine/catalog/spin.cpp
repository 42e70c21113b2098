#include "engine/catalog/descriptors.h"

namespace nf::engine::catalog {

WorkloadDescriptor spin()
{
    WorkloadDescriptor info;
    info.summary = "calibration: a chain of `work` dependent integer operations per call";
    info.description =
        "Each call runs `work` dependent multiply-add steps that the compiler cannot fold, so the "
        "cost per call is linear in `work`. Use it to check the measurement itself: two variants "
        "with the same work must show no difference, and work=2000 must cost twice work=1000.";
    info.params = {
        {.name = "work",
         .type = ParamType::Int,
         .defaultValue = "1000",
         .description = "dependent operations per call",
         .min = 1,
         .max = 100000000,
         .unit = "ops"},
    };
    info.placedCode = true;
    info.primaryMetric = "tsc_per_op";
    info.defaultChunk = 0.002;
    return info;
}

}  // namespace nf::engine::catalog
