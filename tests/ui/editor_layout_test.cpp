// The Experiment form at the smallest window the GUI is made for: error lines appear and go
// without moving Run, Stop or the fields under the pointer.

#include <gtest/gtest.h>

#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QTabWidget>
#include <QTest>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/experiment_editor.h"
#include "ui/main_window.h"

namespace nf::ui {
namespace {

QRect placeOf(const QWidget* widget, const QWidget* window)
{
    return {widget->mapTo(window, QPoint(0, 0)), widget->size()};
}

TEST(EditorLayout, ErrorLinesDoNotMoveTheButtons)
{
    test::application();
    nf::test::TempDir dir;
    MainWindow window(QString::fromStdString(dir.file("runs.db")));
    window.resize(1024, 700);
    window.show();
    ASSERT_TRUE(window.showTab("experiment"));
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    QTest::qWait(50);
    ASSERT_TRUE(editor->problems().isEmpty()) << editor->problems().join('\n').toStdString();
    // The form fits a 1024 px window without scrolling sideways (the workload's long summary).
    EXPECT_LE(editor->minimumSizeHint().width(), 1024 - 30) << editor->minimumSizeHint().width();
    QLineEdit* work = editor->paramField("work");
    ASSERT_NE(work, nullptr);
    const QRect run = placeOf(editor->runButton(), &window);
    // Run and Stop are in view without scrolling: inside the window, above its status bar.
    EXPECT_TRUE(window.rect().contains(run)) << run.y() << " + " << run.height() << " in " << window.height();
    EXPECT_TRUE(editor->runButton()->isVisible());
    EXPECT_TRUE(window.rect().contains(placeOf(editor->stopButton(), &window)));
    const QRect field = placeOf(work, &window);
    const QRect messages = placeOf(editor->messageArea(), &window);

    // One problem, then many (duplicate names, unknown parameters, a bad sweep), then none again.
    const auto expectStill = [&](const char* when) {
        QCoreApplication::processEvents();
        QTest::qWait(20);
        EXPECT_EQ(placeOf(editor->runButton(), &window), run) << when;
        EXPECT_EQ(placeOf(work, &window), field) << when;
        EXPECT_EQ(placeOf(editor->messageArea(), &window), messages) << when;
    };
    work->setText("0");
    ASSERT_EQ(editor->problems().size(), 1);
    expectStill("one problem");
    editor->setVariants({{"a", "nosuch=1"}, {"a", "other=2"}, {"c", "third=3"}, {"d", "fourth=4"}});
    editor->setSweep("nosuch=1,2");
    ASSERT_GE(editor->problems().size(), 5) << editor->problems().join('\n').toStdString();
    expectStill("many problems");
    work->setText("500");
    editor->setVariants({{"a", ""}, {"b", "work=1000"}});
    editor->setSweep("");
    ASSERT_TRUE(editor->problems().isEmpty()) << editor->problems().join('\n').toStdString();
    expectStill("no problem again");
}

}  // namespace
}  // namespace nf::ui
