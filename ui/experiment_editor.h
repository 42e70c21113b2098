#pragma once
// The Experiment tab: a form built from the engine's workload catalogue (engine/catalog/, read
// in-process) for one A/B run: workload, its parameters (type, default and range shown; empty means
// the default), a variants table (name + overrides), the worker CPUs (cores and SMT siblings shown),
// repetitions, duration, warmup, order, label and sweep. The form is checked by the engine's own
// checkExperiment, the function `noisefloor run` calls: invalid input is marked where it is, and Run
// is enabled exactly when `noisefloor run --dry-run` with the same arguments would accept it. The
// form's values become the spec and the arguments in ui/experiment_request.h, without widgets.
// Beside Run, how long the design takes, in the words of `noisefloor run --dry-run`.

#include <QWidget>

#include <map>
#include <optional>
#include <vector>

#include "base/system_facts.h"
#include "engine/catalog/spec_check.h"
#include "engine/catalog/workload_catalog.h"
#include "ui/experiment_request.h"

class QComboBox;
class QDoubleSpinBox;
class QAbstractSpinBox;
class QCheckBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QTableWidget;
class QTimer;

namespace nf::ui {

class ExperimentEditor : public QWidget {
    Q_OBJECT

public:
    explicit ExperimentEditor(QWidget* parent = nullptr);

    // The CPUs the form offers and checks against (by default this machine's); `where` names
    // another machine whose they are ("host dut"), shown with the list.
    void setMachine(const base::SystemFacts& facts, const QString& where = QString());
    // The list while `where`'s CPUs are asked for, or why they could not be read (`why`): no CPU
    // of this machine is offered for a run on another.
    void awaitMachine(const QString& where, const QString& why = QString());
    QString cpusLabel() const;

    bool selectWorkload(const QString& name);
    // Sets a parameter's field ("" = default); false when the workload has no such parameter.
    bool setParam(const QString& name, const QString& value);
    // Replaces the variants: each is {name, "key=value,key=value"}.
    void setVariants(const std::vector<std::pair<QString, QString>>& variants);
    void setRepetitions(int reps);
    void setDuration(double seconds);
    void setLabel(const QString& label);
    void setShareCpus(bool share);
    void setWarmup(double seconds);
    void setOrder(const QString& order);
    void setPmu(const QString& pmu);  // "perf" or "simulated" (--pmu)
    // Run until decided (--until decided --max-time S --margin M), or a fixed number of repetitions.
    void setUntilDecided(bool on, double maxTime = 600, double marginPct = 1);
    // Ticks exactly these CPUs (false when one is not offered).
    bool setCpuSelection(const std::vector<int>& cpus);
    // Fills the form with a stored run's design (RunRecord::spec): workload, parameters, variants,
    // repetitions, duration, warmup, order, counters' source, stopping rule, CPUs and label; the
    // sweep is emptied (a run of a sweep is one point: its value is among the parameters). Returns
    // what the form could not carry over, one line each (a chunk other than the engine's choice, a
    // CPU not offered here, ...); the workload unknown here leaves the form as it was.
    QStringList setDesign(const engine::ExperimentSpec& spec);
    // The form's design as the engine reads it (without the sweep), and the sweep as typed: what
    // setDesign(), setRepetitions() and setSweep() take back.
    engine::ExperimentSpec designSpec() const { return experimentRequest(form()).spec; }
    QString sweepText() const;

    // What is wrong with the input, one line per problem; empty when the engine would accept it.
    QStringList problems() const { return m_problems; }
    // `noisefloor` arguments for this experiment (without --events): [--db DB] run WORKLOAD ...
    QStringList arguments(const QString& dbPath) const;
    // The CLI command a user could type for the same run.
    QString commandLine(const QString& dbPath) const;
    bool runEnabled() const;
    // Keeps Run disabled, whatever the form says, and shows `why` above the problems (a build that
    // cannot measure on this machine); "" allows runs again.
    void refuseRuns(const QString& why);
    QString runRefusal() const { return m_refusal; }
    // A sweep is filled in: the run is one run per value.
    bool isSweep() const;
    void setSweep(const QString& text);
    void setRunning(bool running);
    // The database a run from here writes: the command shown under the form names it (--db), so
    // that it can be copied and run as it is. "" leaves --db out (a run on another host).
    void setDatabase(const QString& path);

    QLineEdit* paramField(const QString& name) const;
    QTableWidget* variantsTable() const { return m_variants; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* stopButton() const { return m_stop; }
    // How long the design takes, beside Run ("Takes about 1 min 40 s (...)", engine::planTimeText),
    // or why there is no estimate (the first problem); it follows the form kEstimateSettleMs after
    // the last change.
    QLabel* estimateLabel() const { return m_estimate; }
    static constexpr int kEstimateSettleMs = 300;
    // Where the problems (or the command) are shown: a fixed height, scrolling when they are many.
    QScrollArea* messageArea() const { return m_messages; }

signals:
    void runRequested(const QStringList& arguments);
    void stopRequested();

private:
    // The fields as plain values, for experimentRequest().
    ExperimentForm form() const;
    void buildParamForm();
    void validate();
    void markProblems(const ExperimentRequest& r, const std::vector<engine::SpecProblem>& problems);
    QString paramValue(int index) const;
    // A number field given what it cannot take (out of its range, not a number) keeps its last good
    // value when it is left: the message area says so, while it is typed and after.
    void watchNumber(QAbstractSpinBox* spin, const QString& name);
    void showProblems();
    const engine::WorkloadDescriptor* current() const;

    std::vector<const engine::WorkloadDescriptor*> m_workloads;
    base::SystemFacts m_facts;
    QComboBox* m_workload = nullptr;
    QLabel* m_description = nullptr;
    QLabel* m_cpusLabel = nullptr;  // "Worker CPUs", or "Worker CPUs of host dut"
    QFormLayout* m_paramForm = nullptr;
    QWidget* m_paramBox = nullptr;
    std::vector<QWidget*> m_paramFields;  // QLineEdit or QComboBox, in spec order
    QTableWidget* m_variants = nullptr;
    QListWidget* m_cpus = nullptr;
    QSpinBox* m_reps = nullptr;
    QDoubleSpinBox* m_duration = nullptr;
    QDoubleSpinBox* m_warmup = nullptr;
    QComboBox* m_order = nullptr;
    QComboBox* m_pmu = nullptr;
    QLineEdit* m_label = nullptr;
    QLineEdit* m_sweep = nullptr;
    QCheckBox* m_until = nullptr;
    QCheckBox* m_shareCpus = nullptr;  // --share-cpus
    QDoubleSpinBox* m_maxTime = nullptr;
    QDoubleSpinBox* m_margin = nullptr;
    QLabel* m_refusalLabel = nullptr;
    QLabel* m_problemsLabel = nullptr;
    QLabel* m_command = nullptr;
    QLabel* m_estimate = nullptr;
    QTimer* m_estimateTimer = nullptr;  // settles the estimate after the last change
    QString m_estimateText;             // what it will show
    QScrollArea* m_messages = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_stop = nullptr;
    QStringList m_problems;
    std::map<QAbstractSpinBox*, QString> m_numberNotes;  // by watchNumber()
    QString m_refusal;                                   // why Run stays disabled on this machine; "" = it may run
    QString m_database;                                  // for the command shown
    bool m_running = false;
};

}  // namespace nf::ui
