#pragma once
// "Retry when free" on the Live tab, for a run the engine refused because another run measures on
// its CPUs ("CPU 1 is measured by another run, pid 4242 (...); wait for it, ..."). Pressed, it asks
// the engine every second which runs measure on the design's CPUs (`noisefloor run ... --dry-run
// --format json`, its "cpus_in_use"; on another host through ssh), one question at a time, says
// which run it waits for, and once none is left asks for the same design to start again. Cancel
// stops waiting. It never starts the run itself: retry() does, through RunController.

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <utility>

class QLabel;
class QPushButton;
class QTimer;

namespace nf::ui {

class RetryWhenFree : public QWidget {
    Q_OBJECT

public:
    // The program and arguments that run `noisefloor` with these arguments (here, or through ssh).
    using Launcher = std::function<std::pair<QString, QStringList>(const QStringList&)>;

    explicit RetryWhenFree(QWidget* parent = nullptr);

    // The run the engine names in a refusal for CPUs another run measures on ("CPU 1: pid 4242
    // (noisefloor run ...)"); "" when `message` is not such a refusal.
    static QString heldBy(const QString& message);

    // A run of `arguments` (`noisefloor` arguments: [--db DB] run ...) was refused with `refusal`:
    // shows the offer. `launch` runs the engine's questions.
    void offer(const QStringList& arguments, const QString& refusal, Launcher launch);
    // Starts waiting (what the button does).
    void wait();
    // Hides the row and stops waiting: a run was started, or the panel was cleared.
    void withdraw();
    bool waiting() const { return m_waiting; }
    QString text() const;
    QPushButton* retryButton() const { return m_retry; }
    QPushButton* cancelButton() const { return m_cancel; }

    static constexpr int kLookEveryMs = 1000;

signals:
    // The CPUs are free: start the run of `arguments` again.
    void retry(const QStringList& arguments);

private:
    void look();
    void onAnswer(int exitCode, QProcess::ExitStatus status);
    void stopWaiting(const QString& text);
    void dropQuestion();  // ends the question being asked, if any, and the next

    QLabel* m_text = nullptr;
    QPushButton* m_retry = nullptr;
    QPushButton* m_cancel = nullptr;
    QTimer* m_next = nullptr;      // the next question, a second after the last answer
    QProcess* m_engine = nullptr;  // the question being asked; nullptr between them
    QStringList m_arguments;
    QString m_holder;
    Launcher m_launch;
    bool m_waiting = false;
};

}  // namespace nf::ui
