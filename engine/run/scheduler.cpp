#include "engine/run/scheduler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "base/system_facts.h"
#include "engine/run/call_loop_worker.h"
#include "engine/run/command_experiment.h"
#include "engine/run/counter_columns.h"
#include "engine/run/cpu_claim.h"
#include "engine/run/environment.h"
#include "engine/run/live_worker.h"
#include "engine/run/pinned_thread.h"
#include "engine/run/profile_stage.h"
#include "engine/run/run_context.h"
#include "engine/run/run_stages.h"
#include "nf_version.h"
#include "probes/cpu_sampler.h"

namespace nf::engine {

namespace {

// The calling thread's side of a run on a worker thread: stores the run when the worker is ready,
// hands what the worker measures to the run's stages, and ends the run with what the worker and
// the stages say.
class Consumer {
public:
    Consumer(const PreparedExperiment& p, RunObserver& observer, const RunControl& control, WatchObserver* watch,
             HeldWarnings& warnings, SharerWatch& sharers, std::stop_source& stopWorker, std::promise<bool>& go,
             const RunContext& context, probes::CpuSampler* sampler)
        : m_p(p),
          m_context(context),
          m_sampler(sampler),
          m_observer(observer),
          m_control(control),
          m_watch(watch),
          m_warnings(warnings),
          m_sharers(sharers),
          m_stopWorker(stopWorker),
          m_go(go),
          m_progress(observer, static_cast<int>(p.spec.variants.size()) * p.spec.repetitions)
    {
    }

    // Takes one message of the worker; false once the worker is done.
    bool take(WorkerMessage message);
    // After the worker is joined: the run's outcome, said to the observer when the run was stored.
    RunOutcome finish();

private:
    void ready(const WorkerReady& ready);
    void repetition(const RepetitionResult& rep);
    void fail(Error error);  // an observer's error: the worker stops and the run fails with it

