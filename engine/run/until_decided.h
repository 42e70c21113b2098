#pragma once
// Watches a run that runs until decided: after every stored repetition it adds the repetition's
// units of the primary metric (the log ratio candidate / baseline of each chunk pair, or of the
// repetition when the run does not alternate) to a confidence sequence (engine/analysis/
// sequential.h) and says whether the run may stop: decided, or out of measuring time.

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/sequential.h"
#include "engine/model/run_data.h"

namespace nf::engine {

// The sequence's options for a run with these until-decided settings.
SequentialOptions decisionOptions(const UntilDecided& until);

class DecisionMonitor {
public:
    // `spec.until` set; variant 0 is the baseline, variant 1 the candidate; the primary metric is
    // layout.metrics.front().
    DecisionMonitor(const ExperimentSpec& spec, const RunLayout& layout);

    // Adds the repetition's units and looks. The units are those the fixed-n analysis of the run
    // rests on: a live run side by side's setups (each setup's median log ratio of its chunk pairs,
    // engine/analysis/setup_factor.h), else chunk pairs, else repetitions. Chunk pairs are those
    // the fixed-n analysis of the run so far compares: a chunk the measuring thread was switched out of or that stalled
    // leaves its pair out, by the one rule both take (preemptedChunks, engine/analysis/analysis.h). A stall is judged
    // against the median chunk so far, so the sequence is formed again at every look.
    DecisionLook add(const RepetitionResult& rep);
    // Whether to stop after this look: decided, or the next repetition (as long as this one) would
    // end past the measuring time. Sets the stop reason.
    bool shouldStop(const DecisionLook& look, double repetitionSeconds);
    // The record of the run so far; `planEnded` when the plan ran out before a decision.
    DecisionRecord record(bool planEnded) const;
    // The sequence at the last look.
    const ConfidenceSequence& sequence() const { return m_sequence; }

private:
    void addRepetition(const RepetitionResult& rep);
    void addChunks(const RepetitionResult& rep);

    // A round's chunks of the baseline and of the candidate: indices into m_chunks; and the setup
    // it was measured in (its repetition and the baseline's place) where the run has places (a live
    // run side by side), else a place that is not a number.
    struct Round {
        std::vector<std::size_t> chunks[2];
        int repetition = -1;
        double place = std::numeric_limits<double>::quiet_NaN();
    };

    ExperimentSpec m_spec;
    RunLayout m_layout;  // a copy: the message it came in does not outlive the look
    ConfidenceSequence m_sequence;
    int m_switches = -1;  // quantity index of context-switches
    int m_place = -1;     // quantity index of place (live runs side by side), else -1
    // Alternating runs: every chunk of the two variants so far, its values cut to the primary
    // metric's numerator and denominator and the context-switches count; and its rounds in order.
    RunTable m_chunks{3};
    std::vector<Round> m_rounds;
    std::string m_unit;
    std::optional<DecisionLook> m_last;
    std::string m_reason;
    int m_looks = 0;
};

}  // namespace nf::engine
