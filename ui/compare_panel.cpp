#include "ui/compare_panel.h"

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>

#include "ui/compare_plot.h"
#include "ui/plot_export.h"
#include "ui/profile_panel.h"

namespace nf::ui {

ComparePanel::ComparePanel(QWidget* parent)
    : QWidget(parent),
      m_baseline(new QComboBox(this)),
      m_margin(new QDoubleSpinBox(this)),
      m_alpha(new QDoubleSpinBox(this)),
      m_dropOutliers(new QCheckBox(tr("Leave out outliers"), this)),
      m_defaults(new QPushButton(tr("Defaults"), this)),
      m_title(new QLabel(this)),
      m_warnings(new QLabel(this)),
      m_warningScroll(new QScrollArea(this)),
      m_decision(new QLabel(this)),
      m_grid(new QWidget(this)),
      m_scroll(new QScrollArea(this)),
      m_report(new QPlainTextEdit(this)),
      m_showReport(new QPushButton(tr("Show report"), this)),
      m_profile(new ProfilePanel(this)),
      m_showProfile(new QPushButton(tr("Profile"), this))
{
    m_profile->setVisible(false);
    m_showProfile->setCheckable(true);
    m_showProfile->setVisible(false);
    m_showProfile->setToolTip(
        tr("Where the time went (run --profile): the symbols whose share changed, with "
           "intervals, and a differential flame graph"));
    connect(m_showProfile, &QPushButton::toggled, this, &ComparePanel::setProfileShown);
    connect(m_profile, &ProfilePanel::copyTableRequested, this,
            [](const QString& text) { QGuiApplication::clipboard()->setText(text); });
    m_report->setReadOnly(true);
    m_report->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_report->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_report->setVisible(false);
    m_showReport->setCheckable(true);
    m_showReport->setToolTip(tr("The text of `noisefloor compare` for these runs: every verdict and warning"));
    connect(m_showReport, &QPushButton::toggled, this, [this](bool on) {
        if (on && m_showProfile->isChecked()) {
            m_showProfile->setChecked(false);
        }
        m_report->setVisible(on);
        m_scroll->setVisible(!on);
        m_showReport->setText(on ? tr("Show plots") : tr("Show report"));
    });
    QFont titleFont = font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true);  // a long title must not set the window's minimum width
    m_warnings->setWordWrap(true);
    m_warnings->setStyleSheet(QStringLiteral("color: #8a5a00;"));
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    // Four warnings wrapped over eight lines took the height of the primary panel at 1024x700: the
    // block is at most four lines high and scrolls (every warning is also in the report).
    m_warningScroll->setWidget(m_warnings);
    m_warningScroll->setWidgetResizable(true);
    m_warningScroll->setFrameShape(QFrame::NoFrame);
    m_warningScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_warningScroll->setVisible(false);
    m_decision->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_decision->setStyleSheet(QStringLiteral("background: #e8f0fb; padding: 3px;"));
    m_decision->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_decision->setVisible(false);

    // The panels keep the height their text needs; a small window scrolls them instead of cutting
    // their verdict lines.
    m_scroll->setWidget(m_grid);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    auto* gridLayout = new QGridLayout(m_grid);
    gridLayout->setContentsMargins(0, 0, 0, 0);
    for (std::size_t i = 0; i < m_panels.size(); ++i) {
        m_panels[i] = new ComparePlot(m_grid);
        gridLayout->addWidget(m_panels[i], static_cast<int>(i / 2), static_cast<int>(i % 2));
        connect(m_panels[i], &ComparePlot::metricPicked, this, [this, i](const QString& metric) {
            m_picked[i] = metric;
            showPanel(i, metric);
        });
    }
    m_baseline->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_baseline->setMinimumContentsLength(14);  // "variant-number-7", without widening the window
    m_baseline->setToolTip(tr("The variant the others are compared against (the first run selected in History)"));
    connect(m_baseline, &QComboBox::activated, this, &ComparePanel::requestSettings);
    auto* swap = new QPushButton(tr("Swap"), this);
    swap->setToolTip(tr("Compare against the next variant instead"));
    connect(swap, &QPushButton::clicked, this, &ComparePanel::swapBaseline);

