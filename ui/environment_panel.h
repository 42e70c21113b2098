#pragma once
// The Environment tab: `noisefloor check --format json` as a table, warnings and failures
// highlighted, each with its fix. The check runs in the engine process, never in the GUI: on this
// machine, or over ssh on the host the runs go to (--host), and the summary names which.

#include <QWidget>

class QLabel;
class QProcess;
class QPushButton;
class QTableWidget;

namespace nf::ui {

class RemoteEngine;

class EnvironmentPanel : public QWidget {
    Q_OBJECT

public:
    explicit EnvironmentPanel(QWidget* parent = nullptr);

    // Runs the check again (asynchronously), or says why it does not run here (refuseChecks).
    void refresh();
    // Never starts the check on this machine (a build that cannot measure here): says `why`
    // instead, and offers no "Check again".
    void refuseChecks(const QString& why);
    // Checks the host `remote` drives from now on (nullptr: this machine); the next refresh runs
    // there. A refusal (refuseChecks) is about this machine and does not hold for another host.
    void checkOn(const RemoteEngine* remote);
    // Fills the table from the check's JSON output; false when it is not a check list.
    bool showCheckOutput(const QByteArray& json);
    // Blocks until a check in flight has finished (tests, screenshots).
    void waitForCheck(int timeoutMs = 30000);
    bool loaded() const { return m_loaded; }

    QTableWidget* table() const { return m_table; }
    QString summaryText() const;
    int warningCount() const { return m_warnings; }

private:
    QTableWidget* m_table;
    QLabel* m_summary;
    QPushButton* m_again;
    QProcess* m_process = nullptr;
    QString m_refusal;                       // why the check does not run here; "" = it does
    const RemoteEngine* m_remote = nullptr;  // the host checked; nullptr = this machine
    QString where() const;                   // "this machine", "host dut (over ssh)"
    int m_warnings = 0;
    bool m_loaded = false;
};

}  // namespace nf::ui
