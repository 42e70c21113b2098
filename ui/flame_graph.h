#pragma once
// A differential flame graph (an icicle: the root on top, callees below): the folded stacks of two
// variants merged into one tree, each frame (one call path) as wide as its mean inclusive share of
// the two (so a frame only one variant reaches is still drawn) and coloured by the change of that
// share, candidate minus baseline: red where the candidate spends more of its time, blue where
// less, white where the same. With `cpuRoots` the stacks' first frames are the sampled CPUs
// ("cpu1-rx") and every share below one is of that CPU's samples, as the profile's rows are. A
// click zooms into a frame and says its shares and its callers (every frame that calls a function
// of that name on that CPU); a right click zooms out one level, reset() all the way.

#include <QString>
#include <QWidget>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nf::ui {

struct FlameNode {
    std::string name;
    double base = 0;  // inclusive samples of the baseline
    double cand = 0;
    std::map<std::string, std::unique_ptr<FlameNode>> children;
    FlameNode* parent = nullptr;
};

class FlameGraph : public QWidget {
    Q_OBJECT

public:
    explicit FlameGraph(QWidget* parent = nullptr);

    // Folded stacks (root first, ';' between frames) -> samples, of the baseline and the candidate.
    void setStacks(const std::map<std::string, long long>& baseline, const std::map<std::string, long long>& candidate,
                   const QString& baselineName, const QString& candidateName, bool cpuRoots = false);
    void reset();
    // Zooms into the widest frame of `symbol` (as the profile names it), under CPU `cpu`'s frame
    // when the stacks have them and `cpu` >= 0; false when there is none.
    bool select(const QString& symbol, int cpu = -1);
    // What a click on the selected frame says: its shares and callers; "" when none is selected.
    QString selectionText() const { return m_selectionText; }
    // The frame drawn at `pos`, for tests; "" when none.
    QString frameAt(const QPoint& pos) const;

    QSize sizeHint() const override { return {600, 300}; }

signals:
    void selectionChanged(const QString& text);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;  // tooltips

private:
    struct Box {
        const FlameNode* node;
        QRectF rect;
    };
    void layoutBoxes();
    void place(const FlameNode& node, double x, double width, int depth);
    void zoomInto(const FlameNode* node);
    double share(const FlameNode& node, bool candidate) const;
    const FlameNode* cpuOf(const FlameNode& node) const;  // its CPU frame; the root without them
    QString describe(const FlameNode& node) const;

    std::unique_ptr<FlameNode> m_root;
    const FlameNode* m_zoom = nullptr;
    bool m_cpuRoots = false;
    QString m_baseName;
    QString m_candName;
    QString m_selectionText;
    std::vector<Box> m_boxes;
};

}  // namespace nf::ui
