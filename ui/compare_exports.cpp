#include "ui/compare_exports.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QSaveFile>
#include <QStringList>

#include <algorithm>
#include <sstream>

#include "data/export.h"
#include "ui/compare_panel.h"
#include "ui/file_dialog.h"

namespace nf::ui {

namespace {

// The fields of one CSV line as written (quotes kept); the exports put no newline in a field.
QStringList csvFields(const QString& line)
{
    QStringList fields{QString()};
    bool quoted = false;
    for (const QChar c : line) {
        if (c == QLatin1Char('"')) {
            quoted = !quoted;
        }
        if (c == QLatin1Char(',') && !quoted) {
            fields << QString();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

QString unquoted(QString field)
{
    if (field.startsWith(QLatin1Char('"')) && field.endsWith(QLatin1Char('"')) && field.size() >= 2) {
        field = field.mid(1, field.size() - 2).replace(QStringLiteral("\"\""), QStringLiteral("\""));
    }
    return field;
}

}  // namespace

CompareExports::CompareExports(ComparePanel* panel, QWidget* dialogParent)
    : QObject(dialogParent), m_panel(panel), m_dialogParent(dialogParent)
{
}

void CompareExports::copyEvidenceReport(const RunSelection& shown)
{
    const QString report = m_panel->reportText();
    if (shown.empty() || report.isEmpty()) {
        emit status(tr("Nothing to report: select a run in History first"));
        return;
    }
    QGuiApplication::clipboard()->setText(report);
    emit status(tr("Evidence report copied to the clipboard (%1 lines)").arg(report.count('\n')));
}

void CompareExports::saveImage()
{
    const QString file = chooseFileToSave(m_dialogParent, tr("Save comparison plots"), QStringLiteral("compare.png"),
                                          tr("PNG image (*.png);;PDF document (*.pdf)"));
    if (file.isEmpty()) {
        return;
    }
    emit status(m_panel->saveImage(file) ? tr("Saved %1").arg(file) : tr("Cannot write %1").arg(file));
}

void CompareExports::exportCsv(const std::vector<std::shared_ptr<const engine::RunRecord>>& loaded,
                               const RunSelection& chosen)
{
    if (loaded.empty() || chosen.empty()) {
        emit status(tr("Nothing to export: select a run in History first"));
        return;
    }
    QStringList ids;
    for (const auto& run : loaded) {
        ids << QString::number(run->row.id);
    }
    ids.removeDuplicates();
    const QString file =
        chooseFileToSave(m_dialogParent, tr("Export samples as CSV"),
                         QStringLiteral("run%1.csv").arg(ids.join(QLatin1Char('-'))), tr("CSV (*.csv)"));
    if (file.isEmpty()) {
        return;
    }
    std::vector<std::shared_ptr<const engine::RunRecord>> runs;
    for (const auto& run : loaded) {
        if (std::none_of(runs.begin(), runs.end(), [&](const auto& r) { return r->row.id == run->row.id; })) {
            runs.push_back(run);
        }
    }
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(mergedCsv(runs, chosen).toUtf8()) < 0 || !out.commit()) {
        emit status(tr("Cannot write %1").arg(file));
        return;
    }
    emit status(tr("Wrote %1 (runs %2)").arg(file, ids.join(QStringLiteral(", "))));
}

QString mergedCsv(const std::vector<std::shared_ptr<const engine::RunRecord>>& runs, const RunSelection& chosen)
{
    QStringList comments;
    QStringList columns;
    std::vector<std::pair<QStringList, QStringList>> rows;  // header of its run, fields
    for (const auto& run : runs) {
        std::ostringstream text;
        // A string stream fails only when memory runs out; what it holds is merged, as a file's would be.
        static_cast<void>(data::writeCsv(*run, text));
        QStringList header;
        for (const QString& line : QString::fromStdString(text.str()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            if (line.startsWith(QLatin1Char('#'))) {
                if (!comments.contains(line)) {
                    comments << line;
                }
                continue;
            }
            const QStringList fields = csvFields(line);
            if (header.isEmpty()) {
                header = fields;
                for (const auto& column : header) {
                    if (!columns.contains(column)) {
                        columns << column;
                    }
                }
                continue;
            }
            const QString variant = unquoted(fields.value(1));
            const bool wanted = std::any_of(chosen.begin(), chosen.end(), [&](const auto& c) {
                return c.first == run->row.id && (c.second.isEmpty() || c.second == variant);
            });
            if (wanted) {
                rows.emplace_back(header, fields);
            }
        }
    }
    QStringList out = comments;
    out << columns.join(QLatin1Char(','));
    for (const auto& [header, fields] : rows) {
        QStringList line;
        for (const auto& column : columns) {
            const auto at = header.indexOf(column);
            line << (at >= 0 ? fields.value(at) : QString());
        }
        out << line.join(QLatin1Char(','));
    }
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace nf::ui
