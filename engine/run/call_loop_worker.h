#pragma once
// The measuring side of a call-loop experiment; runs on the pinned worker thread.

#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <variant>

#include "engine/model/run_data.h"
#include "engine/run/channel.h"

namespace nf::engine {

struct PreparedExperiment;
class RunContext;

struct WorkerReady {
    RunLayout layout;
    nlohmann::json environment;  // tsc, counters, measurement
};
struct WorkerWarning {
    std::string text;
};
struct WorkerDone {
    RunStatus status = RunStatus::Complete;
    std::string reason;
};
// The samples measured since the last such message in a running repetition, a few times a second
// (no closer than kPartialEverySeconds), for watching; the repetition's result repeats them.
struct WorkerPartial {
    int repetition = 0;
    std::vector<Sample> samples;
};
inline constexpr double kPartialEverySeconds = 0.1;
using WorkerMessage = std::variant<WorkerReady, RepetitionResult, WorkerWarning, WorkerDone, WorkerPartial>;

// Unwatched, the recording thread still wakes this often while a repetition runs, to look for runs
// that join its CPUs (SharerWatch::look), and no more: each wakeup may land on a measured CPU.
inline constexpr double kPartialUnwatchedSeconds = 0.25;

// Sends the samples a running repetition gained since the last time as a WorkerPartial, once
// kPartialEverySeconds have passed when anything watches the run (`watched`), else once
// kPartialUnwatchedSeconds have. One per repetition.
class PartialSender {
public:
    PartialSender(Channel<WorkerMessage>& out, bool watched)
        : m_out(out), m_period(watched ? kPartialEverySeconds : kPartialUnwatchedSeconds)
    {
    }
    void offer(int repetition, const RepetitionResult& rep)
    {
        const auto now = std::chrono::steady_clock::now();
        if (std::chrono::duration<double>(now - m_last).count() < m_period || rep.samples.size() <= m_sent) {
            return;
        }
        m_out.push(
            WorkerPartial{repetition, {rep.samples.begin() + static_cast<std::ptrdiff_t>(m_sent), rep.samples.end()}});
        m_sent = rep.samples.size();
        m_last = now;
    }

private:
    Channel<WorkerMessage>& m_out;
    double m_period;  // seconds
    std::size_t m_sent = 0;
    std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

// Pins itself to the context's worker CPU, opens the run's counters on itself, prepares every
// variant side by side, measures the loop overhead, calibrates calls per slice (by the context's
// TSC) and warms up; sends WorkerReady and waits for `go`; then measures every planned unit and
// sends each as a RepetitionResult. Always ends by sending WorkerDone.
void runCallLoopWorker(const PreparedExperiment& prepared, RunContext& context, std::stop_token stop,
                       Channel<WorkerMessage>& out, std::future<bool> go);

}  // namespace nf::engine
