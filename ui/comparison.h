#pragma once
// What the Compare tab shows, computed from stored runs with the engine's analysis (nf::engine::
// analyze): for PPS, IPC, branch misses per op and cycles (or TSC ticks) per op, every
// repetition's value, each variant's mean and 95% CI, and the verdict of each candidate against
// the baseline. No statistics are computed here; this only selects and arranges.

#include <QString>
#include <QStringList>

#include <array>
#include <vector>

#include "engine/model/run_record.h"

namespace nf::ui {

struct VariantView {
    QString name;
    std::vector<double> repetitions;  // one value per repetition, in time order
    double mean = 0;
    double ciLow = 0;
    double ciHigh = 0;
};

struct PanelView {
    QString title;   // what it shows: "PPS", "IPC, receiver thread", ... (+ " (SIMULATED)")
    QString metric;  // engine metric name shown, "" when none
    QString unit;
    QString notMeasured;  // why the panel is empty ("not measured: cycles (no PMU: ...)")
    std::vector<VariantView> variants;
    QStringList verdicts;  // one line per candidate: delta, CI and verdict
};

struct ComparisonView {
    QString title;
    QString error;  // the analysis could not run (no repetitions yet, ...)
    std::array<PanelView, 4> panels;
    // The evidence report of `noisefloor compare` for the same runs (engine/report/comparison_report),
    // and its warnings: the CLI and the GUI say the same things.
    QString report;
    QStringList warnings;
};

// One run's variants against each other.
ComparisonView compareRun(const engine::RunRecord& run);

// Variants of several runs against each other (kernel A vs kernel B); `variants[i]` empty = every
// variant of runs[i], else only that one.
ComparisonView compareAcross(const std::vector<const engine::RunRecord*>& runs, const QStringList& variants);

// The four panels' metric candidates, first present wins (docs/measurement.md, "Metric names"):
// PPS; IPC; branch misses per op, per packet or per branch; cycles per op or packet, else TSC ticks
// per op. A live test's receiver thread comes before its counted CPUs.
const std::array<std::vector<std::string>, 4>& panelMetrics();

}  // namespace nf::ui
