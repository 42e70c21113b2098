#include "ui/compare_plot.h"

#include <QComboBox>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "ui/difference_marks.h"
#include "ui/si_ticker.h"
#include "ui/variant_palette.h"

namespace nf::ui {

namespace {

// A small deterministic spread so repetitions with equal values stay visible.
double jitter(std::size_t i, std::size_t n)
{
    if (n < 2) {
        return 0;
    }
    return -0.15 + 0.3 * static_cast<double>(i) / static_cast<double>(n - 1);
}

QString percent(double value)
{
    return QString::fromStdString(boundText(value));
}

bool hasLayoutSpread(const DifferenceView& d)
{
    return d.layout.has_value() && std::isfinite(d.layout->spreadPct);
}

// A spread as the panel writes it: two significant digits ("1.8", "0.35"), whole from 10 on.
QString spreadText(double pct)
{
    return pct >= 10 ? QString::number(pct, 'f', 0) : QString::number(pct, 'g', 2);
}

// What a panel says about code layout: "layout spread ±1.8%" (a range where its candidates'
// differ), and "incomplete layout design: 5 of 8 placements" where fewer placements were measured
// than planned. Both "" where layout was not a factor of any candidate. A live run's setups say
// "setup spread ±1.2%" instead.
struct LayoutNote {
    QString spread;
    QString incomplete;
    bool setups = false;
};

LayoutNote layoutNote(const std::vector<DifferenceView>& differences)
{
    LayoutNote note;
    double least = INFINITY;
    double most = -INFINITY;
    for (const auto& d : differences) {
        if (!hasLayoutSpread(d)) {
            continue;
        }
        least = std::min(least, d.layout->spreadPct);
        most = std::max(most, d.layout->spreadPct);
        note.setups = d.layout->setups;
        if (note.incomplete.isEmpty() && d.layout->measured < d.layout->planned) {
            note.incomplete = ComparePlot::tr("incomplete layout design: %1 of %2 placements")
                                  .arg(d.layout->measured)
                                  .arg(d.layout->planned);
        }
    }
    if (std::isfinite(least)) {
        const QString low = spreadText(least);
        const QString high = spreadText(most);
        const QString range = low == high ? low : low + QStringLiteral("..") + high;
        note.spread = note.setups ? ComparePlot::tr("setup spread \u00b1%1%").arg(range)
                                  : ComparePlot::tr("layout spread \u00b1%1%").arg(range);
    }
    return note;
}

// The hatched band -spreadPct..+spreadPct across the candidate columns `from`..`to` of `rect` (to
// the axis rect's right edge when `toEdge`: the last candidate's figures are there), with dashed
// edges above and below and none at its sides (a side would cross a figure), under the diamonds
// and figures drawn after it. Finite, as the margin's band is, so a PDF draws it where the screen
// does.
QCPItemRect* drawLayoutBand(QCustomPlot* plot, QCPAxisRect* rect, double from, double to, bool toEdge, double spreadPct)
{
    // Hatched and slate: apart from the margin's green fill and from every variant's colour.
    const QColor ink(60, 60, 110);
    const auto place = [&](QCPItemPosition* left, QCPItemPosition* right, double top, double bottom) {
        for (QCPItemPosition* p : {left, right}) {
            p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            p->setAxisRect(rect);
            p->setType(QCPItemPosition::ptPlotCoords);
        }
        left->setCoords(from, top);
        if (toEdge) {
            right->setTypeX(QCPItemPosition::ptAxisRectRatio);
            right->setCoords(1, bottom);
        } else {
            right->setCoords(to, bottom);
        }
    };
    auto* band = new QCPItemRect(plot);
    band->setClipAxisRect(rect);
    place(band->topLeft, band->bottomRight, spreadPct, -spreadPct);
    band->setPen(Qt::NoPen);
    band->setBrush(QBrush(QColor(ink.red(), ink.green(), ink.blue(), 90), Qt::BDiagPattern));
    for (const double edge : {spreadPct, -spreadPct}) {
        auto* line = new QCPItemLine(plot);
        line->setClipAxisRect(rect);
        place(line->start, line->end, edge, edge);
        line->setPen(QPen(QColor(ink.red(), ink.green(), ink.blue(), 170), 1, Qt::DashLine));
    }
    return band;
}

}  // namespace

ComparePlot::ComparePlot(QWidget* parent)
    : QWidget(parent), m_picker(new QComboBox(this)), m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_picker->setToolTip(tr("The metric this panel shows: every metric the run stored"));
    m_picker->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_picker->setPlaceholderText(tr("not measured in this run - pick a metric it stored"));
    layout->addWidget(m_picker);
    layout->addWidget(m_plot, 1);
    m_plot->setMinimumSize(280, 270);  // room for the verdict lines and a readable plot
    connect(m_picker, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_filling && m_picker->currentIndex() >= 0) {
            emit metricPicked(m_picker->currentData().toString());
        }
    });

    QFont titleFont = font();
    titleFont.setBold(true);
    QCPLayoutGrid* grid = m_plot->plotLayout();
    m_values = m_plot->axisRect();
    grid->take(m_values);
    grid->simplify();
    m_title = new QCPTextElement(m_plot, QString(), titleFont);
    grid->addElement(0, 0, m_title);
    auto* row = new QCPLayoutGrid;
    grid->addElement(1, 0, row);
    row->addElement(0, 0, m_values);
    m_difference = new QCPAxisRect(m_plot);
    row->addElement(0, 1, m_difference);
    row->setColumnStretchFactors({3, 2});
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    m_verdictElement = new QCPTextElement(m_plot, QString(), small);
    m_verdictElement->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    grid->addElement(2, 0, m_verdictElement);
    grid->setRowStretchFactors({0.01, 1, 0.01});
    // Tick labels fit the axes' real widths, known once the plot is laid out.
    connect(m_plot, &QCustomPlot::afterLayout, this, &ComparePlot::relabel);
}

