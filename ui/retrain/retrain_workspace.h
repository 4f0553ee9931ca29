#pragma once
// The Retrain workspace: train the cost model on measured .sample folders from
// the explorer. Settings on the left (sample folders, initial weights, held-out
// app, epochs, learning rate, seed, num_cores, output); on the right a progress
// bar with ETA, live loss and ranking charts and the per-epoch table. The run
// is runRetrain() (retrain_job.h, the same core calls as `beamscope-cli
// retrain`) on a worker thread; reports come back through queued calls that a
// generation counter and a QPointer guard, so a stale run never lands here.

#include "core/samples/epoch_record.h"
#include "ui/common/batched_inbox.h"
#include "ui/common/latest_job.h"
#include "ui/mainwindow/workspace.h"
#include "ui/retrain/retrain_job.h"

#include <QElapsedTimer>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTableView;

class QTimer;

namespace beamscope::ui {

class SampleFolderList;

class EpochChart;
class EpochTableModel;
class RelayProgress;
class WeightsComboBox;

class RetrainWorkspace : public Workspace {
    Q_OBJECT
public:
    RetrainWorkspace(AppSettings &settings, QWidget *parent = nullptr);
    ~RetrainWorkspace() override;

    // A folder holding .sample files joins the sample list.
    bool canOpen(const QString &path) const override;
    void open(const QString &path) override;
    void saveLayout() override;
    void restoreLayout() override;

    // The form, for tests and the command line.
    void addSampleFolder(const QString &folder);
    bool offerSampleFolder(const QString &folder) override
    {
        addSampleFolder(folder);
        return true;
    }
    void removeSampleFolder(const QString &folder);
    QStringList sampleFolders() const;
    void setInitialWeights(const QString &path);
    void setRandomInitialWeights();
    void setHoldOutApp(const QString &app); // "" = none
    QStringList availableApps() const;
    void setEpochs(int epochs);
    void setLearningRate(double rate);
    void setSeed(int seed);
    void setNumCores(int cores);
    void setOutput(const QString &path);
    QString output() const;
    // The request the form describes now (what Start runs).
    RetrainRequest request() const;

    void start();  // asks before replacing an existing output, and what to do with an earlier run's checkpoint
    void cancel(); // stops at the next batch; the checkpoint keeps finished epochs
    void resume(); // continues a cancelled run from its checkpoint
    bool isRunning() const { return m_running; }
    bool canResume() const;

    QProgressBar *progressBar() const { return m_progress; }
    EpochChart *lossChart() const { return m_lossChart; }
    EpochChart *rankChart() const { return m_rankChart; }
    EpochTableModel *epochModel() const { return m_epochModel; }
    QCheckBox *logScaleBox() const { return m_logScale; }
    WeightsComboBox *initialWeightsBox() const { return m_initial; }
    QPushButton *startButton() const { return m_start; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *resumeButton() const { return m_resume; }
    QLabel *statusLabel() const { return m_status; }
    const std::optional<RetrainOutcome> &lastOutcome() const { return m_outcome; }
    bool foldersPending() const { return m_foldersJob.pending(); }

Q_SIGNALS:
    void runStarted();
    void epochFinished(int epoch);
    // Emitted once per run: ok, cancelled, or failed (outcome says which).
    void runFinished();
    void weightsTrained(const QString &path);
    void foldersSummarized();

private:
    QWidget *buildForm();
    QWidget *buildResults();
    void launch(RetrainRequest request);
    void onReport(double fraction, const QString &message);
    // Draws the epochs the worker finished since the last call (a timer's, a
    // few times a second, and once more at the end).
    void drainEpochs();
    void onFinished(const RetrainOutcome &outcome);
    void updateFolders();
    void updateButtons();
    void chooseOutput();
    QString defaultOutput() const;

    LatestJob m_foldersJob;
    quint64 m_generation = 0;
    std::shared_ptr<RelayProgress> m_relay;
    std::shared_ptr<BatchedInbox<samples::EpochRecord>> m_epochInbox;
    QTimer *m_drainTimer = nullptr;
    static constexpr int kDrawIntervalMs = 200; // charts and table follow a run 5 times a second
    bool m_running = false;
    bool m_outputEdited = false;
    QElapsedTimer m_clock;
    double m_trainingStartFraction = -1;
    qint64 m_trainingStartMs = 0;
    std::optional<RetrainOutcome> m_outcome;
    std::optional<RetrainRequest> m_cancelledRequest;

    SampleFolderList *m_folders = nullptr;
    QLabel *m_foldersNote = nullptr;
    WeightsComboBox *m_initial = nullptr;
    QComboBox *m_holdOut = nullptr;
    QCheckBox *m_partition = nullptr;
    QSpinBox *m_epochs = nullptr;
    QDoubleSpinBox *m_rate = nullptr;
    QSpinBox *m_seed = nullptr;
    QSpinBox *m_cores = nullptr;
    QLineEdit *m_output = nullptr;
    QPushButton *m_start = nullptr;
    QPushButton *m_cancel = nullptr;
    QPushButton *m_resume = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    QCheckBox *m_logScale = nullptr;
    EpochChart *m_lossChart = nullptr;
    EpochChart *m_rankChart = nullptr;
    EpochTableModel *m_epochModel = nullptr;
    QTableView *m_epochView = nullptr;
    QSplitter *m_splitter = nullptr;
    QSplitter *m_resultsSplitter = nullptr;
};

} // namespace beamscope::ui
