#include "engine/run/scheduler.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <random>
#include <thread>

#include "engine/run/call_loop_worker.h"
#include "engine/run/command_experiment.h"
#include "engine/run/counter_columns.h"
#include "engine/run/cpu_claim.h"
#include "engine/run/environment.h"
#include "engine/run/live_worker.h"
#include "engine/run/run_watch.h"
#include "engine/run/until_decided.h"
#include "nf_version.h"

namespace nf::engine {

namespace {

// Keeps the recording thread off the worker's CPU, where there is another one to run on, for as
// long as it lives; then the thread has its own CPUs back (a second run prepared on it sees them).
class OffCpu {
public:
    OffCpu(int cpu, const std::vector<int>& allowed)
    {
        m_saved = pthread_getaffinity_np(pthread_self(), sizeof m_previous, &m_previous) == 0;
        cpu_set_t set;
        CPU_ZERO(&set);
        int count = 0;
        for (int c : allowed) {
            if (c != cpu) {
                CPU_SET(c, &set);
                ++count;
            }
        }
        if (count > 0) {
            pthread_setaffinity_np(pthread_self(), sizeof set, &set);
        }
    }
    ~OffCpu()
    {
        if (m_saved) {
            pthread_setaffinity_np(pthread_self(), sizeof m_previous, &m_previous);
        }
    }
    OffCpu(const OffCpu&) = delete;
    OffCpu& operator=(const OffCpu&) = delete;

private:
    cpu_set_t m_previous{};
    bool m_saved = false;
};

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
    return p;
}

std::string stopReason(const RunControl& control, const std::string& reason)
{
    const int sig = control.signal != nullptr ? control.signal->load() : 0;
    return sig != 0 ? std::string(sigabbrev_np(sig) != nullptr ? "SIG" + std::string(sigabbrev_np(sig)) : "signal") +
                          ": " + reason
                    : reason;
}

RunOutcome runExperiment(const PreparedExperiment& p, RunObserver& observer, const RunControl& control)
{
    auto claims =
        claimCpus(measuredCpus(p), control.owner + " (" + p.workload->name + ")", p.spec.shareCpus, control.lockDir);
    if (!claims) {
        return {RunStatus::Failed, claims.error().message, 0};
    }
    if (p.workload->kind == WorkloadKind::External) {
        return runCommandExperiment(p, observer, control, claims->warnings);
    }
    Channel<WorkerMessage> channel;
    std::promise<bool> go;
    std::stop_source stopWorker;
    std::stop_callback forward(control.stop, [&] { stopWorker.request_stop(); });
    const bool live = p.workload->kind == WorkloadKind::Live;
    std::optional<OffCpu> offCpu;
    if (!live) {
        offCpu.emplace(p.workerCpu, p.facts.allowedCpus);
    }
    std::jthread worker(
        [&](std::future<bool> started) {
            try {
                if (live) {
                    runLiveWorker(p, stopWorker.get_token(), channel, std::move(started));
                } else {
                    runCallLoopWorker(p, stopWorker.get_token(), channel, std::move(started));
                }
            } catch (const std::exception& e) {  // never std::terminate: one line and a failed run
                channel.push(
                    WorkerDone{RunStatus::Failed, std::string("internal error in the measuring thread: ") + e.what()});
            }
        },
        go.get_future());

    RunOutcome outcome;
    bool started = false;
    std::optional<Error> observerError;
    std::vector<std::string> early = claims->warnings;  // warnings before the run is stored: delivered once it is
    const int total = static_cast<int>(p.spec.variants.size()) * p.spec.repetitions;
    int unitsDone = 0;
    int variantReps = 0;
    std::optional<DecisionMonitor> monitor;  // --until decided
    std::optional<RunWatch> watch;           // the difference as it forms, for an observer that watches
    auto* watcher = dynamic_cast<WatchObserver*>(&observer);
    bool enough = false;  // decided or out of time: the rest is not stored
    for (;;) {
        auto message = channel.pop();
        if (auto* ready = std::get_if<WorkerReady>(&message)) {
            RunStart start{p.spec, {}, ready->layout, ready->environment};
            for (const auto& params : p.params) {
                start.variantParams.emplace_back(params.all());
            }
            start.environment["system"] = systemFactsJson(p.facts);
            start.environment["tool"] = {
                {"name", "noisefloor"}, {"version", NF_VERSION}, {"command_line", control.commandLine}};
            auto r = observer.runStarted(start);
            started = r.ok();
            if (!r) {
                observerError = r.error();
            }
            for (const auto& text : early) {
                observer.warning(text);
            }
            if (p.spec.until) {
                monitor.emplace(p.spec, ready->layout);
            }
            if (watcher != nullptr && p.spec.variants.size() >= 2) {
                watch.emplace(p.spec, ready->layout);
            }
            go.set_value(started);
        } else if (auto* rep = std::get_if<RepetitionResult>(&message)) {
            if (observerError || enough) {  // one measured after the decision: discarded, as a stop does
                continue;
            }
            if (auto r = observer.repetitionFinished(*rep); !r) {
                observerError = r.error();
                stopWorker.request_stop();
                continue;
            }
            ++unitsDone;
            variantReps += static_cast<int>(rep->variants.size());
            const double perVariantRep = (rep->end - rep->start) / static_cast<double>(rep->variants.size());
            if (watch) {
                watch->finishRepetition(*rep);
                const auto look = watch->look();
                observer.progress(variantReps, total, look.secondsLeft);
                watcher->watchLook(look);
            } else {
                observer.progress(variantReps, total, perVariantRep * (total - variantReps));
            }
            if (monitor) {
                const auto look = monitor->add(*rep);
                if (auto r = observer.decisionLook(look); !r) {
                    observerError = r.error();
                    stopWorker.request_stop();
                    continue;
                }
                if (monitor->shouldStop(look, rep->end - rep->start)) {
                    enough = true;
                    stopWorker.request_stop();
                }
            }
        } else if (auto* partial = std::get_if<WorkerPartial>(&message)) {
            if (watcher != nullptr && started && !observerError && !enough) {
                watcher->samplesMeasured(partial->repetition, partial->samples);
                if (watch) {
                    watch->add(partial->samples);
                    const auto look = watch->look();
                    observer.progress(variantReps, total, look.secondsLeft);
                    watcher->watchLook(look);
                }
            }
        } else if (auto* warning = std::get_if<WorkerWarning>(&message)) {
            if (started) {
                observer.warning(warning->text);
            } else {
                early.push_back(warning->text);
            }
        } else if (auto* done = std::get_if<WorkerDone>(&message)) {
            outcome.status = done->status;
            outcome.reason = done->reason;
            break;
        }
    }
    worker.join();
    if (!started) {  // nothing was stored, but what went wrong on the way is still said
        for (const auto& text : early) {
            observer.warning(text);
        }
    }
    outcome.repetitionsDone = unitsDone;
    if (monitor && !observerError && (enough || outcome.status == RunStatus::Complete)) {
        // Stopped by the decision (or out of time, or the plan ran out): complete, with why.
        const auto record = monitor->record(!enough);
        outcome = {RunStatus::Complete, record.stopReason, unitsDone};
        if (auto r = observer.decisionMade(record); !r) {
            observerError = r.error();
        }
    }
    if (observerError) {
        outcome = {RunStatus::Failed, observerError->message, unitsDone};
    } else if (outcome.status == RunStatus::Aborted) {
        outcome.reason = stopReason(control, outcome.reason);
    }
    if (started) {
        observer.runFinished(outcome.status, outcome.reason);
    }
    return outcome;
}

}  // namespace nf::engine
