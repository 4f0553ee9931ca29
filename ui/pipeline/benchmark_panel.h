#pragma once
// Time the chosen pipeline on a target (host / opencl / cuda) with a schedule
// (Halide's default, the pipeline's hand-written GPU schedule, or a state the
// Search workspace handed over, measured as Search's Measure does): compile and
// measure through core/bench on a worker thread (the generated code itself
// runs in beamscope-bench-worker), progress as it goes, Cancel at any time.
// The result shows min / median, the correctness verdict against the host
// reference, or the failed-measurement record's reason.

#include "ui/mainwindow/workspace.h"

#include <QPointer>
#include <QString>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace beamscope::ui {

class RelayProgress;

// A measurement as the panel shows it (plain Qt data: the core record holds Halide types).
struct BenchmarkOutcome {
    bool ok = false;
    QString failure; // core's failureName(), empty when ok
    QString message; // the failure's reason, in words
    QString pipeline, schedule, target;
    int reps = 0;
    double minMs = 0, medianMs = 0;
    bool checked = false, matches = false;
    double mismatches = 0, values = 0, maxAbsError = 0;
    double compileSeconds = 0;
    bool cacheHit = false;
    QString note; // e.g. "OpenCL on PoCL's CPU device"
};

class BenchmarkPanel : public QWidget {
    Q_OBJECT
public:
    enum class State { Idle, Running, Cancelling };

    explicit BenchmarkPanel(QWidget *parent = nullptr);
    ~BenchmarkPanel() override;

    // The registry name of the pipeline to measure; hasGpuSchedule enables that choice.
    void setPipeline(const QString &name, bool hasGpuSchedule);
    const QString &pipeline() const { return m_pipeline; }

    // Settings (also what the controls show).
    void setTarget(const QString &target); // "host", "opencl", "cuda"
    void setGpuSchedule(bool gpu);
    // A Search state of this pipeline becomes the schedule to time (OpenCL or CUDA: the search's
    // schedules are GPU schedules); it stays a choice until another pipeline is shown.
    void setSearchState(const SearchStateOffer &offer);
    bool hasSearchState() const { return m_searchState.session != nullptr; }
    enum ScheduleChoice { Unscheduled, HandWrittenGpu, SearchState };
    ScheduleChoice scheduleChoice() const;
    void setRepetitions(int reps);

    State state() const { return m_state; }
    const BenchmarkOutcome &lastOutcome() const { return m_outcome; }
    bool hasOutcome() const { return m_hasOutcome; }
    QString resultText() const;

public Q_SLOTS:
    void run();
    void cancel();

Q_SIGNALS:
    void started();
    void progressed(double fraction, const QString &message);
    void finished(const beamscope::ui::BenchmarkOutcome &outcome);

private:
    void setState(State state);
    void updateControls();
    void deliver(const BenchmarkOutcome &outcome);

    QString m_pipeline;
    bool m_hasGpuSchedule = false;
    SearchStateOffer m_searchState;
    QComboBox *m_target = nullptr;
    QComboBox *m_schedule = nullptr;
    QSpinBox *m_reps = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_cancel = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_result = nullptr;

    State m_state = State::Idle;
    quint64 m_generation = 0;
    std::shared_ptr<RelayProgress> m_job;
    BenchmarkOutcome m_outcome;
    bool m_hasOutcome = false;
};

} // namespace beamscope::ui

Q_DECLARE_METATYPE(beamscope::ui::BenchmarkOutcome)
