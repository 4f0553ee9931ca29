#pragma once
// The Predictions workspace: what one or two weights files predict for a set
// of measured samples. Scatter of predicted cost against measured runtime
// (log-log, a series per pipeline) per weights file side by side, the
// per-pipeline rank-correlation table and the samples that were skipped, with
// their reasons. Evaluation (predictSamples, the same core calls as
// `beamscope-cli predict`) runs on a worker thread; a newer request cancels
// and supersedes an older one (generation counter, QPointer guard).

#include "ui/mainwindow/workspace.h"
#include "ui/predictions/prediction_job.h"

#include <QTimer>

#include <memory>
#include <optional>

class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QTableView;
class QTreeWidget;

namespace beamscope::ui {

class SampleFolderList;

class PredictionScatter;
class RankTableModel;
class RelayProgress;
class WeightsComboBox;

class PredictionsWorkspace : public Workspace {
    Q_OBJECT
public:
    PredictionsWorkspace(AppSettings &settings, QWidget *parent = nullptr);
    ~PredictionsWorkspace() override;

    void saveLayout() override;
    void restoreLayout() override;

    void addSampleFolder(const QString &folder);
    bool offerSampleFolder(const QString &folder) override
    {
        addSampleFolder(folder);
        return true;
    }
    QStringList sampleFolders() const;
    void setWeights(const QString &path);
    // Second file for a side-by-side comparison ("" turns the comparison off).
    void setComparisonWeights(const QString &path);
    void setNumCores(int cores);
    QStringList weightsFiles() const; // what an evaluation uses now

    void evaluate(); // starts now (normally changes start one after a short pause)
    bool isEvaluating() const { return m_running; }
    // Nothing running, waiting to run, or still scanning the library.
    bool isIdle() const;

    const std::optional<PredictionResult> &result() const { return m_result; }
    PredictionScatter *scatter(int k) const { return k == 0 ? m_scatterA : m_scatterB; }
    RankTableModel *rankModel() const { return m_rankModel; }
    QTreeWidget *skippedList() const { return m_skipped; }
    WeightsComboBox *weightsBox(int k) const { return k == 0 ? m_weightsA : m_weightsB; }
    QCheckBox *compareBox() const { return m_compare; }
    QTabWidget *tabs() const { return m_tabs; }
    QLabel *statusLabel() const { return m_status; }

Q_SIGNALS:
    void evaluated();

private:
    QWidget *buildForm();
    QWidget *buildResults();
    void scheduleEvaluation();
    void onFinished(const PredictionResult &result);

    quint64 m_generation = 0;
    std::shared_ptr<RelayProgress> m_relay;
    bool m_running = false;
    std::optional<PredictionResult> m_result;
    QTimer m_debounce;

    SampleFolderList *m_folders = nullptr;
    WeightsComboBox *m_weightsA = nullptr;
    WeightsComboBox *m_weightsB = nullptr;
    QCheckBox *m_compare = nullptr;
    QSpinBox *m_cores = nullptr;
    QPushButton *m_evaluate = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    PredictionScatter *m_scatterA = nullptr;
    PredictionScatter *m_scatterB = nullptr;
    RankTableModel *m_rankModel = nullptr;
    QTableView *m_rankView = nullptr;
    QTreeWidget *m_skipped = nullptr;
    QTabWidget *m_tabs = nullptr;
    QSplitter *m_splitter = nullptr;
    QSplitter *m_resultsSplitter = nullptr;
    QSplitter *m_charts = nullptr;
};

} // namespace beamscope::ui
