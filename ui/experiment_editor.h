#pragma once
// The Experiment tab: a form built from the workload registry (`noisefloor workloads --format
// json`) for one A/B run: workload, its parameters (type, default and range shown; empty means the
// default), a variants table (name + overrides), the worker CPUs (cores and SMT siblings shown),
// repetitions, duration, warmup, order and label. Invalid input is marked where it is and Run
// stays disabled until it is fixed.

#include <QWidget>

#include <vector>

#include "workload_catalog.h"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace nf::ui {

class ExperimentEditor : public QWidget {
    Q_OBJECT

public:
    explicit ExperimentEditor(QWidget* parent = nullptr);

    void setWorkloads(std::vector<WorkloadInfoView> workloads);
    void setCpus(const std::vector<CpuInfo>& cpus);
    // Shown instead of the form when the workload list could not be read.
    void setCatalogError(const QString& text);

    bool selectWorkload(const QString& name);
    // Sets a parameter's field ("" = default); false when the workload has no such parameter.
    bool setParam(const QString& name, const QString& value);
    // Replaces the variants: each is {name, "key=value,key=value"}.
    void setVariants(const std::vector<std::pair<QString, QString>>& variants);
    void setRepetitions(int reps);
    void setDuration(double seconds);
    void setLabel(const QString& label);

    // What is wrong with the input, one line per problem; empty when Run is possible.
    QStringList problems() const { return m_problems; }
    // `noisefloor` arguments for this experiment (without --events): [--db DB] run WORKLOAD ...
    QStringList arguments(const QString& dbPath) const;
    // The CLI command a user could type for the same run.
    QString commandLine(const QString& dbPath) const;
    bool runEnabled() const;
    // A sweep is filled in: the run is one run per value.
    bool isSweep() const;
    void setSweep(const QString& text);
    void setRunning(bool running);

    QLineEdit* paramField(const QString& name) const;
    QTableWidget* variantsTable() const { return m_variants; }

signals:
    void runRequested(const QStringList& arguments);
    void stopRequested();

private:
    void buildParamForm();
    void validate();
    QString paramValue(int index) const;
    QStringList variantProblems(int row, const WorkloadInfoView& w);
    QString sweepProblem(const WorkloadInfoView& w) const;
    const WorkloadInfoView* current() const;

    std::vector<WorkloadInfoView> m_workloads;
    QComboBox* m_workload = nullptr;
    QLabel* m_description = nullptr;
    QFormLayout* m_paramForm = nullptr;
    QWidget* m_paramBox = nullptr;
    std::vector<QWidget*> m_paramFields;  // QLineEdit or QComboBox, in spec order
    QTableWidget* m_variants = nullptr;
    QListWidget* m_cpus = nullptr;
    QSpinBox* m_reps = nullptr;
    QDoubleSpinBox* m_duration = nullptr;
    QDoubleSpinBox* m_warmup = nullptr;
    QComboBox* m_order = nullptr;
    QLineEdit* m_label = nullptr;
    QLineEdit* m_sweep = nullptr;
    QLabel* m_problemsLabel = nullptr;
    QLabel* m_command = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_stop = nullptr;
    QStringList m_problems;
    bool m_running = false;
};

}  // namespace nf::ui