void ComparePlot::relabel()
{
    bool changed = false;
    const std::array<QCPAxis*, 2> axes = {m_values->axis(QCPAxis::atBottom), m_difference->axis(QCPAxis::atBottom)};
    for (std::size_t i = 0; i < axes.size(); ++i) {
        Categories& c = m_categories[i];
        if (c.names.isEmpty()) {
            continue;
        }
        const CategoryTickPlan plan = applyCategoryTicks(axes[i], c.at, c.names);
        changed = changed || plan != c.plan;
        c.plan = plan;
    }
    // The values side's caption, wrapped to its width: it is never cut at the panel's edge.
    QCPAxis* valuesX = m_values->axis(QCPAxis::atBottom);
    if (!m_valuesCaption.isEmpty() && m_values->width() > 0) {
        const QString caption = wrapToWidth(m_valuesCaption, QFontMetrics(valuesX->labelFont()), m_values->width());
        if (caption != valuesX->label()) {
            valuesX->setLabel(caption);
            changed = true;
        }
    }
    changed = fitDifferenceAxis() || changed;
    if (changed) {
        m_plot->replot(QCustomPlot::rpQueuedReplot);  // the margins follow the new labels
    }
}

// The difference side is narrow at small window sizes: its caption is wrapped at word boundaries
// to the axis's width, and the axis reaches far enough right for the figures beside the last
// candidate to be read whole. True when either changed.
bool ComparePlot::fitDifferenceAxis()
{
    QCPAxis* x = m_difference->axis(QCPAxis::atBottom);
    const int width = m_difference->width();
    if (width <= 0 || m_differenceCaption.isEmpty()) {
        return false;
    }
    bool changed = false;
    // The layout band's name gets a line of the caption where it fits one; a narrower axis leaves
    // it to the lines under the plot, which name it too, as a caption of many wrapped lines would
    // squeeze the plot to nothing.
    const QFontMetrics captionMetrics(x->labelFont());
    QString captionText = m_differenceCaption;
    if (!m_layoutCaption.isEmpty() && captionMetrics.horizontalAdvance(m_layoutCaption) <= width) {
        captionText += QLatin1Char('\n') + m_layoutCaption;
    }
    const QString caption = wrapToWidth(captionText, captionMetrics, width);
    if (caption != x->label()) {
        x->setLabel(caption);
        changed = true;
    }
    // Two candidates' figures side by side need a figure's width between the diamonds; where the
    // axis is too narrow for that they would overlap the next diamond and each other. The full
    // figures (estimate, interval, verdict) are shown where they fit, else the short ones (estimate
    // and verdict), else none: the verdict lines below give the same numbers. A figure wider than
    // most of the axis would be cut at its edge.
    const auto measure = [&](bool full) {
        QSize most;
        for (std::size_t i = 0; i < m_figures.size(); ++i) {
            const QString& text = full ? m_figureTexts[i].first : m_figureTexts[i].second;
            const QRect box = QFontMetrics(m_figures[i]->font()).boundingRect(QRect(), 0, text);
            most = most.expandedTo(box.size());
        }
        return most;
    };
    const auto fitsIn = [&](int figureWidth) {
        if (figureWidth + kFigureOffset + 12 > width * 0.8) {
            return false;
        }
        if (m_figures.size() < 2) {
            return true;
        }
        // The pixels between two diamonds once the axis reaches far enough for the last figure
        // (as below): a figure must end before the next diamond.
        const double need = figureWidth + kFigureOffset + 6;
        const double upper = std::min(
            std::max(m_differencesEnd + 0.9, (m_differencesEnd * width - need * 0.5) / std::max(width - need, 1.0)),
            m_differencesEnd + 6);
        return figureWidth + kFigureOffset + 6 <= width / (upper - 0.5);
    };
    QSize most = measure(true);
    bool full = true;
    if (!fitsIn(most.width())) {
        most = measure(false);
        full = false;
    }
    const bool fits = fitsIn(most.width());
    int widest = most.width();
    int tallest = most.height();
    for (std::size_t i = 0; i < m_figures.size(); ++i) {
        const QString& text = full ? m_figureTexts[i].first : m_figureTexts[i].second;
        if (m_figures[i]->visible() != fits || m_figures[i]->text() != text) {
            m_figures[i]->setVisible(fits);
            m_figures[i]->setText(text);
            changed = true;
        }
    }
    if (!fits) {
        widest = 0;
        tallest = 0;
    }
    // The last figure starts kFigureOffset pixels right of the last candidate; the axis, from 0.5,
    // must leave it its width and a few pixels.
    const double lower = 0.5;
    double upper = m_differencesEnd + 0.9;
    const double need = widest + kFigureOffset + 6;
    if (widest > 0 && width > need) {
        upper = std::max(upper, (m_differencesEnd * width - need * lower) / (width - need));
    }
    upper = std::min(upper, m_differencesEnd + 6);
    if (std::abs(x->range().upper - upper) > 1e-6) {
        x->setRange(lower, upper);
        changed = true;
    }
    // The baseline's name is shortened to the axis's height: a short panel cut "vs baseline, %".
    QCPAxis* y = m_difference->axis(QCPAxis::atLeft);
    const int height = m_difference->height();
    if (height > 0 && !m_baselineName.isEmpty()) {
        const QFontMetrics metrics(y->labelFont());
        const int room = std::max(height - metrics.horizontalAdvance(tr("vs %1, %").arg(QString())) - 4, 24);
        const QString label =
            tr("vs %1, %").arg(metrics.elidedText(m_baselineName, Qt::ElideMiddle, std::min(room, 90)));
        if (label != y->label()) {
            y->setLabel(label);
            changed = true;
        }
    }
    // Each figure is centred on its estimate: the value axis reaches half its height (and a few
    // pixels) beyond, so a figure near the edge is not cut.
    const double share = (tallest / 2.0 + 3) / std::max(height, 1);
    if (tallest > 0 && share < 0.45) {
        QCPRange range(m_differenceLow, m_differenceHigh);
        for (int pass = 0; pass < 8; ++pass) {
            const double span = range.size();
            for (const auto* figure : m_figures) {
                const double v = figure->position->value();
                range.lower = std::min(range.lower, v - share * span);
                range.upper = std::max(range.upper, v + share * span);
            }
        }
        if (std::abs(y->range().lower - range.lower) > 1e-9 || std::abs(y->range().upper - range.upper) > 1e-9) {
            y->setRange(range);
            changed = true;
        }
    }
    return changed;
}

