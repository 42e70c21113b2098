// The experiment spec as the database stores it (runs.spec_json) and as `run_started` events
// carry it: any JSON document read back with experimentSpecFromJson. A spec that is accepted
// must write and read back to the same JSON, and every number in it must be the number given
// (no silent wrap-around or truncation of out-of-range values).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/catalog/spec_check.h"
#include "engine/model/experiment_spec.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using nlohmann::json;

// A field the reader took as given must come back equal (as a number, 3 and 3.0 alike).
void checkSame(const json& given, const json& written, const char* key)
{
    if (!given.is_object() || !given.contains(key) || given[key].is_null()) {
        return;
    }
    const json& a = given[key];
    const json& b = written.at(key);
    if (a.is_number() && b.is_number()) {
        NF_FUZZ_CHECK(a.get<double>() == b.get<double>(), std::string(key) + ": " + a.dump() + " read as " + b.dump());
        return;
    }
    NF_FUZZ_CHECK(a == b, std::string(key) + ": " + a.dump() + " read as " + b.dump());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto j = json::parse(data, data + size, nullptr, false);
    if (j.is_discarded()) {
        return 0;
    }
    auto spec = nf::engine::experimentSpecFromJson(j);
    if (!spec) {
        NF_FUZZ_CHECK(!spec.error().message.empty(), j.dump());
        return 0;
    }
    nf::base::SystemFacts facts;
    facts.onlineCpus = facts.allowedCpus = {0};
    (void)nf::engine::checkExperiment(*spec, std::nullopt, facts);
    const json written = nf::engine::toJson(*spec);
    for (const char* key : {"repetitions", "duration", "warmup", "interval", "chunk", "seed", "cpus"}) {
        checkSame(j, written, key);
    }
    auto again = nf::engine::experimentSpecFromJson(json::parse(written.dump()));
    NF_FUZZ_CHECK(again, written.dump());
    NF_FUZZ_CHECK(nf::engine::toJson(*again) == written, written.dump());
    return 0;
}
