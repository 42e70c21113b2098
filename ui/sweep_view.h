#pragma once
// What the Explore tab shows of a parameter sweep: for each point (a complete run), each variant's
// mean of one metric with its 95% CI, from the engine's analysis of that run. Nothing here is
// statistics; it only gathers the analysis of every point.

#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

#include "data/database.h"

namespace nf::ui {

struct SweepPointView {
    QString value;  // the parameter's value as given
    std::int64_t runId = 0;
    std::vector<double> mean;  // per variant
    std::vector<double> ciLow;
    std::vector<double> ciHigh;
    QStringList verdicts;  // each candidate against the baseline at this point
};

struct SweepView {
    QString id;
    QString workload;
    QString param;
    QString metric;
    QString unit;
    bool higherIsBetter = false;
    QStringList variants;
    std::vector<SweepPointView> points;
    QStringList missing;  // points without a complete run
    QString error;
};

// Reads sweep `sweepId` and analyses `metric` ("" = the workload's primary metric) at every point.
SweepView loadSweep(data::Database& db, const std::string& sweepId, const std::string& metric);

// The sweeps in the database, newest first: {id, "page-pool zero_size_pct (5 points)"}.
std::vector<std::pair<QString, QString>> listSweeps(data::Database& db);

}  // namespace nf::ui