void ComparePlot::setMetrics(const std::vector<PanelView>& metrics, const QString& shown)
{
    m_filling = true;
    m_picker->clear();
    for (const auto& m : metrics) {
        const QString label = m.title == m.metric ? m.metric : QStringLiteral("%1 (%2)").arg(m.title, m.metric);
        m_picker->addItem(label, m.metric);
    }
    m_picker->setCurrentIndex(m_picker->findData(shown));
    m_picker->setEnabled(m_picker->count() > 0);
    m_filling = false;
}

void ComparePlot::replotIfSized()
{
    // A plot in a tab never shown has no size yet; it replots when it is laid out.
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        m_plot->replot();
    }
}

void ComparePlot::reset(const QString& title)
{
    m_plot->clearGraphs();
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_estimates = nullptr;
    m_intervals = nullptr;
    m_baselineLine = nullptr;
    m_figures.clear();
    m_figureTexts.clear();
    m_layoutBands.clear();
    m_valuesCaption.clear();
    m_differenceCaption.clear();
    m_layoutCaption.clear();
    m_baselineName.clear();
    m_marginPct = 0;
    m_title->setText(title);
    m_verdictElement->setText(QString());
    m_plot->setToolTip(QString());
    m_categories = {};
    m_message.clear();
    m_verdict.clear();
    m_metric.clear();
    for (QCPAxisRect* rect : {m_values, m_difference}) {
        for (QCPAxis* axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
            axis->setVisible(true);
            axis->setLabel(QString());
        }
    }
    m_values->axis(QCPAxis::atBottom)->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    m_values->axis(QCPAxis::atLeft)->setTicker(QSharedPointer<QCPAxisTicker>(new SiTicker));
    m_difference->axis(QCPAxis::atBottom)->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

void ComparePlot::showMessage(const QString& title, const QString& text)
{
    reset(title);
    m_message = text;
    for (QCPAxisRect* rect : {m_values, m_difference}) {
        rect->axis(QCPAxis::atBottom)->setVisible(false);
        rect->axis(QCPAxis::atLeft)->setVisible(false);
    }
    auto* item = new QCPItemText(m_plot);
    item->setPositionAlignment(Qt::AlignCenter);
    item->position->setType(QCPItemPosition::ptViewportRatio);
    item->position->setCoords(0.5, 0.5);
    item->setText(text);
    item->setColor(QColor(110, 110, 110));
    item->setClipToAxisRect(false);
    replotIfSized();
}

void ComparePlot::showPanel(const PanelView& panel)
{
    if (!panel.notMeasured.isEmpty() || panel.variants.empty()) {
        showMessage(panel.title, panel.notMeasured.isEmpty() ? tr("no data") : panel.notMeasured);
        m_metric = panel.metric;
        return;
    }
    // Long titles (a live test's "... per packet, receiver thread (SIMULATED)") put the metric on a
    // line of its own rather than run past the panel's edges.
    const QString separator =
        panel.title.size() + panel.metric.size() > 56 ? QStringLiteral("\n") : QStringLiteral(" - ");
    reset(panel.title == panel.metric ? panel.title : panel.title + separator + panel.metric);
    m_metric = panel.metric;
    drawValues(panel);
    drawDifferences(panel);
    m_verdict = panel.verdicts.join('\n');
    QStringList below = panel.verdicts;
    if (static_cast<int>(panel.differences.size()) > kVerdictLinesUpTo) {
        // Too many lines for the panel: count the verdicts; every line is in the tooltip.
        std::map<QString, int> counts;
        for (const auto& d : panel.differences) {
            ++counts[d.verdict];
        }
        QStringList parts;
        for (const auto& [verdict, n] : counts) {
            parts << QStringLiteral("%1 %2").arg(n).arg(verdict);
        }
        below = QStringList{tr("%1 candidates vs %2: %3 (hover for every line; Show report)")
                                .arg(panel.differences.size())
                                .arg(panel.differences.front().baseline, parts.join(QStringLiteral(", ")))};
        m_plot->setToolTip(m_plot->toolTip() + QStringLiteral("\n") + m_verdict);
    }
    const bool many = static_cast<int>(panel.differences.size()) > kVerdictLinesUpTo;
    if (!panel.source.isEmpty()) {
        if (many) {
            m_plot->setToolTip(m_plot->toolTip() + tr("\n(figures of `%1`)").arg(panel.source));
        } else {
            below << tr("  (figures of `%1`)").arg(panel.source);
        }
    }
    // Code layout's spread, what it means, and whether all its placements were measured, under the
    // figures it qualifies (with many candidates, in the tooltip).
    const LayoutNote layout = layoutNote(panel.differences);
    if (!layout.spread.isEmpty()) {
        QStringList lines{
            layout.setups
                ? tr("%1 (hatched): how far the setups' differences scatter; the interval includes it")
                      .arg(layout.spread)
                : tr("%1 (hatched): what where the code sits moves; the interval includes it").arg(layout.spread)};
        if (!layout.incomplete.isEmpty()) {
            lines << layout.incomplete;
        }
        const QString tip = m_plot->toolTip();
        m_plot->setToolTip((tip.isEmpty() ? QString() : tip + QLatin1Char('\n')) + lines.join(QLatin1Char('\n')));
        if (!many) {
            for (const QString& line : lines) {
                below << QStringLiteral("  ") + line;
            }
        }
    }
    const QString text = below.join('\n');
    m_verdictElement->setText(text);
    // Its lines get their height however little the panel has (else the layout clips them): every
    // line, a verdict's wrapped ones too (the layout takes this height instead of the text's own).
    const auto lines = static_cast<int>(text.count(QLatin1Char('\n'))) + 1;
    m_verdictElement->setMinimumSize(0, QFontMetrics(m_verdictElement->font()).lineSpacing() * lines + 6);
    replotIfSized();
}

void ComparePlot::drawValues(const PanelView& panel)
{
    QCPAxis* x = m_values->axis(QCPAxis::atBottom);
    QCPAxis* y = m_values->axis(QCPAxis::atLeft);
    y->setLabel(panel.unit);
    double low = INFINITY;
    double high = -INFINITY;
    Categories& categories = m_categories[0];
    for (std::size_t v = 0; v < panel.variants.size(); ++v) {
        const auto& variant = panel.variants[v];
        const double at = static_cast<double>(v) + 1;
        categories.at << at;
        categories.names << variant.name;
        const QColor colour = variantColour(static_cast<int>(v));
        QCPGraph* dots = m_plot->addGraph(x, y);
        dots->setLineStyle(QCPGraph::lsNone);
        QColor faded = colour;
        faded.setAlpha(150);
        dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, faded, 6));
        for (std::size_t i = 0; i < variant.repetitions.size(); ++i) {
            const double value = variant.repetitions[i];
            dots->addData(at - 0.25 + jitter(i, variant.repetitions.size()) / 2, value);
            low = std::min(low, value);
            high = std::max(high, value);
        }
        QCPGraph* mean = m_plot->addGraph(x, y);
        mean->setLineStyle(QCPGraph::lsNone);
        mean->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, colour, colour, 9));
        mean->addData(at + 0.15, variant.mean);
        auto* ci = new QCPErrorBars(x, y);
        ci->setDataPlottable(mean);
        ci->setPen(QPen(colour, 2));
        ci->setWhiskerWidth(10);
        ci->addData(variant.mean - variant.ciLow, variant.ciHigh - variant.mean);
        if (std::isfinite(variant.ciLow) && std::isfinite(variant.ciHigh)) {
            low = std::min(low, variant.ciLow);
            high = std::max(high, variant.ciHigh);
        }
    }
    // The baseline's mean as a dashed line across the values: what every difference on the right
    // is taken from, and what a swap moves.
    const QString baseline = panel.differences.empty() ? QString() : panel.differences.front().baseline;
    for (std::size_t v = 0; v < panel.variants.size(); ++v) {
        if (panel.variants[v].name == baseline && std::isfinite(panel.variants[v].mean)) {
            auto* line = new QCPItemStraightLine(m_plot);
            line->setClipAxisRect(m_values);
            line->point1->setAxes(x, y);
            line->point2->setAxes(x, y);
            line->point1->setCoords(0, panel.variants[v].mean);
            line->point2->setCoords(1, panel.variants[v].mean);
            QColor colour = variantColour(static_cast<int>(v));
            colour.setAlpha(160);
            line->setPen(QPen(colour, 1, Qt::DashLine));
            m_baselineLine = line;
        }
    }
    categories.plan = applyCategoryTicks(x, categories.at, categories.names);
    // Many variants: their upright names take the room of the legend line, which goes to the tooltip.
    // The repetition values come from the clean chunks, the ones the verdict's pairs use
    // (engine/analysis/chunk_cut.h): both halves rest on the same chunks.
    const QString legend = tr("circles: one per repetition (clean chunks);\nsquare, bars: mean and %1% CI")
                               .arg(panel.meanLevelPct, 0, 'g', 6);
    m_valuesCaption = panel.variants.size() > 4 ? QString() : legend;
    x->setLabel(m_valuesCaption);
    if (panel.variants.size() > 4) {
        m_plot->setToolTip(QString(legend).replace('\n', ' '));
    }
    x->setRange(0.4, static_cast<double>(panel.variants.size()) + 0.6);
    const double span = std::isfinite(high - low) && high > low ? high - low : std::max(std::abs(high), 1.0) * 0.01;
    y->setRange(low - span * 0.15, high + span * 0.15);
}

