#include "engine/model/lab_facts.h"

namespace nf::engine {

std::string LabFacts::pair() const
{
    if (!pairName.empty()) {
        return pairName;
    }
    return generator.empty() ? device : generator + "+" + device;
}

nlohmann::json LabFacts::toJson() const
{
    return {{"system", "lava"},       {"job", job},      {"device", device}, {"worker", worker},
            {"generator", generator}, {"pair", pairName}};
}

std::optional<LabFacts> LabFacts::of(const RunEnvironment& environment)
{
    const auto s = environment.section(kLabSection);
    const auto text = [&](const char* key) {
        const auto it = s.find(key);
        return it != s.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    if (text("job").empty() && text("device").empty()) {
        return std::nullopt;
    }
    return LabFacts{.job = text("job"),
                    .device = text("device"),
                    .worker = text("worker"),
                    .generator = text("generator"),
                    .pairName = text("pair")};
}

}  // namespace nf::engine
