#include "ui/file_dialog.h"

#include <QAbstractFileIconProvider>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStyle>

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

QString run(QFileDialog& dialog)
{
    static StatOnlyIconProvider provider;  // outlives every dialog; the dialog does not own it
    dialog.setOptions(QFileDialog::DontUseNativeDialog | QFileDialog::DontResolveSymlinks |
                      QFileDialog::DontUseCustomDirectoryIcons);
    dialog.setIconProvider(&provider);
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