void ComparePlot::drawDifferences(const PanelView& panel)
{
    QCPAxis* x = m_difference->axis(QCPAxis::atBottom);
    QCPAxis* y = m_difference->axis(QCPAxis::atLeft);
    m_marginPct = panel.marginPct;
    const QString baseline = panel.differences.empty() ? QString() : panel.differences.front().baseline;
    const QString design = panel.differences.empty() ? tr("no candidate") : panel.differences.front().design;
    // A long baseline name is shortened in the middle: the label must fit the axis's height.
    m_baselineName = baseline;
    y->setLabel(tr("vs %1, %").arg(QFontMetrics(y->labelFont()).elidedText(baseline, Qt::ElideMiddle, 90)));
    // The level each interval has, as the report names it: a secondary metric's is the level of
    // its Holm-adjusted p (the report's "h"), so that interval and verdict agree.
    m_differenceCaption =
        tr("%1\n%2; band: \u00b1%3% margin").arg(design, levelCaption(panel.differences)).arg(panel.marginPct);
    const LayoutNote layout = layoutNote(panel.differences);
    m_layoutCaption = layout.spread.isEmpty() ? QString() : tr("hatched: %1").arg(layout.spread);
    x->setLabel(m_layoutCaption.isEmpty() ? m_differenceCaption : m_differenceCaption + '\n' + m_layoutCaption);

    drawMarginAndZero(m_plot, m_difference, panel.marginPct);

    Categories& categories = m_categories[1];
    double low = -panel.marginPct;
    double high = panel.marginPct;
    // Each candidate's layout spread, in its column (neighbours with the same spread share one band):
    // drawn before the diamonds, so under them.
    const std::size_t n = panel.differences.size();
    const auto spreadOf = [&](std::size_t i) {
        return hasLayoutSpread(panel.differences[i]) ? std::abs(panel.differences[i].layout->spreadPct) : NAN;
    };
    m_layoutBands.assign(n, nullptr);
    for (std::size_t i = 0; i < n;) {
        const double spread = spreadOf(i);
        std::size_t end = i + 1;
        if (std::isfinite(spread)) {
            while (end < n && spreadOf(end) == spread) {
                ++end;
            }
            QCPItemRect* band = drawLayoutBand(m_plot, m_difference, static_cast<double>(i) + 0.5,
                                               static_cast<double>(end) + 0.5, end == n, spread);
            std::fill(m_layoutBands.begin() + static_cast<std::ptrdiff_t>(i),
                      m_layoutBands.begin() + static_cast<std::ptrdiff_t>(end), band);
            low = std::min(low, -spread);
            high = std::max(high, spread);
        }
        i = end;
    }
    m_estimates = m_plot->addGraph(x, y);
    m_estimates->setLineStyle(QCPGraph::lsNone);
    m_estimates->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, Qt::black, Qt::black, 11));
    m_intervals = new QCPErrorBars(x, y);
    m_intervals->setDataPlottable(m_estimates);
    m_intervals->setPen(QPen(Qt::black, 2));
    m_intervals->setWhiskerWidth(12);
    for (const auto& d : panel.differences) {
        for (double v : {d.estimatePct, d.ciLowPct, d.ciHighPct}) {
            if (std::isfinite(v)) {
                low = std::min(low, v);
                high = std::max(high, v);
            }
        }
    }
    const double pad = (high - low) * 0.15;
    for (std::size_t i = 0; i < panel.differences.size(); ++i) {
        const auto& d = panel.differences[i];
        const double at = static_cast<double>(i) + 1;
        categories.at << at;
        categories.names << d.candidate;
        if (!std::isfinite(d.estimatePct)) {
            continue;
        }
        // An unbounded side runs to the edge of the axis.
        const double lowEnd = std::isfinite(d.ciLowPct) ? d.ciLowPct : low - pad;
        const double highEnd = std::isfinite(d.ciHighPct) ? d.ciHighPct : high + pad;
        m_estimates->addData(at, d.estimatePct);
        m_intervals->addData(d.estimatePct - lowEnd, highEnd - d.estimatePct);
        // The candidate's own colour inside the black diamond: the same as its values on the left.
        const auto candidate = std::find_if(panel.variants.begin(), panel.variants.end(),
                                            [&](const VariantView& v) { return v.name == d.candidate; });
        if (candidate != panel.variants.end()) {
            const QColor colour = variantColour(static_cast<int>(candidate - panel.variants.begin()));
            QCPGraph* fill = m_plot->addGraph(x, y);
            fill->setLineStyle(QCPGraph::lsNone);
            fill->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, colour, colour, 7));
            fill->addData(at, d.estimatePct);
            fill->setName(d.candidate);
        }
        if (panel.differences.size() > 2) {
            continue;  // no room for the figures: the verdict lines below give them
        }
        auto* label = new QCPItemText(m_plot);
        label->setClipAxisRect(m_difference);
        label->position->setAxes(x, y);
        label->position->setCoords(at, d.estimatePct);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setPadding(QMargins(kFigureOffset, 0, 0, 0));  // clear of the diamond at any width
        const QString full = tr("%1\n[%2, %3]%4\n%5")
                                 .arg(percent(d.estimatePct), percent(d.ciLowPct), percent(d.ciHighPct),
                                      d.holmLevel ? QStringLiteral(" h") : QString(), d.verdict);
        label->setText(full);
        m_figureTexts.emplace_back(full, tr("%1\n%2").arg(percent(d.estimatePct), d.verdict));
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() * 0.8);
        label->setFont(f);
        m_figures.push_back(label);
    }
    m_differencesEnd = static_cast<double>(std::max<std::size_t>(panel.differences.size(), 1));
    categories.plan = applyCategoryTicks(x, categories.at, categories.names);
    x->setRange(0.5, static_cast<double>(std::max<std::size_t>(panel.differences.size(), 1)) + 0.9);
    m_differenceLow = low - pad;
    m_differenceHigh = high + pad;
    y->setRange(m_differenceLow, m_differenceHigh);
}

