#pragma once
// The Autotune workspace: Halide's autotune loop from the explorer. The form
// on the left asks what `beamscope-cli autotune` asks (output folder,
// pipelines, random pipelines, weights, target, batches, batch size, sample-0
// beam, jobs, scale, retrain); on the right: progress, live counts by status,
// the runtime distribution per pipeline, each pipeline's best runtime against
// the batch, and the failures with their messages. "Compare weights", "Open
// in Predictions" and "Retrain on these" hand the folder to the Device,
// Predictions and Retrain workspaces.
//
// The run is autotune::runAutotune(request) (the CLI's own call) on a worker
// thread; records come back through queued calls guarded by a generation
// counter and a QPointer. Cancel stops at the next schedule; Start on the same
// folder resumes. Opening an autotune folder (File > Open, drag and drop)
// shows its records. With "Submit to Slurm", Start submits the run as job
// arrays (core/autotune/slurm.h, as `autotune --slurm`); a submitted folder
// shows its tasks and merged records every few seconds, and Cancel cancels
// its jobs.

#include "core/autotune/autotune_request.h"
#include "core/util/slurm_commands.h"
#include "ui/autotune/autotune_run_data.h"
#include "ui/common/latest_job.h"
#include "ui/mainwindow/workspace.h"

#include <QElapsedTimer>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QSpinBox;
class QSplitter;
class QTableView;
class QTimer;

namespace beamscope::ui {

class AutotuneFailuresModel;
class BatchLearningPanel;
class BestSoFarChart;
class RelayProgress;
class RuntimeDistributionChart;
class WeightsComboBox;

class AutotuneWorkspace : public Workspace {
    Q_OBJECT
public:
    AutotuneWorkspace(AppSettings &settings, QWidget *parent = nullptr);
    ~AutotuneWorkspace() override;

    // A folder an autotune run wrote (its manifest.json says so).
    bool canOpen(const QString &path) const override;
    int openSpecificity(const QString &path) const override { return canOpen(path) ? 2 : 0; }
    void open(const QString &path) override;
    void saveLayout() override;
    void restoreLayout() override;

    // The form, for tests and the command line.
    void setOutputFolder(const QString &folder);
    QString outputFolder() const;
    void setApps(const QStringList &apps); // checks exactly these
    QStringList apps() const;
    void setRandomPipelines(int count);
    void setTarget(const QString &target); // "opencl" or "cuda"
    void setBatches(int batches);
    void setBatchSize(int size);
    void setFirstBeam(int beam);
    void setJobs(int jobs);
    void setScale(double scale);
    void setRetrain(bool retrain);
    void setWeights(const QString &path);
    void setSeed(quint64 seed);
    void setReps(int reps);
    // Every setting of the form from a request (what opening a run folder does with its manifest).
    void setRequest(const autotune::AutotuneRequest &request);
    autotune::AutotuneRequest request() const;
    // Where the form differs from the run in the output folder, in the form's words
    // ("Seed: the run used 7, the form says 0"); empty when it matches or the folder holds no run.
    QStringList differencesFromRun() const;
    // The form's label of a manifest parameter ("benchmark_reps" -> "Benchmark reps").
    static QString settingLabel(const std::string &key);

    // Slurm (docs/slurm.md): Start submits instead of running here; a run
    // folder that was submitted shows its tasks (refreshed every few seconds)
    // and Cancel cancels its jobs.
    void setSlurm(bool submit, const SlurmOptions &options = {});
    bool isSlurmRun() const { return m_slurmRun; }
    void refreshSlurmStatus();
    QLabel *slurmLabel() const { return m_slurmStatus; }

    void start();
    void cancel();
    bool isRunning() const { return m_running; }
    // "12 of 20 schedules · about 1:05 left" while a run is going.
    QString progressText() const;
    const std::optional<autotune::AutotuneResult> &lastResult() const { return m_result; }
    const AutotuneRunData &runData() const { return m_data; }
    AutotuneFailuresModel *failuresModel() const { return m_failures; }
    QLabel *countsLabel() const { return m_counts; }
    QLabel *statusLabel() const { return m_status; }
    RuntimeDistributionChart *distributionChart() const { return m_distribution; }
    BestSoFarChart *bestChart() const { return m_best; }
    BatchLearningPanel *batchPanel() const { return m_batchPanel; }
    QTabWidget *chartPages() const { return m_chartPages; }
    QPushButton *startButton() const { return m_start; }
    QPushButton *cancelButton() const { return m_cancel; }

Q_SIGNALS:
    void slurmStatusUpdated();
    void runStarted();
    void recordAdded(int index);
    void runFinished(bool ok);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void refreshPipelineList();
    QWidget *buildForm();
    QWidget *buildResults();
    void chooseFolder();
    void onRecord(const samples::ScheduleRecord &record);
    void onFinished(const autotune::AutotuneResult &result);
    void refreshViews();
    void updateButtons();
    QString timeLabel() const;
    void submitToSlurm();
    void showSlurmFolder();

    QSplitter *m_splitter = nullptr;
    QLineEdit *m_folder = nullptr;
    QListWidget *m_apps = nullptr;
    QSpinBox *m_random = nullptr;
    WeightsComboBox *m_weights = nullptr;
    QComboBox *m_target = nullptr;
    QSpinBox *m_batches = nullptr, *m_batchSize = nullptr, *m_firstBeam = nullptr, *m_jobs = nullptr;
    QDoubleSpinBox *m_scale = nullptr;
    QCheckBox *m_retrain = nullptr;
    QLineEdit *m_seed = nullptr; // 64 bits: more than a QSpinBox holds
    QSpinBox *m_reps = nullptr, *m_warmup = nullptr, *m_dropout = nullptr, *m_epochs = nullptr, *m_minBatch = nullptr;
    QDoubleSpinBox *m_learningRate = nullptr;
    QCheckBox *m_randomizeTilings = nullptr, *m_freeze = nullptr;
    QString m_profile; // the run's search profile, kept from its manifest (the form has no control for it)
    QLabel *m_weightsNote = nullptr;
    QCheckBox *m_slurm = nullptr;
    QSpinBox *m_slurmTasks = nullptr, *m_slurmGpus = nullptr;
    QLineEdit *m_slurmPartition = nullptr;
    QLabel *m_slurmStatus = nullptr;
    QTimer *m_slurmTimer = nullptr;
    LatestJob m_slurmJob;
    bool m_slurmRun = false;
    SlurmOptions m_slurmExtra; // what the form does not show (account, time, sbatch args), from setSlurm
    QPushButton *m_start = nullptr, *m_cancel = nullptr, *m_openPredictions = nullptr, *m_openRetrain = nullptr,
                *m_openDevice = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr, *m_counts = nullptr;
    RuntimeDistributionChart *m_distribution = nullptr;
    BestSoFarChart *m_best = nullptr;
    BatchLearningPanel *m_batchPanel = nullptr;
    QTabWidget *m_chartPages = nullptr;
    QTableView *m_failuresView = nullptr;
    AutotuneFailuresModel *m_failures = nullptr;

    AutotuneRunData m_data;
    std::optional<autotune::AutotuneResult> m_result;
    std::shared_ptr<RelayProgress> m_relay;
    quint64 m_generation = 0;
    bool m_running = false;
    // Progress in schedules: the run's total, those already finished when it started, and its clock (for the ETA).
    int m_schedulesTotal = 0;
    int m_schedulesAtStart = 0;
    QElapsedTimer m_clock;
    QString m_loadedTarget; // "opencl" / "cuda" of the run shown
};

} // namespace beamscope::ui