    // The options of `noisefloor compare`, each applied when the box is left or Enter is pressed
    // (not at every keystroke: each one is a new comparison).
    m_margin->setRange(0.01, 50);
    m_margin->setDecimals(2);
    m_margin->setSingleStep(0.1);
    m_margin->setPrefix(QStringLiteral("\u00b1"));
    m_margin->setSuffix(QStringLiteral("%"));
    m_margin->setKeyboardTracking(false);
    m_margin->setToolTip(
        tr("Equivalence margin (--margin), 0.01% to 50%: a difference whose whole interval lies inside it is "
           "negligible or equivalent"));
    m_alpha->setRange(0.001, 0.499);
    m_alpha->setDecimals(3);
    m_alpha->setSingleStep(0.01);
    m_alpha->setKeyboardTracking(false);
    m_alpha->setToolTip(
        tr("Significance level (--alpha), 0.001 to 0.499, of the primary metric; the others are Holm-adjusted"));
    m_dropOutliers->setToolTip(
        tr("--drop-outliers: leave out repetitions and chunk pairs with a modified z-score "
           "above 3.5; the report says how many"));
    m_defaults->setToolTip(
        tr("The margin and alpha of `noisefloor compare` (a run that ran until decided: its "
           "own), outliers kept"));
    connect(m_margin, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        m_settings.marginPct = value;
        requestSettings();
    });
    connect(m_alpha, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        m_settings.alpha = value;
        requestSettings();
    });
    connect(m_dropOutliers, &QCheckBox::toggled, this, [this](bool on) {
        m_settings.dropOutliers = on;
        requestSettings();
    });
    connect(m_defaults, &QPushButton::clicked, this, [this] {
        m_settings = CompareSettings{};
        requestSettings();
    });

    auto* copy = new QPushButton(tr("Copy evidence report"), this);
    copy->setToolTip(tr("The text report of `noisefloor compare`, ready to paste into a mail"));
    auto* save = new QPushButton(tr("Save plots (PNG/PDF)..."), this);
    auto* csv = new QPushButton(tr("Export CSV..."), this);
    connect(copy, &QPushButton::clicked, this, &ComparePanel::copyReportRequested);
    connect(save, &QPushButton::clicked, this, &ComparePanel::saveImageRequested);
    connect(csv, &QPushButton::clicked, this, &ComparePanel::exportCsvRequested);
    auto* top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    top->addWidget(m_showProfile);
    top->addWidget(m_showReport);
    top->addWidget(copy);
    top->addWidget(save);
    top->addWidget(csv);
    auto* settings = new QHBoxLayout;
    settings->addWidget(new QLabel(tr("Baseline:"), this));
    settings->addWidget(m_baseline);
    settings->addWidget(swap);
    settings->addSpacing(16);
    settings->addWidget(new QLabel(tr("Margin:"), this));
    settings->addWidget(m_margin);
    settings->addWidget(new QLabel(tr("Alpha:"), this));
    settings->addWidget(m_alpha);
    settings->addWidget(m_dropOutliers);
    settings->addWidget(m_defaults);
    settings->addStretch(1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(settings);
    layout->addWidget(m_decision);
    layout->addWidget(m_scroll, 1);
    layout->addWidget(m_report, 1);
    layout->addWidget(m_profile, 1);
    layout->addWidget(m_warningScroll);
    showMessage(tr("Select a run in History (or finish one in Live) to compare its variants."));
}

void ComparePanel::setProfileShown(bool on)
{
    if (on) {
        m_profileWanted = true;
    } else if (m_showProfile->isVisible()) {
        m_profileWanted = false;  // the user closed it; a comparison without a profile keeps the wish
    }
    const bool shown = on && m_view.profile.has_value();
    if (shown && m_showReport->isChecked()) {
        m_showReport->setChecked(false);
    }
    const QSignalBlocker block(m_showProfile);
    m_showProfile->setChecked(shown);
    m_showProfile->setText(shown ? tr("Show plots") : tr("Profile"));
    m_profile->setVisible(shown);
    m_scroll->setVisible(!shown && !m_showReport->isChecked());
}

bool ComparePanel::profileShown() const
{
    return m_showProfile->isChecked();
}

void ComparePanel::showMessage(const QString& text)
{
    m_title->setText(tr("Compare"));
    m_view = ComparisonView{};
    m_baseline->clear();
    m_warnings->clear();
    fitWarnings();
    m_decision->clear();
    m_decision->setVisible(false);
    m_report->clear();
    m_reportText.clear();
    m_warningLines.clear();
    for (std::size_t i = 0; i < m_panels.size(); ++i) {
        m_panels[i]->setMetrics({}, QString());
        m_panels[i]->showMessage(QString(), i == 0 ? text : QString());
    }
}

void ComparePanel::swapBaseline()
{
    const int n = m_baseline->count();
    if (n < 2) {
        return;
    }
    // Across runs ("pre:a", "pre:b", "post:a", ...) the same variant of the next run; in one run
    // the next variant.
    const int current = std::max(m_baseline->currentIndex(), 0);
    const QString variant = m_baseline->itemText(current).section(QLatin1Char(':'), -1);
    int next = (current + 1) % n;
    for (int step = 1; step < n; ++step) {
        const int i = (current + step) % n;
        if (m_baseline->itemText(i).contains(QLatin1Char(':')) &&
            m_baseline->itemText(i).section(QLatin1Char(':'), -1) == variant) {
            next = i;
            break;
        }
    }
    m_baseline->setCurrentIndex(next);
    requestSettings();
}

