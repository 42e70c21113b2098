#include "engine/run/repetition_driver.h"

#include <exception>

namespace nf::engine {

DriveOutcome driveRepetitions(const ExperimentSpec& spec, int variants, std::mt19937_64& rng,
                              const std::stop_token& stop, FailureSink& failures, const MeasureUnit& measure,
                              const TakeUnit& take)
{
    UnitPlan plan(variants, spec.repetitions, spec.order, rng);
    DriveOutcome outcome;
    const auto stopped = [&] {
        return DriveOutcome{RunStatus::Aborted,
                            "stopped during repetition " + std::to_string(plan.issued()) + " of " +
                                std::to_string(plan.total()) + " (discarded; " + std::to_string(outcome.kept) +
                                " kept)",
                            outcome.kept};
    };
    while (auto unit = plan.next()) {
        if (stop.stop_requested()) {
            return stopped();
        }
        RepetitionResult rep{unit->repetition, unit->variants, 0, 0, {}};
        Result<UnitEnd> end = UnitEnd::Done;
        try {
            end = measure(*unit, rep);
        } catch (const std::exception& e) {  // bad_alloc included: one line and a failed run
            return {RunStatus::Failed,
                    "internal error in repetition " + std::to_string(plan.issued()) + ": " + e.what() +
                        " (discarded; " + std::to_string(outcome.kept) + " kept)",
                    outcome.kept};
        }
        if (auto failure = failures.take()) {  // a helper thread died: this repetition cannot count
            return {RunStatus::Failed,
                    *failure + " in repetition " + std::to_string(plan.issued()) + " (discarded; " +
                        std::to_string(outcome.kept) + " kept)",
                    outcome.kept};
        }
        if (!end) {
            return {RunStatus::Failed, end.error().message, outcome.kept};
        }
        if (*end == UnitEnd::Stopped) {
            return stopped();
        }
        if (!rep.samples.empty()) {
            rep.start = rep.samples.front().start;
            rep.end = rep.samples.back().start + rep.samples.back().duration;
        }
        if (!take(std::move(rep))) {
            return {RunStatus::Failed, "", outcome.kept};
        }
        ++outcome.kept;
    }
    return outcome;
}

}  // namespace nf::engine
