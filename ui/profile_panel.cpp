#include "ui/profile_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "ui/flame_graph.h"
#include "ui/profile_bars.h"

namespace nf::ui {

ProfilePanel::ProfilePanel(QWidget* parent)
    : QWidget(parent),
      m_summary(new QLabel(this)),
      m_comparison(new QComboBox(this)),
      m_comparisonLabel(new QLabel(tr("Compare:"), this)),
      m_bars(new ProfileBars(this)),
      m_flame(new FlameGraph(this)),
      m_selection(new QLabel(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_selection->setWordWrap(true);
    m_selection->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_comparison->setToolTip(tr("The candidate compared with the baseline"));
    auto* copy = new QPushButton(tr("Copy table"), this);
    copy->setToolTip(tr("\"Where the time went\" as `noisefloor compare` prints it"));
    auto* reset = new QPushButton(tr("Reset zoom"), this);
    connect(copy, &QPushButton::clicked, this, [this] { emit copyTableRequested(m_profile.table); });
    connect(reset, &QPushButton::clicked, m_flame, &FlameGraph::reset);
    connect(m_comparison, &QComboBox::activated, this, &ProfilePanel::showComparison);
    connect(m_flame, &FlameGraph::selectionChanged, this, [this](const QString& text) {
        m_selection->setText(text.isEmpty() ? tr("Click a frame or a bar: its shares and its callers.") : text);
    });
    // A click on a bar zooms the flame graph into that symbol.
    connect(m_bars->customPlot(), &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* plottable, int dataIndex, QMouseEvent*) {
                auto* bars = qobject_cast<QCPBars*>(plottable);
                if (bars == nullptr) {
                    return;
                }
                const int key = static_cast<int>(std::lround(bars->data()->at(dataIndex)->key));
                const auto symbols = m_bars->barSymbols();
                const auto row = symbols.size() - key;
                if (row >= 0 && row < symbols.size()) {
                    m_flame->select(symbols[row], m_bars->cpusShown()[row]);
                }
            });

    auto* top = new QHBoxLayout;
    top->addWidget(m_comparisonLabel);
    top->addWidget(m_comparison);
    top->addStretch(1);
    top->addWidget(reset);
    top->addWidget(copy);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_bars);
    auto* flameScroll = new QScrollArea(this);
    flameScroll->setWidget(m_flame);
    flameScroll->setWidgetResizable(true);
    flameScroll->setFrameShape(QFrame::NoFrame);
    flameScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    splitter->addWidget(flameScroll);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_selection);
}

void ProfilePanel::showProfile(const ProfileView& profile)
{
    m_profile = profile;
    m_summary->setText(profile.summary.join(QLatin1Char(' ')));
    m_comparison->clear();
    for (const auto& c : profile.comparisons) {
        m_comparison->addItem(
            tr("%1 against %2").arg(QString::fromStdString(c.candidate), QString::fromStdString(c.baseline)));
    }
    m_comparison->setVisible(profile.comparisons.size() > 1);
    m_comparisonLabel->setVisible(profile.comparisons.size() > 1);
    showComparison(0);
}

void ProfilePanel::showComparison(int index)
{
    if (index < 0 || static_cast<std::size_t>(index) >= m_profile.comparisons.size()) {
        return;
    }
    const auto& c = m_profile.comparisons[static_cast<std::size_t>(index)];
    m_bars->setComparison(c, m_profile.alpha, m_profile.severalCpus);
    const QString baseline = QString::fromStdString(c.baseline);
    const QString candidate = QString::fromStdString(c.candidate);
    const std::map<std::string, long long> none;
    const auto stacksOf = [&](const QString& variant) -> const std::map<std::string, long long>& {
        const auto it = m_profile.stacks.find(variant);
        return it == m_profile.stacks.end() ? none : it->second;
    };
    m_flame->setStacks(stacksOf(baseline), stacksOf(candidate), baseline, candidate, true);
}

QString ProfilePanel::selectionText() const
{
    return m_selection->text();
}

}  // namespace nf::ui
