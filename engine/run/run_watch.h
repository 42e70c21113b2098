#pragma once
// Watches a run while it goes on, for a display: the primary metric's difference between the
// candidate (variant 1) and the baseline (variant 0) as the confidence sequence of the
// run-until-decided method (engine/analysis/sequential.h) sees it, after every batch of samples
// that arrives, not only after a stored repetition. Within a repetition a chunk pair counts as soon
// as both of its chunks are measured, left out by the fixed-n analysis's rule (preemptedChunks): a
// chunk with a context switch, or one longer than 1.5x its variant's median chunk so far (a
// stall); at its end the sequence is DecisionMonitor's, whose pairs are the fixed-n analysis's
// (the median then over the whole run, and every chunk kept when a variant would lose over
// 90%). A whole repetition is one unit when the run does not alternate. Because the sequence is
// time-uniform, looking at it this often does not make it wrong; the decision it shows is still
// provisional (a run stops only on a stored repetition's look).

#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "engine/analysis/sequential.h"
#include "engine/model/run_data.h"
#include "engine/run/until_decided.h"

namespace nf::engine {

// What the confidence sequence of the primary metric says of the units measured so far, a few
// times a second. Provisional: the decision it would reach now, not one the run stops on (that is
// DecisionLook's, after a stored repetition).
struct WatchLook {
    std::size_t units = 0;
    double elapsed = 0;        // seconds from the first measurement to the end of the last sample
    double estimatePct = NAN;  // NaN before the first unit
    double lowPct = NAN;       // the confidence sequence; NaN with fewer than 2 units
    double highPct = NAN;
    double marginPct = 1;
    double detectablePct = NAN;      // the sequence's half-width at the plan's end at today's spread
    double secondsToDecision = NAN;  // measuring time still needed at the current rate; NaN unknown
    double secondsLeft = NAN;        // until the plan (or the maximum time) ends at the current rate
    std::string decision;            // "different", "negligible", "equivalent" or "inconclusive"
};

// A display that watches a run (the event stream), handed to runExperiment beside its observer:
// while a repetition is measured it is told the samples so far a few times a second (the
// repetition's result repeats them), then the look at everything measured. Called on the thread
// that called runExperiment.
class WatchObserver {
public:
    virtual ~WatchObserver() = default;
    virtual void samplesMeasured(int repetition, const std::vector<Sample>& samples) = 0;
    virtual void watchLook(const WatchLook& look) = 0;
};

class RunWatch {
public:
    // Options as the run's --until decided would use them (alpha 0.05, margin 1% when unset).
    RunWatch(const ExperimentSpec& spec, const RunLayout& layout);

    // Samples measured so far in a repetition, in the order measured.
    void add(const std::vector<Sample>& samples);
    // The repetition is over: its samples not yet added, then its remaining units.
    void finishRepetition(const RepetitionResult& rep);
    WatchLook look() const;
    std::size_t units() const { return m_sequence.units(); }

private:
    using Key = std::tuple<int, int>;  // repetition, pair (0 when not alternating)
    void addOne(const Sample& s);
    void close(const Key& key);
    double medianChunk(int variant) const;  // of the chunks so far; infinite before the first

    ExperimentSpec m_spec;
    RunLayout m_layout;
    ConfidenceSequence m_sequence;
    DecisionMonitor m_monitor;  // whose sequence it takes at a repetition's end
    int m_switches = -1;
    // A live run side by side (it stores each chunk's place): its units are setups, which the
    // monitor forms at each repetition's end; chunk pairs are not added between.
    bool m_setups = false;
    std::map<Key, std::vector<Sample>> m_open;  // units not complete yet
    std::map<int, std::size_t> m_seen;          // samples added per repetition
    std::vector<double> m_chunkDurations[2];    // per variant, every chunk's so far, ascending
    double m_elapsed = 0;
    std::size_t m_samples = 0;  // of every variant
};

}  // namespace nf::engine
