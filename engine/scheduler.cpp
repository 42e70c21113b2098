#include "scheduler.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <random>
#include <thread>

#include "call_loop_worker.h"
#include "command_experiment.h"
#include "environment.h"
#include "live_worker.h"
#include "nf_version.h"

namespace nf::engine {

namespace {

std::string workloadNames()
{
    std::string out;
    for (const auto& w : workloadRegistry()) {
        out += (out.empty() ? "" : ", ") + w.name;
    }
    return out;
}

bool contains(const std::vector<int>& xs, int x)
{
    return std::find(xs.begin(), xs.end(), x) != xs.end();
}

// Keeps the recording thread off the worker's CPU where there is another one to run on.
void moveOffCpu(int cpu, const std::vector<int>& allowed)
{
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

}  // namespace

Result<PreparedExperiment> prepareExperiment(ExperimentSpec spec, probes::SystemFacts facts)
{
    PreparedExperiment p;
    p.workload = findWorkload(spec.workload);
    if (p.workload == nullptr) {
        return Error{"unknown workload '" + spec.workload + "' (workloads: " + workloadNames() + ")"};
    }
    if (spec.variants.empty()) {
        spec.variants.push_back({"default", {}});
    }
    if (!spec.chunk) {
        spec.chunk = p.workload->defaultChunk;
    }
    if (auto r = spec.validate(); !r) {
        return r.error();
    }
    for (const auto& v : spec.variants) {
        auto params = ParamSet::resolve(p.workload->params, {&spec.params, &v.overrides}, spec.workload);
        if (!params) {
            return Error{(spec.variants.size() > 1 ? "variant " + v.name + ": " : "") + params.error().message};
        }
        p.params.push_back(std::move(*params));
    }
    if (spec.cpus.empty()) {
        if (facts.allowedCpus.empty()) {
            return Error{"no CPU is available to this process"};
        }
        spec.cpus = {facts.allowedCpus.back()};
    }
    for (int cpu : spec.cpus) {
        if (!contains(facts.onlineCpus, cpu) || !contains(facts.allowedCpus, cpu)) {
            return Error{"--cpu " + std::to_string(cpu) +
                         ": no such CPU available (online: " + probes::formatCpuList(facts.onlineCpus) +
                         ", allowed: " + probes::formatCpuList(facts.allowedCpus) + ")"};
        }
    }
    p.workerCpu = spec.cpus.front();
    if (spec.counters.empty()) {
        spec.counters = probes::defaultEventNames();
    }
    std::string list;
    for (const auto& c : spec.counters) {
        list += (list.empty() ? "" : ",") + c;
    }
    auto counters = probes::resolveEvents(list);
    if (!counters) {
        return Error{"--counters: " + counters.error().message};
    }
    p.counters = std::move(*counters);
    if (!spec.seed) {
        spec.seed = std::random_device{}();
    }
    p.spec = std::move(spec);
    p.facts = std::move(facts);
    if (p.workload->external) {
        if (auto checked = checkCommandExperiment(p); !checked) {
            return checked.error();
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

RunOutcome runExperiment(const PreparedExperiment& p, RunObserver& observer, const RunControl& control)
{
    if (p.workload->external) {
        return runCommandExperiment(p, observer, control);
    }
    Channel<WorkerMessage> channel;
    std::promise<bool> go;
    std::stop_source stopWorker;
    std::stop_callback forward(control.stop, [&] { stopWorker.request_stop(); });
    const bool live = static_cast<bool>(p.workload->makeLive);
    if (!live) {
        moveOffCpu(p.workerCpu, p.facts.allowedCpus);
    }
    std::jthread worker(
        [&](std::future<bool> started) {
            if (live) {
                runLiveWorker(p, stopWorker.get_token(), channel, std::move(started));
            } else {
                runCallLoopWorker(p, stopWorker.get_token(), channel, std::move(started));
            }
        },
        go.get_future());

    RunOutcome outcome;
    bool started = false;
    std::optional<Error> observerError;
    const int total = static_cast<int>(p.spec.variants.size()) * p.spec.repetitions;
    int unitsDone = 0;
    int variantReps = 0;
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
            go.set_value(started);
        } else if (auto* rep = std::get_if<RepetitionResult>(&message)) {
            if (observerError) {
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
            observer.progress(variantReps, total, perVariantRep * (total - variantReps));
        } else if (auto* warning = std::get_if<WorkerWarning>(&message)) {
            observer.warning(warning->text);
        } else if (auto* done = std::get_if<WorkerDone>(&message)) {
            outcome.status = done->status;
            outcome.reason = done->reason;
            break;
        }
    }
    worker.join();
    outcome.repetitionsDone = unitsDone;
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