void ComparePanel::setSettings(const CompareSettings& settings)
{
    m_settings = settings;
    m_settings.baseline.clear();
}

void ComparePanel::requestSettings()
{
    CompareSettings settings = m_settings;
    settings.baseline = m_baseline->currentText();
    emit settingsRequested(settings);
}

void ComparePanel::showSettings(const ComparisonView& view)
{
    // What the comparison used; the settings the user gave stay theirs (a value the box shows is not
    // "given" until it is changed).
    const QSignalBlocker margin(m_margin);
    const QSignalBlocker alpha(m_alpha);
    const QSignalBlocker outliers(m_dropOutliers);
    m_margin->setValue(view.marginPct);
    m_alpha->setValue(view.alpha);
    m_dropOutliers->setChecked(view.dropOutliers);
    m_defaults->setEnabled(m_settings != CompareSettings{});
}

void ComparePanel::showPanel(std::size_t index, const QString& metric)
{
    for (const auto& m : m_view.metrics) {
        if (m.metric == metric) {
            m_panels[index]->showPanel(m);
            return;
        }
    }
    m_panels[index]->showPanel(m_view.panels[index]);
}

void ComparePanel::showComparison(const ComparisonView& view)
{
    // The title says which way the differences go, so a swap shows at the top as well as in the panels.
    QStringList candidates = view.variants;
    candidates.removeAll(view.baseline);
    m_title->setText(
        view.baseline.isEmpty() || candidates.isEmpty() ? view.title
        : candidates.size() <= 3
            ? tr("%1 - %2 against %3").arg(view.title, candidates.join(QStringLiteral(", ")), view.baseline)
            : tr("%1 - %2 variants against %3").arg(view.title).arg(candidates.size()).arg(view.baseline));
    m_reportText = view.report;
    m_report->setPlainText(view.report);
    m_warningLines = view.warnings;
    if (!view.error.isEmpty()) {
        showMessage(view.error);
        m_title->setText(view.title);
        return;
    }
    m_view = view;
    showSettings(view);
    m_showProfile->setVisible(view.profile.has_value());
    if (view.profile) {
        m_profile->showProfile(*view.profile);
    }
    setProfileShown(m_profileWanted);
    m_baseline->clear();
    m_baseline->addItems(view.variants);
    m_baseline->setCurrentIndex(static_cast<int>(view.variants.indexOf(view.baseline)));
    for (std::size_t i = 0; i < m_panels.size(); ++i) {
        const bool keep = !m_picked[i].isEmpty() && std::any_of(view.metrics.begin(), view.metrics.end(),
                                                                [&](const auto& m) { return m.metric == m_picked[i]; });
        const QString shown = keep ? m_picked[i] : view.panels[i].metric;
        m_panels[i]->setMetrics(view.metrics, shown);
        showPanel(i, shown);
    }
    QStringList lines;
    for (const auto& w : view.warnings) {
        lines << tr("warning: %1").arg(w);
    }
    m_warnings->setText(lines.join('\n'));
    fitWarnings();
    m_decision->setText(view.decision.join('\n'));
    m_decision->setVisible(!view.decision.isEmpty());
}

void ComparePanel::fitWarnings()
{
    // As high as the wrapped text at the panel's width, up to four lines.
    const int line = QFontMetrics(m_warnings->font()).lineSpacing();
    const int textWidth = std::max(m_warningScroll->viewport()->width(), width() - 30);
    const int needed = m_warnings->text().isEmpty() ? 0 : m_warnings->heightForWidth(std::max(textWidth, 100));
    m_warningScroll->setFixedHeight(std::min(needed, line * 4 + 2));
    m_warningScroll->setVisible(needed > 0);
    m_warningScroll->setToolTip(m_warnings->text());
}

void ComparePanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitWarnings();
}

QString ComparePanel::decisionShown() const
{
    return m_decision->isHidden() ? QString() : m_decision->text();
}

QString ComparePanel::titleText() const
{
    return m_title->text();
}

QStringList ComparePanel::exportHeader() const
{
    // The report `noisefloor compare` prints for these runs, as "Copy evidence report" copies it:
    // its header (command, machine, design, warnings), one line per metric and its notes.
    QStringList header = m_reportText.split(QLatin1Char('\n'));
    while (!header.isEmpty() && header.back().isEmpty()) {
        header.removeLast();
    }
    if (header.isEmpty()) {
        header << tr("noisefloor: %1").arg(m_title->text());
    }
    return header;
}

bool ComparePanel::saveImage(const QString& file)
{
    std::vector<QCustomPlot*> plots;
    for (auto* p : m_panels) {
        p->customPlot()->replot();
        plots.push_back(p->customPlot());
    }
    return exportPlots(file, exportHeader(), plots, 2);
}

}  // namespace nf::ui
