// The Explore tab's exports: the plots as PNG or PDF under a header, the table as CSV.

#include <QLabel>
#include <QSaveFile>

#include <qcustomplot.h>

#include <cmath>

#include "ui/explore_panel.h"
#include "ui/file_dialog.h"
#include "ui/plot_export.h"

namespace nf::ui {

void ExplorePanel::exportInteractively()
{
    const QString file = chooseFileToSave(this, tr("Export the sweep"), QStringLiteral("sweep-%1.png").arg(m_view.id),
                                          tr("PNG image (*.png);;PDF document (*.pdf);;CSV table (*.csv)"));
    if (!file.isEmpty()) {
        emit status(exportTo(file) ? tr("Saved %1").arg(file) : tr("Cannot write %1").arg(file));
    }
}

namespace {

QString csvNumber(double value)
{
    return std::isfinite(value) ? QString::number(value, 'g', 10) : QString();
}

QString csvField(QString text)
{
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) || text.contains(QLatin1Char('\n'))) {
        text.replace(QStringLiteral("\""), QStringLiteral("\"\""));
        return QStringLiteral("\"%1\"").arg(text);
    }
    return text;
}

}  // namespace

bool ExplorePanel::exportTo(const QString& file) const
{
    if (file.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive)) {
        QSaveFile out(file);
        if (!out.open(QIODevice::WriteOnly | QIODevice::Text)) {
            return false;
        }
        QStringList rows{
            QStringLiteral("sweep,param,value,run,variant,metric,mean,ci_low,ci_high,baseline,delta_pct,"
                           "ci_low_pct,ci_high_pct,tost_low_pct,tost_high_pct,margin_pct,design,verdict,"
                           "verdicts")};
        for (const auto& point : m_view.points) {
            for (int v = 0; v < m_view.variants.size(); ++v) {
                const auto i = static_cast<std::size_t>(v);
                const SweepDifference d = i < point.differences.size() ? point.differences[i] : SweepDifference{};
                const bool candidate = !d.verdict.isEmpty();
                rows << QStringList{csvField(m_view.id),
                                    csvField(m_view.param),
                                    csvField(point.value),
                                    QString::number(point.runId),
                                    csvField(m_view.variants[v]),
                                    csvField(m_view.metric),
                                    csvNumber(i < point.mean.size() ? point.mean[i] : NAN),
                                    csvNumber(i < point.ciLow.size() ? point.ciLow[i] : NAN),
                                    csvNumber(i < point.ciHigh.size() ? point.ciHigh[i] : NAN),
                                    csvField(m_view.baseline),
                                    csvNumber(d.estimatePct),
                                    csvNumber(d.ciLowPct),
                                    csvNumber(d.ciHighPct),
                                    csvNumber(d.tostLowPct),
                                    csvNumber(d.tostHighPct),
                                    candidate ? csvNumber(m_view.marginPct) : QString(),
                                    csvField(d.design),
                                    candidate ? d.verdict : QStringLiteral("baseline"),
                                    csvField(point.verdicts.join(QStringLiteral("; ")))}
                            .join(QLatin1Char(','));
            }
        }
        out.write((rows.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
        return out.commit();
    }
    QStringList header{tr("noisefloor: %1").arg(m_title->text())};
    header << tr("sweep %1; workload %2; metric %3; differences: %4")
                  .arg(m_view.id, m_view.workload, m_view.metric, differenceTitle());
    if (!m_view.simulated.isEmpty()) {
        header << m_view.simulated;
    }
    for (const auto& point : m_view.points) {
        for (const auto& verdict : point.verdicts) {
            header << tr("%1=%2 (run %3): %4").arg(m_view.param, point.value).arg(point.runId).arg(verdict);
        }
    }
    for (const auto& missing : m_view.missing) {
        header << tr("warning: no complete run at %1").arg(missing);
    }
    m_plot->replot();
    return exportPlots(file, header, {m_plot}, 1);
}

}  // namespace nf::ui
