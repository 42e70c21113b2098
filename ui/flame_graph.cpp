#include "ui/flame_graph.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <deque>

#include "engine/model/profile.h"

namespace nf::ui {

namespace {

constexpr int kRowHeight = 17;
constexpr double kMinWidth = 2;      // narrower frames are not drawn
constexpr double kSaturationPp = 5;  // a change of this many points is the full colour

void addStack(FlameNode& root, const std::string& stack, double samples, bool candidate)
{
    FlameNode* node = &root;
    (candidate ? node->cand : node->base) += samples;
    std::size_t at = 0;
    while (at <= stack.size()) {
        const std::size_t end = std::min(stack.find(';', at), stack.size());
        const std::string frame = stack.substr(at, end - at);
        auto& child = node->children[frame];
        if (!child) {
            child = std::make_unique<FlameNode>();
            child->name = frame;
            child->parent = node;
        }
        node = child.get();
        (candidate ? node->cand : node->base) += samples;
        at = end + 1;
    }
}

QColor changeColour(double deltaPp)
{
    const double t = std::clamp(std::fabs(deltaPp) / kSaturationPp, 0.0, 1.0);
    const int fade = static_cast<int>(std::lround(255 - 175 * t));
    return deltaPp >= 0 ? QColor(255, fade, fade) : QColor(fade, fade, 255);
}

}  // namespace

FlameGraph::FlameGraph(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumHeight(120);
    setToolTip(tr("Click a frame to zoom into it and see its callers; right-click to zoom out a level"));
}

void FlameGraph::setStacks(const std::map<std::string, long long>& baseline,
                           const std::map<std::string, long long>& candidate, const QString& baselineName,
                           const QString& candidateName, bool cpuRoots)
{
    m_cpuRoots = cpuRoots;
    m_root = std::make_unique<FlameNode>();
    m_root->name = "all";
    for (const auto& [stack, n] : baseline) {
        addStack(*m_root, stack, static_cast<double>(n), false);
    }
    for (const auto& [stack, n] : candidate) {
        addStack(*m_root, stack, static_cast<double>(n), true);
    }
    m_baseName = baselineName;
    m_candName = candidateName;
    reset();
}

void FlameGraph::reset()
{
    m_zoom = m_root.get();
    m_selectionText.clear();
    layoutBoxes();
    update();
    emit selectionChanged(m_selectionText);
}

const FlameNode* FlameGraph::cpuOf(const FlameNode& node) const
{
    if (!m_cpuRoots || node.parent == nullptr) {
        return m_root.get();
    }
    const FlameNode* at = &node;
    while (at->parent != nullptr && at->parent->parent != nullptr) {
        at = at->parent;
    }
    return at;
}

double FlameGraph::share(const FlameNode& node, bool candidate) const
{
    const FlameNode* whole = cpuOf(node);
    const double total = candidate ? whole->cand : whole->base;
    return total > 0 ? 100 * (candidate ? node.cand : node.base) / total : 0;
}

QString FlameGraph::describe(const FlameNode& node) const
{
    const double b = share(node, false);
    const double c = share(node, true);
    return tr("%1 (this call path, with its callees): %2 %3%, %4 %5% (%6%7 pp)")
        .arg(QString::fromStdString(node.name), m_baseName, QString::number(b, 'f', 2), m_candName,
             QString::number(c, 'f', 2), c - b >= 0 ? QStringLiteral("+") : QString(), QString::number(c - b, 'f', 2));
}

void FlameGraph::layoutBoxes()
{
    m_boxes.clear();
    if (m_zoom == nullptr) {
        return;
    }
    // The zoomed frame's ancestors stay on top, full width, so that the way back is visible.
    std::vector<const FlameNode*> path;
    for (const FlameNode* n = m_zoom->parent; n != nullptr; n = n->parent) {
        path.push_back(n);
    }
    int depth = 0;
    for (auto it = path.rbegin(); it != path.rend(); ++it, ++depth) {
        m_boxes.push_back({*it, QRectF(0, depth * kRowHeight, width(), kRowHeight - 1)});
    }
    place(*m_zoom, 0, width(), depth);
    // As tall as the deepest frame drawn: the view around it scrolls.
    double bottom = 0;
    for (const auto& box : m_boxes) {
        bottom = std::max(bottom, box.rect.bottom());
    }
    setMinimumHeight(std::max(120, static_cast<int>(std::ceil(bottom)) + 2));
}

void FlameGraph::place(const FlameNode& node, double x, double w, int depth)
{
    if (w < kMinWidth) {
        return;
    }
    m_boxes.push_back({&node, QRectF(x, depth * kRowHeight, w, kRowHeight - 1)});
    // Widths by the share of all samples (the CPUs side by side); colours and figures by the CPU's.
    const auto width = [this](const FlameNode& n) {
        const double base = m_root->base > 0 ? n.base / m_root->base : 0;
        const double cand = m_root->cand > 0 ? n.cand / m_root->cand : 0;
        return (base + cand) / 2;
    };
    const double mean = width(node);
    if (mean <= 0) {
        return;
    }
    std::vector<const FlameNode*> children;
    for (const auto& [name, child] : node.children) {
        children.push_back(child.get());
    }
    // The widest first, as flame graphs order by name but a reader looks for the big ones.
    std::stable_sort(children.begin(), children.end(),
                     [&width](const FlameNode* a, const FlameNode* b) { return width(*a) > width(*b); });
    double at = x;
    for (const FlameNode* child : children) {
        const double childWidth = w * width(*child) / mean;
        place(*child, at, childWidth, depth + 1);
        at += childWidth;
    }
}

void FlameGraph::paintEvent(QPaintEvent* /*event*/)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (m_boxes.empty()) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No call stacks"));
        return;
    }
    const QFontMetrics metrics(font());
    for (const auto& box : m_boxes) {
        const FlameNode& n = *box.node;
        const double delta = share(n, true) - share(n, false);
        painter.fillRect(box.rect, changeColour(delta));
        painter.setPen(QColor(160, 160, 160));
        painter.drawRect(box.rect);
        if (box.rect.width() > 24) {
            painter.setPen(Qt::black);
            const QString text = metrics.elidedText(QString::fromStdString(n.name), Qt::ElideRight,
                                                    static_cast<int>(box.rect.width()) - 6);
            painter.drawText(box.rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
        }
    }
}

