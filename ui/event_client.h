#pragma once
// The client side of `noisefloor run --events jsonl`: starts the engine with QProcess, splits its
// stdout into lines, parses each JSON object and turns it into a signal. The GUI never measures in
// its own process; a crashing engine becomes engineFailed() with its stderr, never a GUI crash.

#include <QObject>
#include <QProcess>
#include <QStringList>

#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

namespace nf::ui {

// What run_started says about the run.
struct LiveRunInfo {
    std::int64_t runId = 0;
    QString db;
    QString workload;
    QString label;
    QStringList variants;
    QString primaryMetric;
    QString primaryUnit;
    bool primaryHigherIsBetter = false;
    int repetitions = 0;
    double duration = 0;  // seconds per variant per repetition
    QStringList notMeasured;
    QString simulatedCounters;  // the note of a run with the simulated PMU, else ""
    QString sweepPoint;         // "sweep point 3 of 12: work = 400" for a point of a sweep, else ""
};

// One sample, reduced to what the live plot needs.
struct LiveSample {
    int variant = 0;
    int repetition = 0;
    double start = 0;     // seconds since the first measurement
    double duration = 0;  // seconds
    double primary = 0;   // NaN when undefined
};

// What a "look" event says: the engine's confidence sequence of the primary metric's difference
// (candidate / baseline - 1, in %) on what has been measured so far. Provisional.
struct LiveLook {
    int units = 0;
    double elapsed = 0;        // seconds since the first measurement
    double estimatePct = NAN;  // NaN when not known yet
    double lowPct = NAN;
    double highPct = NAN;
    double marginPct = NAN;
    double detectablePct = NAN;
    double secondsToDecision = NAN;
    double secondsLeft = NAN;
    QString decision;  // different, negligible, equivalent, inconclusive
};

class EventClient : public QObject {
    Q_OBJECT

public:
    explicit EventClient(QObject* parent = nullptr);
    ~EventClient() override;

    // Starts `program args... --events jsonl`; false (and engineFailed) when it cannot start or a
    // run is already going.
    bool start(const QString& program, const QStringList& args);
    // Asks the engine to stop (SIGTERM): it ends the run as aborted and says so.
    void stop();
    // Closes the engine's stdin: an engine given --stop-when-stdin-closes (over ssh, where a
    // signal to ssh would not reach it) then ends the run as aborted and says so.
    void closeInput();
    bool running() const;
    // Parses stream text as if the engine had written it (tests, recorded streams).
    void feed(const QByteArray& bytes);

    const QString& stderrText() const { return m_stderr; }
    int linesRead() const { return m_lines; }

signals:
    void runStarted(const nf::ui::LiveRunInfo& info);
    void samplesArrived(const std::vector<nf::ui::LiveSample>& samples);
    void repetitionDone(int repetition, double start, double end);
    // A look at the difference while the run goes on (a few times a second).
    void lookArrived(const nf::ui::LiveLook& look);
    void progress(int done, int total, double secondsLeft);
    void warning(const QString& text);
    void finished(const QString& status, const QString& reason);
    void error(const QString& message);
    // The engine exited without a "finished" event (crash, kill) or could not start.
    void engineFailed(const QString& reason, const QString& stderrText);
    // The process is gone, whatever happened; exitStatus as QProcess reports it.
    void processEnded(int exitCode);

private:
    void readStdout();
    void handleLine(const QByteArray& line);
    void processFinished(int exitCode, QProcess::ExitStatus status);

    QProcess* m_process = nullptr;
    QByteArray m_pending;
    std::map<int, int> m_partialSeen;  // per repetition, samples already sent by partial_samples
    QString m_stderr;
    bool m_sawFinished = false;
    int m_lines = 0;
};

}  // namespace nf::ui

Q_DECLARE_METATYPE(nf::ui::LiveRunInfo)
Q_DECLARE_METATYPE(nf::ui::LiveLook)
