#pragma once
// Compare's Profile view, for a run stored with --profile: how the profile was taken, the symbols
// whose share changed between a candidate and the baseline (bars with their intervals), and a
// differential flame graph of the two (ui/flame_graph.h); a click on a bar or a frame zooms the
// graph into it and says its callers. "Copy table" copies "where the time went" as `noisefloor
// compare` prints it.

#include <QWidget>

#include "ui/comparison.h"

class QComboBox;
class QLabel;

namespace nf::ui {

class FlameGraph;
class ProfileBars;

class ProfilePanel : public QWidget {
    Q_OBJECT

public:
    explicit ProfilePanel(QWidget* parent = nullptr);

    void showProfile(const ProfileView& profile);
    ProfileBars* bars() const { return m_bars; }
    FlameGraph* flameGraph() const { return m_flame; }
    QComboBox* comparisonPicker() const { return m_comparison; }
    QString selectionText() const;

signals:
    void copyTableRequested(const QString& text);

private:
    void showComparison(int index);

    ProfileView m_profile;
    QLabel* m_summary = nullptr;
    QComboBox* m_comparison = nullptr;
    QLabel* m_comparisonLabel = nullptr;
    ProfileBars* m_bars = nullptr;
    FlameGraph* m_flame = nullptr;
    QLabel* m_selection = nullptr;
};

}  // namespace nf::ui
