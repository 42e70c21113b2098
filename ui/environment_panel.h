#pragma once
// The Environment tab: `noisefloor check --format json` as a table, warnings and failures
// highlighted, each with its fix. The check runs in the engine process, never in the GUI.

#include <QWidget>

class QLabel;
class QProcess;
class QTableWidget;

namespace nf::ui {

class EnvironmentPanel : public QWidget {
    Q_OBJECT

public:
    explicit EnvironmentPanel(QWidget* parent = nullptr);

    // Runs the check again (asynchronously).
    void refresh();
    // Fills the table from the check's JSON output; false when it is not a check list.
    bool showCheckOutput(const QByteArray& json);
    // Blocks until a check in flight has finished (tests, screenshots).
    void waitForCheck(int timeoutMs = 30000);
    bool loaded() const { return m_loaded; }

    QTableWidget* table() const { return m_table; }
    int warningCount() const { return m_warnings; }

private:
    QTableWidget* m_table;
    QLabel* m_summary;
    QProcess* m_process = nullptr;
    int m_warnings = 0;
    bool m_loaded = false;
};

}  // namespace nf::ui
