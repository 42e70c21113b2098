#include "ui/run_loader.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include "data/noise_floor_store.h"
#include "data/run_store.h"

namespace nf::ui {

namespace {

std::shared_ptr<LoadedRuns> load(Store& store, const std::vector<std::int64_t>& ids, const QStringList& variants,
                                 const CompareSettings& settings)
{
    QElapsedTimer timer;
    timer.start();
    auto out = std::make_shared<LoadedRuns>();
    for (auto id : ids) {
        auto run = store.read([id](data::Database& db) { return data::loadRun(db, id); });
        if (!run) {
            out->error = QString::fromStdString(run.error().message);
            return out;
        }
        out->runs.push_back(std::make_shared<const engine::RunRecord>(std::move(*run)));
    }
    const bool oneRun = out->runs.size() == 1 && (variants.isEmpty() || variants.front().isEmpty());
    if (oneRun) {
        out->comparison = compareRun(*out->runs.front(), settings);
    } else {
        std::vector<const engine::RunRecord*> runs;
        for (const auto& r : out->runs) {
            runs.push_back(r.get());
        }
        const auto& first = out->runs.front()->row;
        auto floors =
            store.read([&](data::Database& db) { return data::calibratedFloors(db, first.workload, first.host); });
        if (!floors) {
            out->error = QString::fromStdString(floors.error().message);
            return out;
        }
        out->comparison = compareAcross(runs, variants, settings, *floors);
    }
    out->seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    return out;
}

}  // namespace

RunLoader::RunLoader(QObject* parent) : QObject(parent)
{
    m_pool.setMaxThreadCount(1);
    connect(this, &RunLoader::resultReady, this, &RunLoader::deliver, Qt::QueuedConnection);
    connect(this, &RunLoader::sweepReady, this, &RunLoader::deliverSweep, Qt::QueuedConnection);
}

RunLoader::~RunLoader()
{
    m_pool.waitForDone();
}

std::uint64_t RunLoader::request(std::shared_ptr<Store> store, const std::vector<std::int64_t>& runIds,
                                 const QStringList& variants, const CompareSettings& settings)
{
    const std::uint64_t generation = ++m_generation;
    ++m_inFlight;
    m_pool.start([this, generation, store = std::move(store), runIds, variants, settings] {
        auto result = load(*store, runIds, variants, settings);
        emit resultReady(generation, result);  // queued: delivered on the GUI thread
    });
    return generation;
}

void RunLoader::deliver(std::uint64_t generation, const std::shared_ptr<LoadedRuns>& result)
{
    --m_inFlight;
    if (generation != m_generation) {
        ++m_dropped;  // stale: a newer request was made since
        return;
    }
    emit loaded(generation, *result);
}

std::uint64_t RunLoader::requestSweep(std::shared_ptr<Store> store, const QString& sweepId, const QString& metric)
{
    const std::uint64_t generation = ++m_sweepGeneration;
    ++m_inFlight;
    m_pool.start([this, generation, store = std::move(store), id = sweepId.toStdString(), name = metric.toStdString()] {
        auto sweep = std::make_shared<SweepView>(
            store->read([&id, &name](data::Database& db) { return loadSweep(db, id, name); }));
        emit sweepReady(generation, sweep);
    });
    return generation;
}

void RunLoader::deliverSweep(std::uint64_t generation, const std::shared_ptr<SweepView>& sweep)
{
    --m_inFlight;
    if (generation != m_sweepGeneration) {
        ++m_dropped;
        return;
    }
    emit sweepLoaded(generation, *sweep);
}

void RunLoader::waitForIdle()
{
    while (m_inFlight > 0) {
        m_pool.waitForDone();
        QCoreApplication::processEvents();
    }
}

}  // namespace nf::ui
