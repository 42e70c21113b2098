#include "engine/run/call_loop_worker.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <set>

#include <fmt/format.h>

#include "engine/run/counter_columns.h"
#include "engine/run/environment.h"
#include "engine/run/pinned_thread.h"
#include "engine/run/repetition_driver.h"
#include "engine/run/run_context.h"
#include "engine/run/schedule.h"
#include "engine/run/scheduler.h"
#include "engine/stats/descriptive.h"
#include "probes/code_size.h"
#include "probes/counter_group.h"
#include "probes/tsc_clock.h"

namespace nf::engine {

namespace {

// The cost of the harness itself: a loop of calls to an empty out-of-line function.
__attribute__((noinline)) std::uint64_t emptyCall(std::uint64_t x)
{
    asm volatile("" : "+r"(x));
    return x;
}

double loopOverheadTicks()
{
    constexpr std::uint64_t kCalls = 100000;
    double best = 1e300;
    for (int attempt = 0; attempt < 5; ++attempt) {
        std::uint64_t x = 0;
        const auto t0 = probes::readTsc();
        for (std::uint64_t i = 0; i < kCalls; ++i) {
            x = emptyCall(x);
        }
        const auto t1 = probes::readTsc();
        best = std::min(best, static_cast<double>(t1 - t0) / kCalls);
    }
    return best;
}

class Worker {
public:
    Worker(const PreparedExperiment& p, RunContext& context, std::stop_token stop, Channel<WorkerMessage>& out)
        : m_p(p), m_spec(p.spec), m_context(context), m_tsc(context.tsc()), m_stop(std::move(stop)), m_out(out)
    {
    }

    WorkerDone run(std::future<bool>& go);

private:
    Result<void> setUp();
    std::vector<int> placeLoops(int repetition);
    Result<Sample> measure(int variant, std::uint64_t calls);
    std::uint64_t calibrateCalls(int variant, double seconds);
    Result<void> warmUp(double sliceSeconds);
    void recalibrate(const RepetitionResult& rep, double sliceSeconds);
    nlohmann::json measurementJson(double sliceSeconds) const;
    nlohmann::json workerCounters() const;

