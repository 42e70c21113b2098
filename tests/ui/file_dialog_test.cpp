// The file dialogs show whole names: the real imports' files (names of 50-70 characters, as
// engineers name their captures) fit the name column without being cut.

#include <gtest/gtest.h>

#include <QDialog>
#include <QDir>
#include <QFileDialog>
#include <QHeaderView>
#include <QTimer>
#include <QTreeView>

#include "tests/ui/ui_test_support.h"
#include "ui/file_dialog.h"

namespace nf::ui {
namespace {

TEST(FileDialog, LongFileNamesAreShownWhole)
{
    test::application();
    const QString directory = QStringLiteral(NF_UI_TEST_DATA "/../../data/import/real");
    int longest = 0;
    int nameColumn = 0;
    setFileDialogObserver([&](QFileDialog* dialog) {
        QTimer::singleShot(300, dialog, [&, dialog] {
            auto* view = dialog->findChild<QTreeView*>(QStringLiteral("treeView"));
            ASSERT_NE(view, nullptr);
            const QFontMetrics metrics(view->font());
            for (const auto& name : QDir(directory).entryList(QDir::Files)) {
                longest = std::max(longest, metrics.horizontalAdvance(name));
            }
            nameColumn = view->header()->sectionSize(0) - view->iconSize().width();
            if (const QByteArray shots = qgetenv("NF_UI_SHOTS"); !shots.isEmpty()) {  // to look at it
                dialog->grab().save(QString::fromUtf8(shots) + "/file-dialog.png");
            }
            static_cast<QDialog*>(dialog)->reject();
        });
    });
    chooseFileToOpen(nullptr, QStringLiteral("Import"), directory, QStringLiteral("Text files (*.txt)"));
    setFileDialogObserver({});
    ASSERT_GT(longest, 0);
    EXPECT_GE(nameColumn, longest) << "the name column cuts the longest name";
}

}  // namespace
}  // namespace nf::ui
