#include "ui/run_loader.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include "data/schema.h"

namespace nf::ui {

namespace {

std::shared_ptr<LoadedRuns> load(const std::string& dbPath, const std::vector<std::int64_t>& ids,
                                 const QStringList& variants)
{
    QElapsedTimer timer;
    timer.start();
    auto out = std::make_shared<LoadedRuns>();
    auto db = data::openStore(dbPath, data::Database::Mode::ReadOnly);
    if (!db) {
        out->error = QString::fromStdString(db.error().message);
        return out;
    }
    for (auto id : ids) {
        auto run = data::loadRun(*db, id);
        if (!run) {
            out->error = QString::fromStdString(run.error().message);
            return out;
        }
        out->runs.push_back(std::make_shared<const engine::RunRecord>(std::move(*run)));
    }
    const bool oneRun = out->runs.size() == 1 && (variants.isEmpty() || variants.front().isEmpty());
    if (oneRun) {
        out->comparison = compareRun(*out->runs.front());
    } else {
        std::vector<const engine::RunRecord*> runs;
        for (const auto& r : out->runs) {
            runs.push_back(r.get());
        }
        out->comparison = compareAcross(runs, variants);
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

std::uint64_t RunLoader::request(const QString& dbPath, const std::vector<std::int64_t>& runIds,
                                 const QStringList& variants)
{
    const std::uint64_t generation = ++m_generation;
    ++m_inFlight;
    m_pool.start([this, generation, path = dbPath.toStdString(), runIds, variants] {
        auto result = load(path, runIds, variants);
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

std::uint64_t RunLoader::requestSweep(const QString& dbPath, const QString& sweepId, const QString& metric)
{
    const std::uint64_t generation = ++m_sweepGeneration;
    ++m_inFlight;
    m_pool.start(
        [this, generation, path = dbPath.toStdString(), id = sweepId.toStdString(), name = metric.toStdString()] {
            auto sweep = std::make_shared<SweepView>();
            if (auto db = data::openStore(path, data::Database::Mode::ReadOnly)) {
                *sweep = loadSweep(*db, id, name);
            } else {
                sweep->error = QString::fromStdString(db.error().message);
            }
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
