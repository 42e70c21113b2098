// Experiment syntax from the command line: --variant NAME:k=v,..., -p k=v, --sweep P=v1,v2,...,
// --order, --cpu lists, RUN ids, and the parameter values they carry resolved against every
// workload's parameter specs. Parsers that accept must give values that print back to the same
// parse, and resolved numbers must be finite and within their range.

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/system_facts.h"
#include "engine/analysis/text_input.h"
#include "engine/catalog/spec_check.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/model/experiment_spec.h"
#include "engine/model/parameter.h"
#include "engine/model/sweep.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace nf::engine;

std::string variantText(const VariantSpec& v)
{
    std::string out = v.name;
    char sep = ':';
    for (const auto& [key, value] : v.overrides) {
        out += sep + key + "=" + value;
        sep = ',';
    }
    return out;
}

void checkVariant(const std::string& text)
{
    auto v = parseVariant(text);
    if (!v) {
        NF_FUZZ_CHECK(!v.error().message.empty(), text);
        return;
    }
    NF_FUZZ_CHECK(!v->name.empty() && v->name.size() <= 64, text);
    auto again = parseVariant(variantText(*v));
    NF_FUZZ_CHECK(again && again->name == v->name && again->overrides == v->overrides, text);
    ExperimentSpec spec;
    spec.workload = "spin";
    spec.variants = {*v};
    nf::base::SystemFacts facts;
    facts.onlineCpus = facts.allowedCpus = {0};
    // Whatever parses is a good variant name; its overrides may still be wrong for spin.
    for (const auto& problem : checkExperiment(spec, std::nullopt, facts).problems) {
        NF_FUZZ_CHECK(problem.field == SpecField::Param, text);
    }
}

void checkAssignment(const std::string& text)
{
    auto kv = parseAssignment(text);
    if (!kv) {
        return;
    }
    NF_FUZZ_CHECK(!kv->first.empty() && !kv->second.empty(), text);
    NF_FUZZ_CHECK(kv->first + "=" + kv->second == text, text);
}

// Every workload's parameters resolved with `overrides` on top of the defaults: a value that is
// accepted is canonical (resolving its canonical text again gives the same text) and in range.
void checkResolve(const std::map<std::string, std::string>& overrides, const std::string& text)
{
    for (const auto& w : workloadCatalog()) {
        auto set = ParamSet::resolve(w.params, {&overrides}, w.name);
        if (!set) {
            continue;
        }
        auto again = ParamSet::resolve(w.params, {&set->all()}, w.name);
        NF_FUZZ_CHECK(again && again->all() == set->all(), text);
        for (const auto& p : w.params) {
            if (p.type == ParamType::Int || p.type == ParamType::Real) {
                const double v = set->real(p.name);
                NF_FUZZ_CHECK(std::isfinite(v) && v >= p.min && v <= p.max, p.name + "=" + set->text(p.name));
            }
        }
    }
}

void checkSweep(const std::string& text)
{
    auto sweep = parseSweep(text);
    if (!sweep) {
        return;
    }
    NF_FUZZ_CHECK(!sweep->param.empty() && !sweep->values.empty() && sweep->values.size() <= 1000, text);
    std::string joined = sweep->param + "=";
    for (std::size_t i = 0; i < sweep->values.size(); ++i) {
        NF_FUZZ_CHECK(!sweep->values[i].empty(), text);
        joined += (i > 0 ? "," : "") + sweep->values[i];
    }
    NF_FUZZ_CHECK(joined == text, text);
    ExperimentSpec base;
    base.workload = "spin";
    base.variants = {{"a", {}}};
    const auto specs = expandSweep(base, *sweep, "20261130T000000-00000000");
    NF_FUZZ_CHECK(specs.size() == sweep->values.size(), text);
    // Resolving the first few points is the work `run --sweep` does before it runs anything.
    for (std::size_t i = 0; i < specs.size() && i < 4; ++i) {
        checkResolve(specs[i].params, text);
    }
}

void checkCpuList(const std::string& text)
{
    bool ok = false;
    const auto cpus = nf::base::parseCpuList(text, &ok);
    if (!ok) {
        NF_FUZZ_CHECK(cpus.empty(), text);
        return;
    }
    for (std::size_t i = 0; i < cpus.size(); ++i) {
        NF_FUZZ_CHECK(cpus[i] >= 0 && (i == 0 || cpus[i - 1] < cpus[i]), text);
    }
    if (!cpus.empty()) {
        bool okAgain = false;
        NF_FUZZ_CHECK(nf::base::parseCpuList(nf::base::formatCpuList(cpus), &okAgain) == cpus && okAgain, text);
    }
}

void checkRunId(const std::string& text)
{
    auto id = parseRunId(text);
    if (!id) {
        return;
    }
    NF_FUZZ_CHECK(*id >= 0, text);
    if (*id > 0) {
        auto again = parseRunId(std::to_string(*id));
        NF_FUZZ_CHECK(again && *again == *id, text);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size > 4096) {
        return 0;  // command-line arguments; longer ones only slow the search down
    }
    const std::string text(reinterpret_cast<const char*>(data), size);
    checkVariant(text);
    checkAssignment(text);
    checkSweep(text);
    checkCpuList(text);
    checkRunId(text);
    (void)parseOrder(text);
    if (auto v = parseVariant(text)) {
        checkResolve(v->overrides, text);
    }
    return 0;
}