    const PreparedExperiment& m_p;
    const RunContext& m_context;
    probes::CpuSampler* m_sampler;  // run --profile: the measured CPUs' sampler, else null
    RunObserver& m_observer;
    const RunControl& m_control;
    WatchObserver* m_watch;
    HeldWarnings& m_warnings;
    SharerWatch& m_sharers;  // runs that join this run's CPUs, looked for while it runs
    std::stop_source& m_stopWorker;
    std::promise<bool>& m_go;
    Progress m_progress;
    RunStages m_stages;
    const RecordStage* m_record = nullptr;  // in m_stages, once the run is stored
    RunOutcome m_outcome;
    bool m_started = false;
    bool m_enough = false;  // decided or out of time: the rest is not stored
    std::optional<Error> m_observerError;
};

bool Consumer::take(WorkerMessage message)
{
    if (auto* ready = std::get_if<WorkerReady>(&message)) {
        this->ready(*ready);
    } else if (auto* rep = std::get_if<RepetitionResult>(&message)) {
        repetition(*rep);
    } else if (auto* partial = std::get_if<WorkerPartial>(&message)) {
        if (m_started && !m_observerError && !m_enough) {
            m_stages.samplesMeasured(partial->repetition, partial->samples);
            m_sharers.look(m_record->stored() + 1, false);
        }
    } else if (auto* warning = std::get_if<WorkerWarning>(&message)) {
        m_warnings.warning(std::move(warning->text));
    } else if (auto* done = std::get_if<WorkerDone>(&message)) {
        m_outcome.status = done->status;
        m_outcome.reason = done->reason;
        return false;
    }
    return true;
}

void Consumer::ready(const WorkerReady& ready)
{
    // A chosen primary metric the run does not give (its counter did not open): nothing is stored,
    // since the verdict would rest on another. The workers list it first when it is there.
    const auto& metrics = ready.layout.metrics;
    if (const auto& primary = m_p.spec.primaryMetric;
        !primary.empty() && (metrics.empty() || metrics.front().name != primary)) {
        m_observerError = Error{"--primary " + primary + ": not measured in this run (its counter did not open)"};
        m_go.set_value(false);
        return;
    }
    RunStart start{m_p.spec, {}, ready.layout, ready.environment};
    for (const auto& params : m_p.params) {
        start.variantParams.emplace_back(params.all());
    }
    start.environment["system"] = systemFactsJson(m_p.facts);
    start.environment["kernel"] = kernelIdentityJson(probes::readKernelIdentity());
    start.environment["tool"] = {
        {"name", "noisefloor"}, {"version", NF_VERSION}, {"command_line", m_control.commandLine}};
    auto r = m_observer.runStarted(start);
    m_started = r.ok();
    if (!r) {
        m_observerError = r.error();
    }
    m_warnings.release(m_started);
    auto record = std::make_unique<RecordStage>(m_observer);
    m_record = record.get();
    m_stages = composeStages(m_p.spec, ready.layout, m_observer, std::move(record), m_watch, m_progress);
    if (m_sampler != nullptr) {
        m_stages.add(std::make_unique<ProfileStage>(*m_sampler, profileCpus(m_p), m_context, m_observer,
                                                    m_context.cpus().housekeeping.empty()));
    }
    m_go.set_value(m_started);
}

void Consumer::repetition(const RepetitionResult& rep)
{
    if (m_observerError || m_enough) {  // one measured after the decision: discarded, as a stop does
        return;
    }
    if (auto r = m_stages.repetitionFinished(rep); !r) {
        fail(r.error());
        return;
    }
    m_sharers.look(m_record->stored(), true);
    if (m_stages.enough()) {
        m_enough = true;
        m_stopWorker.request_stop();
    }
}

void Consumer::fail(Error error)
{
    m_observerError = std::move(error);
    m_stopWorker.request_stop();
}

RunOutcome Consumer::finish()
{
    if (!m_started) {  // nothing was stored, but what went wrong on the way is still said
        m_warnings.release(false);
    }
    m_outcome.repetitionsDone = m_record != nullptr ? m_record->stored() : 0;
    if (!m_observerError) {
        if (auto r = m_stages.runEnded(m_outcome); !r) {
            m_observerError = r.error();
        }
    }
    if (m_observerError) {
        m_outcome = {RunStatus::Failed, m_observerError->message, m_outcome.repetitionsDone};
    } else if (m_outcome.status == RunStatus::Aborted) {
        m_outcome.reason = stopReason(m_control, m_outcome.reason);
    }
    if (m_started) {
        for (auto& text : m_sharers.warnings()) {  // stored before the run is marked finished
            m_warnings.warning(std::move(text));
        }
        m_observer.runFinished(m_outcome.status, m_outcome.reason);
    }
    return m_outcome;
}

// run --profile: the measured CPUs sampled from now on, read on the harness's CPUs (counted as the
// harness's); null without --profile.
Result<std::unique_ptr<probes::CpuSampler>> openProfile(const PreparedExperiment& p, RunContext& context)
{
    if (!p.spec.profileHz) {
        return std::unique_ptr<probes::CpuSampler>();
    }
    std::vector<int> cpus;
    for (const auto& c : profileCpus(p)) {
        cpus.push_back(c.cpu);
    }
    auto sampler = NF_TRY(
        probes::CpuSampler::open(cpus, *p.spec.profileHz, context.cpus().housekeeping).withContext("--profile: "));
    for (int i = 0; i < 1000 && sampler->readerTid() == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (sampler->readerTid() != 0) {
        context.addHarnessThread(sampler->readerTid());
    }
    sampler->enable();
    return sampler;
}

// An in-process or live run: its worker thread measures, this thread consumes what it sends.
RunOutcome runOnWorker(const PreparedExperiment& p, RunContext& context, RunObserver& observer,
                       const RunControl& control, WatchObserver* watch, HeldWarnings& warnings, SharerWatch& sharers)
{
    Channel<WorkerMessage> channel;
    std::promise<bool> go;
    std::stop_source stopWorker;
    std::stop_callback forward(control.stop, [&] { stopWorker.request_stop(); });
    const bool live = p.workload->kind == WorkloadKind::Live;
    context.addHarnessThread(static_cast<pid_t>(::syscall(SYS_gettid)));
    context.setWatched(watch != nullptr);
    auto sampler = openProfile(p, context);
    if (!sampler) {
        warnings.release(false);
        return {RunStatus::Failed, sampler.error().message, 0};
    }
    // The worker starts with this thread's CPUs (a live one makes its sessions with them and then
    // moves to the housekeeping CPUs itself; an in-process one pins itself to the worker CPU); then
    // this thread, the recorder and the event stream, leaves the measured CPUs.
    std::jthread worker(
        [&](std::future<bool> started) {
            const FailureSink::Scope failures(&context.failures());
            if (live) {
                context.addHarnessThread(static_cast<pid_t>(::syscall(SYS_gettid)));
            }
            try {
                if (live) {
                    runLiveWorker(p, context, stopWorker.get_token(), channel, std::move(started));
                } else {
                    runCallLoopWorker(p, context, stopWorker.get_token(), channel, std::move(started));
                }
            } catch (const std::exception& e) {  // never std::terminate: one line and a failed run
                channel.push(
                    WorkerDone{RunStatus::Failed, std::string("internal error in the measuring thread: ") + e.what()});
            }
        },
        go.get_future());
    const OffCpu offCpu(context.cpus().housekeeping);
    Consumer consumer(p, observer, control, watch, warnings, sharers, stopWorker, go, context, sampler->get());
    while (consumer.take(channel.pop())) {
    }
    worker.join();
    return consumer.finish();
}

}  // namespace

Result<PreparedExperiment> prepareExperiment(const ExperimentSpec& spec, base::SystemFacts facts,
                                             const WorkloadImplementations& implementations, FieldNamer fieldName)
{
    auto checked = checkExperiment(spec, std::nullopt, facts);
    if (!checked.ok()) {
        const auto& problem = checked.problems.front();
        return Error{
            describe(problem, fieldName != nullptr ? fieldName(problem.field) : std::string(toString(problem.field)))};
    }
    PreparedExperiment p;
    p.workload = checked.experiment.workload;
    p.spec = std::move(checked.experiment.points.front());
    p.params = std::move(checked.experiment.params.front());
    p.implementation = NF_TRY(findImplementation(implementations, *p.workload));
    p.workerCpu = p.spec.cpus.front();
    if (p.spec.counters.empty()) {
        p.spec.counters = probes::defaultEventNames();
    }
    std::string list;
    for (const auto& c : p.spec.counters) {
        list += (list.empty() ? "" : ",") + c;
    }
    auto counters = probes::resolveEvents(list);
    if (!counters) {
        return Error{(fieldName != nullptr ? fieldName(SpecField::Counters) : std::string("counters")) + ": " +
                     counters.error().message};
    }
    p.counters = std::move(*counters);
    p.simulated = simulatedPmu(p.spec.pmu);
    if (!p.spec.seed) {
        p.spec.seed = std::random_device{}();
    }
    p.facts = std::move(facts);
    const auto measured = measuredCpus(p);
    for (int cpu : p.spec.housekeeping) {
        if (std::find(measured.begin(), measured.end(), cpu) != measured.end()) {
            return Error{(fieldName != nullptr ? fieldName(SpecField::Housekeeping) : std::string("housekeeping")) +
                         " " + std::to_string(cpu) + ": CPU " + std::to_string(cpu) +
                         " is measured by this run (measured: " + base::formatCpuList(measured) +
                         "); the harness's CPUs must be others"};
        }
    }
    return p;
}

std::string stopReason(const RunControl& control, const std::string& reason)
{
    const int sig = control.signal != nullptr ? control.signal->load() : 0;
    return sig != 0 ? std::string(sigabbrev_np(sig) != nullptr ? "SIG" + std::string(sigabbrev_np(sig)) : "signal") +
                          ": " + reason
                    : reason;
}

RunOutcome runExperiment(const PreparedExperiment& p, RunObserver& observer, const RunControl& control,
                         WatchObserver* watch)
{
    auto claims =
        claimCpus(measuredCpus(p), control.owner + " (" + p.workload->name + ")", p.spec.shareCpus, control.lockDir);
    if (!claims) {
        return {RunStatus::Failed, claims.error().message, 0};
    }
    HeldWarnings warnings(observer, claims->warnings);
    auto context = RunContext::create(p);
    if (!context) {
        warnings.release(false);
        return {RunStatus::Failed, context.error().message, 0};
    }
    if (p.workload->kind == WorkloadKind::External) {
        const FailureSink::Scope failures(&(*context)->failures());
        return runCommandExperiment(p, **context, observer, control, claims->warnings, claims->sharers);
    }
    return runOnWorker(p, **context, observer, control, watch, warnings, claims->sharers);
}

}  // namespace nf::engine
