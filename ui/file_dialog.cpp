#include "ui/file_dialog.h"

#include <QAbstractFileIconProvider>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemModel>
#include <QHeaderView>
#include <QRegularExpression>
#include <QScreen>
#include <QStyle>
#include <QTreeView>

namespace nf::ui {

namespace {

// Icons and types from the stat() the model already made; never QMimeDatabase on the content.
class StatOnlyIconProvider : public QAbstractFileIconProvider {
public:
    QIcon icon(IconType type) const override
    {
        return QApplication::style()->standardIcon(type == Folder ? QStyle::SP_DirIcon : QStyle::SP_FileIcon);
    }
    QIcon icon(const QFileInfo& info) const override { return icon(info.isDir() ? Folder : File); }
    QString type(const QFileInfo& info) const override
    {
        return info.isDir() ? QObject::tr("Folder") : QObject::tr("File");
    }
};

std::function<void(QFileDialog*)>& observer()
{
    static std::function<void(QFileDialog*)> callback;
    return callback;
}

// Every column of the detail view as wide as its widest entry once a directory is listed (names
// of captures run to 70 characters; Qt's defaults cut them, and the size and date, in the middle),
// and a dialog large enough to show them, within the screen.
void showWholeNames(QFileDialog& dialog)
{
    dialog.setViewMode(QFileDialog::Detail);
    auto* view = dialog.findChild<QTreeView*>(QStringLiteral("treeView"));
    auto* model = dialog.findChild<QFileSystemModel*>();
    if (view == nullptr || model == nullptr) {
        return;
    }
    const auto fit = [view] {
        for (int column = 0; column < view->header()->count(); ++column) {
            view->resizeColumnToContents(column);
        }
    };
    QObject::connect(model, &QFileSystemModel::directoryLoaded, view, fit);
    QSize size(980, 560);
    if (const QScreen* screen = dialog.screen()) {
        size = size.boundedTo(screen->availableSize() * 0.9);
    }
    dialog.resize(size);
}

QString run(QFileDialog& dialog)
{
    static StatOnlyIconProvider provider;  // outlives every dialog; the dialog does not own it
    dialog.setOptions(QFileDialog::DontUseNativeDialog | QFileDialog::DontResolveSymlinks |
                      QFileDialog::DontUseCustomDirectoryIcons);
    dialog.setIconProvider(&provider);
    showWholeNames(dialog);
    if (observer()) {
        observer()(&dialog);
    }
    dialog.exec();
    if (dialog.result() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) {
        return {};
    }
    return dialog.selectedFiles().front();
}

}  // namespace

QString chooseFileToOpen(QWidget* parent, const QString& title, const QString& directory, const QString& filters)
{
    QFileDialog dialog(parent, title, directory, filters);
    dialog.setAcceptMode(QFileDialog::AcceptOpen);
    dialog.setFileMode(QFileDialog::ExistingFile);
    return run(dialog);
}

QString chooseFileToSave(QWidget* parent, const QString& title, const QString& suggested, const QString& filters)
{
    QFileDialog dialog(parent, title, QString(), filters);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setFileMode(QFileDialog::AnyFile);
    const QRegularExpression suffix(QStringLiteral("\\*\\.(\\w+)"));
    auto useSuffixOf = [&dialog, suffix](const QString& filter) {
        if (const auto match = suffix.match(filter); match.hasMatch()) {
            dialog.setDefaultSuffix(match.captured(1));
        }
    };
    useSuffixOf(filters);
    QObject::connect(&dialog, &QFileDialog::filterSelected, &dialog, useSuffixOf);
    if (QFileInfo(suggested).isAbsolute()) {
        dialog.setDirectory(QFileInfo(suggested).absolutePath());
    }
    dialog.selectFile(QFileInfo(suggested).fileName());
    return run(dialog);
}

void setFileDialogObserver(std::function<void(QFileDialog*)> callback)
{
    observer() = std::move(callback);
}

}  // namespace nf::ui
