#pragma once
// What the Explore tab shows of a parameter sweep, taken from the comparison `noisefloor compare
// --sweep` makes (engine::compareSweep, the code behind its JSON): for each point (a complete run),
// each variant's mean of one metric with its 95% CI, and - what each point's verdict rests on -
// each candidate's difference from the baseline in percent with its intervals, in the design the
// point was measured in. Nothing here is statistics; it only selects and arranges.

#include <QString>
#include <QStringList>

#include <cstdint>
#include <limits>
#include <vector>

#include "data/database.h"

namespace nf::ui {

// One candidate against the baseline at one point: the engine's primary comparison, as it is.
struct SweepDifference {
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    double estimatePct = kNone;
    double ciLowPct = kNone;  // the 1 - alpha interval (a difference is claimed outside 0); NaN: unbounded
    double ciHighPct = kNone;
    double levelPct = kNone;    // the coverage it has
    double tostLowPct = kNone;  // the 1 - 2 alpha interval (equivalence when inside the margin)
    double tostHighPct = kNone;
    double tostLevelPct = kNone;
    QString design;   // "paired chunk log-ratios", "independent repetitions"
    QString verdict;  // different, negligible, equivalent, inconclusive; "" for the baseline
};

struct SweepPointView {
    QString value;  // the parameter's value as given
    std::int64_t runId = 0;
    std::vector<double> mean;  // per variant
    std::vector<double> ciLow;
    std::vector<double> ciHigh;
    std::vector<SweepDifference> differences;  // per variant; the baseline's has no estimate
    QStringList verdicts;                      // each candidate against the baseline at this point
};

struct SweepView {
    QString id;
    QString workload;
    QString param;
    QString metric;
    QString unit;
    bool higherIsBetter = false;
    QStringList variants;
    QString baseline;
    double marginPct = 0;  // the equivalence margin every point's verdict used, +-%
    double alpha = 0;      // the significance level: intervals at 1 - alpha and 1 - 2 alpha
    QStringList designs;   // the designs the points' differences come from, as named on the plot
    std::vector<SweepPointView> points;
    QStringList metrics;  // every metric the sweep's runs stored: what may be picked
    QStringList missing;  // points without a complete run
    QString simulated;    // the note of a sweep measured with the simulated PMU
    QString error;
};

// Reads sweep `sweepId` and compares `metric` ("" = the workload's primary metric) at every point
// as `noisefloor compare --sweep` does with its default options.
SweepView loadSweep(data::Database& db, const std::string& sweepId, const std::string& metric);

// The sweeps in the database, newest first: {id, "page-pool zero_size_pct (5 points)"}.
std::vector<std::pair<QString, QString>> listSweeps(data::Database& db);

}  // namespace nf::ui
