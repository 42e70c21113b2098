#pragma once
// run --profile: the measured CPUs sampled while the run runs (probes/cpu_sampler.h), and after
// each stored repetition its samples named (probes/symbolizer.h), placed in the chunk that ran at
// their time and stored with the observer (RunObserver::profileMeasured). A chunk is one variant's
// measuring interval, so a profile has the run's paired design: the chunks of one round are a
// pair. Samples between chunks (warm-up, set-up, the gaps) are counted and left out.

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/model/profile.h"
#include "engine/model/profile_attribution.h"
#include "engine/model/run_data.h"
#include "engine/run/run_stages.h"

namespace nf::probes {
class CpuSampler;
class Symbolizer;
}  // namespace nf::probes

namespace nf::engine {

struct PreparedExperiment;
class RunContext;

// The CPUs a profile of `prepared` samples and what each does: the worker CPU of an in-process
// workload ("worker"); a live test's rx_cpu ("rx") and, when the tool generates, tx_cpu ("tx").
std::vector<ProfileCpu> profileCpus(const PreparedExperiment& prepared);

class ProfileStage : public RunStage {
public:
    ProfileStage(probes::CpuSampler& sampler, std::vector<ProfileCpu> cpus, const RunContext& context,
                 RunObserver& observer, bool readerOnMeasured);
    ~ProfileStage() override;
    Result<void> repetitionFinished(const RepetitionResult& rep) override;
    Result<void> runEnded(RunOutcome& outcome) override;

private:
    probes::CpuSampler& m_sampler;
    const RunContext& m_context;
    RunObserver& m_observer;
    std::unique_ptr<probes::Symbolizer> m_symbols;
    std::vector<NamedSample> m_later;  // taken after the last repetition's end: the next one's
    ProfileSummary m_summary;
};

}  // namespace nf::engine
