#pragma once
// A RunObserver that keeps the run in memory (for selftest and tests).

#include "engine/model/run_data.h"

namespace nf::engine {

class RunCollector : public RunObserver {
public:
    Result<void> runStarted(const RunStart& start) override
    {
        m_start = start;
        m_data.layout = start.layout;
        m_data.samples = RunTable(start.layout.quantities.size());
        for (const auto& v : start.spec.variants) {
            m_data.variantNames.push_back(v.name);
        }
        return {};
    }
    Result<void> repetitionFinished(const RepetitionResult& rep) override
    {
        m_data.samples.append(rep.samples);
        ++m_repetitions;
        return {};
    }
    void warning(std::string_view text) override { m_warnings.emplace_back(text); }

    const RunStart& start() const { return m_start; }
    const RunData& data() const { return m_data; }
    int repetitions() const { return m_repetitions; }
    const std::vector<std::string>& warnings() const { return m_warnings; }

private:
    RunStart m_start;
    RunData m_data;
    int m_repetitions = 0;
    std::vector<std::string> m_warnings;
};

}  // namespace nf::engine