    const PreparedExperiment& m_p;
    const ExperimentSpec& m_spec;
    RunContext& m_context;
    const probes::TscClock& m_tsc;
    std::stop_token m_stop;
    Channel<WorkerMessage>& m_out;
    std::optional<SampledCounters> m_counters;
    std::set<std::string> m_multiplexWarned;
    std::vector<std::unique_ptr<CallLoop>> m_loops;
    LayoutPlan m_layoutPlan{layoutPlan(m_spec)};
    bool m_placed = false;               // the loops have several placements: each repetition runs the plan's
    std::vector<std::uint64_t> m_calls;  // per variant, calls per slice
    std::vector<double> m_ticksPerCall;  // per variant, median over the warmup
    RunLayout m_layout;
    double m_loopOverhead = 0;
    std::uint64_t m_t0 = 0;
};

Result<void> Worker::setUp()
{
    NF_TRY(pinCurrentThread(m_context.cpus().worker).withContext("the measuring thread: "));
    auto counters = NF_TRY(m_context.counters().open(probes::CounterTarget::callingThread()));
    if (auto w = userOnlyWarning(counters, m_p.facts.perfEventParanoid, "the worker thread")) {
        m_out.push(WorkerWarning{*w});
    }
    m_counters.emplace(std::move(counters));
    for (std::size_t v = 0; v < m_p.params.size(); ++v) {
        auto loop =
            NF_TRY(m_p.implementation->make(m_p.params[v], 0).withContext("variant " + m_spec.variants[v].name + ": "));
        for (const auto& w : loop->warnings()) {
            m_out.push(WorkerWarning{"variant " + m_spec.variants[v].name + ": " + w});
        }
        m_placed = !loop->placements().empty();
        m_loops.push_back(std::move(loop));
    }
    placeLoops(0);
    m_layout.quantities = {quantity::kOps, quantity::kTscTicks, quantity::kElapsedNs};
    for (const auto& name : counterQuantities(m_counters->group(), "")) {
        m_layout.quantities.push_back(name);
    }
    m_layout.metrics = callLoopMetrics(m_layout.quantities);
    std::stable_partition(m_layout.metrics.begin(), m_layout.metrics.end(),
                          [&](const MetricSpec& m) { return m.name == m_p.primaryMetric(); });
    m_loopOverhead = loopOverheadTicks();
    return {};
}

// Puts every variant's loop in its placement for `repetition`; returns them (empty when the
// workload's code has one placement).
std::vector<int> Worker::placeLoops(int repetition)
{
    if (!m_placed) {
        return {};
    }
    auto placements = m_layoutPlan.at(repetition);
    for (std::size_t v = 0; v < m_loops.size() && v < placements.size(); ++v) {
        m_loops[v]->place(static_cast<std::size_t>(placements[v]));
    }
    return placements;
}

// Both counter reads go into buffers made at setup: nothing is allocated between them (so no
// error context is made unless a read fails).
Result<Sample> Worker::measure(int variant, std::uint64_t calls)
{
    if (auto r = m_counters->read(); !r) {
        return Error{"reading the counters of the worker thread: " + r.error().message};
    }
    m_counters->advance();
    const auto t0 = probes::readTsc();
    m_loops[static_cast<std::size_t>(variant)]->run(calls);
    const auto t1 = probes::readTsc();
    m_context.counters().addOperations(calls);
    if (auto r = m_counters->read(); !r) {
        return Error{"reading the counters of the worker thread: " + r.error().message};
    }

    Sample s;
    s.variant = variant;
    s.start = m_tsc.toSeconds(t0 - m_t0);
    s.duration = m_tsc.toSeconds(t1 - t0);
    s.values.assign(m_layout.quantities.size(), 0.0);
    s.values[0] = static_cast<double>(calls);
    s.values[1] = static_cast<double>(t1 - t0);
    s.values[2] = m_tsc.toNanoseconds(t1 - t0);
    m_counters->write(s.values, 3);
    return s;
}

std::uint64_t Worker::calibrateCalls(int variant, double seconds)
{
    const double target = seconds * m_tsc.hz();
    std::uint64_t n = 1;
    for (;;) {
        const auto t0 = probes::readTsc();
        m_loops[static_cast<std::size_t>(variant)]->run(n);
        const auto ticks = static_cast<double>(probes::readTsc() - t0);
        if (ticks >= target / 4 || n >= (1ULL << 40)) {
            return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(target * static_cast<double>(n) / ticks));
        }
        n *= 4;
    }
}

Result<void> Worker::warmUp(double sliceSeconds)
{
    const auto variants = static_cast<int>(m_loops.size());
    std::vector<std::vector<double>> ticksPerCall(m_loops.size());
    // Bounded by time, not by a slice count: the first calibration of calls per slice can be off by
    // a large factor on a busy machine, and the warmup must still last the seconds the user asked.
    const auto until = probes::readTsc() + static_cast<std::uint64_t>(m_spec.warmup * m_tsc.hz());
    while (probes::readTsc() < until && !m_stop.stop_requested()) {
        for (int v = 0; v < variants; ++v) {
            const auto s = NF_TRY(measure(v, m_calls[static_cast<std::size_t>(v)]));
            ticksPerCall[static_cast<std::size_t>(v)].push_back(s.values[1] / s.values[0]);
        }
    }
    m_ticksPerCall.assign(m_loops.size(), 0);
    for (std::size_t v = 0; v < m_loops.size(); ++v) {
        if (!ticksPerCall[v].empty()) {
            m_ticksPerCall[v] = median(ticksPerCall[v]);
            m_calls[v] =
                std::max<std::uint64_t>(1, static_cast<std::uint64_t>(sliceSeconds * m_tsc.hz() / m_ticksPerCall[v]));
        }
    }
    return {};
}

// Keeps every variant's chunks one length: the calls per slice follow the median ticks per call of
// the variant's chunks in the repetition just measured, leaving out chunks the worker was switched
// out of. A short or disturbed warmup can misjudge a variant by a factor of two; unequal chunk
// lengths then favour the variant with the longer chunks (its cache warm-up is spread wider).
void Worker::recalibrate(const RepetitionResult& rep, double sliceSeconds)
{
    const int switches = m_layout.quantityIndex("context-switches");
    std::vector<std::vector<double>> ticksPerCall(m_loops.size());
    for (const auto& s : rep.samples) {
        const bool switched = switches >= 0 && s.values[static_cast<std::size_t>(switches)] > 0;
        if (!switched && s.values[0] > 0) {
            ticksPerCall[static_cast<std::size_t>(s.variant)].push_back(s.values[1] / s.values[0]);
        }
    }
    for (std::size_t v = 0; v < m_loops.size(); ++v) {
        if (ticksPerCall[v].size() >= 5) {
            m_calls[v] = std::max<std::uint64_t>(
                1, static_cast<std::uint64_t>(sliceSeconds * m_tsc.hz() / median(ticksPerCall[v])));
        }
    }
}

nlohmann::json Worker::workerCounters() const
{
    auto json = countersJson(m_counters->group(), m_context.counters().simulated());
    json["target"] = "the worker thread (CPU " + std::to_string(m_context.cpus().worker) + ")";
    return json;
}

std::string hexAddress(const void* address)
{
    return fmt::format("{:#x}", reinterpret_cast<std::uintptr_t>(address));
}

// Where each placement of the variant's code starts (docs/measurement.md, "Code layout as a
// factor"): its hot functions' and measuring loop's entries, their offsets in cache line and page,
// the stack offset and the code's size, which is the same in every copy of one function.
nlohmann::json placementsJson(const CallLoop& loop)
{
    nlohmann::json out = nlohmann::json::array();
    const auto placements = loop.placements();
    for (std::size_t l = 0; l < placements.size(); ++l) {
        nlohmann::json hot = nlohmann::json::array();
        std::uint64_t bytes = 0;
        for (const void* address : placements[l].hot) {
            const auto at = reinterpret_cast<std::uintptr_t>(address);
            hot.push_back({{"address", hexAddress(address)}, {"in_line", at % 64}, {"in_page", at % 4096}});
            if (auto symbol = probes::codeSymbolAt(address)) {
                bytes += symbol->bytes;
            }
        }
        out.push_back({{"placement", l},
                       {"hot", hot},
                       {"loop", hexAddress(placements[l].loop)},
                       {"stack_offset", placements[l].stackOffset},
                       {"bytes", bytes}});
    }
    return out;
}

// The variant's hot functions and their sizes from the ELF symbol table: {bytes, symbols} or
// {error} when the binary is stripped. The copies of a function in other placements are the same
// symbol name and size (probes::shortFunctionName leaves out their namespace).
nlohmann::json codeJson(const CallLoop& loop)
{
    nlohmann::json symbols = nlohmann::json::array();
    std::uint64_t bytes = 0;
    std::string file;
    for (const void* address : loop.hotCode()) {
        auto symbol = probes::codeSymbolAt(address);
        if (!symbol) {
            return {{"error", symbol.error().message}};
        }
        bytes += symbol->bytes;
        file = symbol->file;
        symbols.push_back({{"name", symbol->name}, {"bytes", symbol->bytes}});
    }
    if (symbols.empty()) {
        return {{"error", "the workload names no hot functions"}};
    }
    nlohmann::json code = {{"bytes", bytes}, {"symbols", symbols}, {"source", "ELF symbol table of " + file}};
    if (const auto placed = placementsJson(loop); !placed.empty()) {
        code["placements"] = placed;
    }
    return code;
}

nlohmann::json Worker::measurementJson(double sliceSeconds) const
{
    nlohmann::json calls = nlohmann::json::object();
    nlohmann::json facts = nlohmann::json::object();  // what each prepared variant says of itself
    nlohmann::json code = nlohmann::json::object();
    for (std::size_t v = 0; v < m_calls.size(); ++v) {
        calls[m_spec.variants[v].name] = m_calls[v];
        code[m_spec.variants[v].name] = codeJson(*m_loops[v]);
        nlohmann::json own = nlohmann::json::object();
        for (const auto& [key, value] : m_loops[v]->facts()) {
            own[key] = value;
        }
        facts[m_spec.variants[v].name] = own;
    }
    return {{"worker_cpu", m_context.cpus().worker},
            {"variant_facts", facts},
            {"code", code},
            {"slice_seconds", sliceSeconds},
            {"alternating", *m_spec.chunk > 0},
            {"calls_per_slice", calls},
            {"calls_per_slice_note", "after the warmup; alternating runs recalibrate after every repetition"},
            {"loop_overhead_ticks_per_op", m_loopOverhead},
            {"loop_overhead_note", "ticks of one iteration of an empty out-of-line call loop; not subtracted"}};
}

WorkerDone Worker::run(std::future<bool>& go)
{
    if (auto r = setUp(); !r) {
        return {RunStatus::Failed, r.error().message};
    }
    const bool alternating = *m_spec.chunk > 0;
    const double sliceSeconds = alternating ? *m_spec.chunk : m_spec.interval;
    for (std::size_t v = 0; v < m_loops.size(); ++v) {
        m_calls.push_back(calibrateCalls(static_cast<int>(v), sliceSeconds));
    }
    m_t0 = probes::readTsc();
    if (auto r = warmUp(sliceSeconds); !r) {
        return {RunStatus::Failed, r.error().message};
    }
    for (std::size_t v = 0; v < m_loops.size(); ++v) {
        const double callSeconds = m_ticksPerCall[v] / m_tsc.hz();
        if (callSeconds > sliceSeconds * 1.5) {
            m_out.push(WorkerWarning{"variant " + m_spec.variants[v].name + ": one call takes " +
                                     std::to_string(callSeconds * 1e3) + " ms, longer than a slice of " +
                                     std::to_string(sliceSeconds * 1e3) + " ms; each slice runs 1 call"});
        }
    }
    m_out.push(WorkerReady{m_layout,
                           {{"tsc", tscJson(m_tsc.calibration())},
                            {"counters", workerCounters()},
                            {"measurement", measurementJson(sliceSeconds)}}});
    if (!go.get()) {
        return {RunStatus::Failed, "not started"};
    }

    std::mt19937_64 rng(*m_spec.seed);
    const int rounds = alternating ? std::max(1, static_cast<int>(std::lround(m_spec.duration / sliceSeconds))) : 0;
    const int perVariant = std::max(1, static_cast<int>(std::lround(m_spec.duration / m_spec.interval)));
    m_t0 = probes::readTsc();
    m_context.setTimeOrigin(m_t0);
    const auto measureUnit = [&](const ScheduleUnit& unit, RepetitionResult& rep) -> Result<UnitEnd> {
        std::vector<int> counts(m_loops.size(), 0);
        rep.layouts = placeLoops(unit.repetition);
        PartialSender partial(m_out, m_context.watched());
        SlicePlan slices(unit, rounds, perVariant, m_spec.order, rng);
        while (auto slice = slices.next()) {
            if (m_stop.stop_requested()) {
                return UnitEnd::Stopped;
            }
            auto s = NF_TRY(measure(slice->variant, m_calls[static_cast<std::size_t>(slice->variant)]));
            s.repetition = unit.repetition;
            s.pair = slice->pair;
            s.index = counts[static_cast<std::size_t>(slice->variant)]++;
            rep.samples.push_back(std::move(s));
            partial.offer(unit.repetition, rep);
        }
        if (auto w = multiplexWarning(m_layout, rep, m_multiplexWarned)) {
            m_out.push(WorkerWarning{*w});
        }
        if (alternating) {
            recalibrate(rep, sliceSeconds);
        }
        return UnitEnd::Done;
    };
    const auto outcome = driveRepetitions(m_spec, static_cast<int>(m_loops.size()), rng, m_stop, m_context.failures(),
                                          measureUnit, [this](RepetitionResult&& rep) {
                                              m_out.push(std::move(rep));
                                              return true;
                                          });
    return {outcome.status, outcome.reason};
}

}  // namespace

void runCallLoopWorker(const PreparedExperiment& prepared, RunContext& context, std::stop_token stop,
                       Channel<WorkerMessage>& out, std::future<bool> go)
{
    Worker worker(prepared, context, std::move(stop), out);
    out.push(worker.run(go));
}

}  // namespace nf::engine