QString ComparePlot::differenceTitle() const
{
    return m_difference->axis(QCPAxis::atLeft)->label() + QStringLiteral(": ") +
           m_difference->axis(QCPAxis::atBottom)->label().simplified();
}

std::optional<ComparePlot::Drawn> ComparePlot::drawnDifference(int index) const
{
    if (m_estimates == nullptr || m_intervals == nullptr) {
        return std::nullopt;
    }
    for (int i = 0; i < m_estimates->dataCount() && i < m_intervals->dataCount(); ++i) {
        if (m_estimates->data()->at(i)->key == index + 1) {
            const double estimate = m_estimates->data()->at(i)->value;
            const auto& error = m_intervals->data()->at(i);
            return Drawn{.estimate = estimate, .low = estimate - error.errorMinus, .high = estimate + error.errorPlus};
        }
    }
    return std::nullopt;
}

double ComparePlot::drawnBaselineMean() const
{
    return m_baselineLine != nullptr ? m_baselineLine->point1->coords().y() : std::nan("");
}

double ComparePlot::drawnMarginPct() const
{
    return m_marginPct;
}

QCPItemRect* ComparePlot::layoutBand(int index) const
{
    return index >= 0 && static_cast<std::size_t>(index) < m_layoutBands.size()
               ? m_layoutBands[static_cast<std::size_t>(index)]
               : nullptr;
}

QString ComparePlot::verdictShown() const
{
    return m_verdictElement->text();
}

}  // namespace nf::ui
