#pragma once
// Loads stored runs and their comparison off the GUI thread. Each request gets a generation id;
// a result that arrives after a newer request was made is dropped, so a slow load never
// overwrites what the user asked for since.

#include <QObject>
#include <QStringList>
#include <QThreadPool>

#include <cstdint>
#include <memory>
#include <vector>

#include "data/run_store.h"
#include "ui/comparison.h"
#include "ui/store.h"
#include "ui/sweep_view.h"

namespace nf::ui {

struct LoadedRuns {
    std::vector<std::shared_ptr<const engine::RunRecord>> runs;
    ComparisonView comparison;
    QString error;       // a run could not be read
    double seconds = 0;  // time to load and analyse
};

class RunLoader : public QObject {
    Q_OBJECT

public:
    explicit RunLoader(QObject* parent = nullptr);
    ~RunLoader() override;  // waits for a load in flight

    // Loads `runIds` through `store` (the window's one connection) and compares them: one run,
    // its variants; several, across runs (`variants[i]` non-empty selects one variant of run i).
    // `settings`: the baseline, margin, alpha and outlier rule the comparison uses. Returns the
    // request's generation.
    std::uint64_t request(std::shared_ptr<Store> store, const std::vector<std::int64_t>& runIds,
                          const QStringList& variants = {}, const CompareSettings& settings = {});
    // Loads sweep `sweepId` and analyses `metric` ("" = primary) at each point.
    std::uint64_t requestSweep(std::shared_ptr<Store> store, const QString& sweepId, const QString& metric);
    std::uint64_t generation() const { return m_generation; }
    bool busy() const { return m_inFlight > 0; }
    // Blocks until every load has finished and its result was delivered (tests, screenshots).
    void waitForIdle();
    int dropped() const { return m_dropped; }

signals:
    void loaded(std::uint64_t generation, const nf::ui::LoadedRuns& result);
    void sweepLoaded(std::uint64_t generation, const nf::ui::SweepView& sweep);
    // From the loader thread to the GUI thread (queued).
    void resultReady(std::uint64_t generation, std::shared_ptr<nf::ui::LoadedRuns> result);
    void sweepReady(std::uint64_t generation, std::shared_ptr<nf::ui::SweepView> sweep);

private:
    void deliver(std::uint64_t generation, const std::shared_ptr<LoadedRuns>& result);
    void deliverSweep(std::uint64_t generation, const std::shared_ptr<SweepView>& sweep);

    QThreadPool m_pool;
    std::uint64_t m_generation = 0;
    std::uint64_t m_sweepGeneration = 0;
    int m_inFlight = 0;
    int m_dropped = 0;
};

}  // namespace nf::ui