QString FlameGraph::frameAt(const QPoint& pos) const
{
    for (auto it = m_boxes.rbegin(); it != m_boxes.rend(); ++it) {
        if (it->rect.contains(pos)) {
            return QString::fromStdString(it->node->name);
        }
    }
    return {};
}

void FlameGraph::zoomInto(const FlameNode* node)
{
    m_zoom = node;
    // The callers of every frame of this name on its CPU, wherever it is called from.
    const FlameNode* whole = cpuOf(*node);
    std::map<std::string, double> callers;
    std::deque<const FlameNode*> queue{whole};
    while (!queue.empty()) {
        const FlameNode* n = queue.front();
        queue.pop_front();
        for (const auto& [name, child] : n->children) {
            if (name == node->name) {
                const bool first = n == whole;  // the root, or the CPU's frame: no caller
                callers[first ? std::string() : n->name] += (share(*child, false) + share(*child, true)) / 2;
            }
            queue.push_back(child.get());
        }
    }
    QStringList list;
    for (const auto& [name, mean] : callers) {
        list << tr("%1 (%2%)")
                    .arg(name.empty() ? tr("a stack's first frame") : QString::fromStdString(name),
                         QString::number(mean, 'f', 2));
    }
    m_selectionText = describe(*node) + tr("; called from %1").arg(list.join(QStringLiteral(", ")));
    layoutBoxes();
    update();
    emit selectionChanged(m_selectionText);
}

bool FlameGraph::select(const QString& symbol, int cpu)
{
    if (!m_root) {
        return false;
    }
    const std::string name = engine::foldedFrame(symbol.toStdString());
    const std::string cpuPrefix = "cpu" + std::to_string(cpu) + "-";
    const FlameNode* best = nullptr;
    std::deque<const FlameNode*> queue{m_root.get()};
    while (!queue.empty()) {
        const FlameNode* n = queue.front();
        queue.pop_front();
        for (const auto& [childName, child] : n->children) {
            if (m_cpuRoots && cpu >= 0 && n == m_root.get() && childName.rfind(cpuPrefix, 0) != 0) {
                continue;  // another CPU's stacks
            }
            if (childName == name && (best == nullptr || child->base + child->cand > best->base + best->cand)) {
                best = child.get();
            }
            queue.push_back(child.get());
        }
    }
    if (best != nullptr) {
        zoomInto(best);
    }
    return best != nullptr;
}

void FlameGraph::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::RightButton) {  // out one level
        if (m_zoom != nullptr && m_zoom->parent != nullptr && m_zoom->parent != m_root.get()) {
            zoomInto(m_zoom->parent);
        } else {
            reset();
        }
        return;
    }
    for (auto it = m_boxes.rbegin(); it != m_boxes.rend(); ++it) {
        if (it->rect.contains(event->position())) {
            if (it->node == m_root.get()) {
                reset();
            } else {
                zoomInto(it->node);
            }
            return;
        }
    }
}

bool FlameGraph::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        for (auto it = m_boxes.rbegin(); it != m_boxes.rend(); ++it) {
            if (it->rect.contains(help->pos())) {
                QToolTip::showText(help->globalPos(), describe(*it->node), this);
                return true;
            }
        }
        QToolTip::hideText();
        return true;
    }
    if (event->type() == QEvent::Resize) {
        layoutBoxes();
    }
    return QWidget::event(event);
}

}  // namespace nf::ui
