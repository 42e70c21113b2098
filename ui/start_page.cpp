#include "ui/start_page.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "engine/import/import_format.h"

namespace nf::ui {

StartPage::StartPage(const QString& databasePath, QWidget* parent) : QWidget(parent)
{
    auto* title = new QLabel(tr("<h2>noisefloor: A/B performance measurements you can trust</h2>"), this);
    auto* text =
        new QLabel(tr("<p>There is no database at <b>%1</b> yet. Begin in one of three ways:</p>"
                      "<ol><li><b>Design a run</b>: choose a workload and its variants in the Experiment tab and press "
                      "Run (Ctrl+Enter). The Live tab shows the difference forming while it runs; the run is stored "
                      "in this database, which is created then.</li>"
                      "<li><b>Open a database</b> that holds runs made earlier (File &gt; Open database, Ctrl+O).</li>"
                      "<li><b>Import results</b> another tool measured (%2): <code>noisefloor import FILE "
                      "--db %1</code>, then open the database here.</li></ol>")
                       .arg(databasePath.toHtmlEscaped(),
                            QString::fromStdString(engine::importToolNames(" and ")).toHtmlEscaped()),
                   this);
    text->setWordWrap(true);
    text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* design = new QPushButton(tr("Design a run"), this);
    auto* open = new QPushButton(tr("Open a database..."), this);
    design->setDefault(true);
    connect(design, &QPushButton::clicked, this, &StartPage::designRequested);
    connect(open, &QPushButton::clicked, this, &StartPage::openRequested);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(design);
    buttons->addWidget(open);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(40, 30, 40, 30);
    layout->addWidget(title);
    layout->addWidget(text);
    layout->addLayout(buttons);
    layout->addStretch(1);
}

}  // namespace nf::ui
