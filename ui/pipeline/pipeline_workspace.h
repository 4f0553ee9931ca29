#pragma once
// The Pipeline workspace: pick a registered pipeline (apps, golden pipelines),
// see its stages as a graph, select a stage to read its 40 x 7 pipeline
// features as a heatmap and its Halide definition, and time the pipeline on a
// target. Listing the registry and building a pipeline's FunctionDAG run on
// the thread pool (LatestJob: a newer pick supersedes an older one); the
// benchmark runs in BenchmarkPanel.

#include "core/pipelines/pipeline_summary.h"
#include "ui/common/latest_job.h"
#include "ui/mainwindow/workspace.h"

#include <optional>
#include <utility>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QSplitter;
class QTableView;
class QTreeView;

namespace beamscope::ui {

class BenchmarkPanel;
class DagGraphView;
class FeatureHeatmapView;
class FeatureMatrixModel;
class PipelineListModel;
class StageTableModel;

class PipelineWorkspace : public Workspace {
    Q_OBJECT
public:
    PipelineWorkspace(AppSettings &settings, QWidget *parent = nullptr);
    ~PipelineWorkspace() override;

    void saveLayout() override;
    void restoreLayout() override;

    // A Search state to benchmark: its pipeline is shown and the state becomes the benchmark's schedule.
    bool offerSearchState(const SearchStateOffer &offer) override;

    // Shows a registered pipeline (the DAG is built in the background);
    // false when the name is unknown (once the registry is listed).
    bool showPipeline(const QString &name);
    // Selects a stage by its index in summary()->stages, or by name ("blur_x_s0").
    void selectStage(int stage);
    bool selectStage(const QString &name);

    // Lists the registry in the background (done on first show, or first showPipeline).
    void listPipelines();
    bool isListed() const { return m_listed; }
    bool isBusy() const { return m_summaryJob.pending() || m_listingJob.pending(); }
    const std::optional<pipelines::PipelineSummary> &summary() const { return m_summary; }
    QString currentPipeline() const { return m_current; }
    int selectedStage() const { return m_stage; }

    PipelineListModel *pipelineModel() const { return m_pipelines; }
    StageTableModel *stageModel() const { return m_stages; }
    FeatureMatrixModel *featureModel() const { return m_features; }
    DagGraphView *graphView() const { return m_graph; }
    BenchmarkPanel *benchmarkPanel() const { return m_bench; }
    QPlainTextEdit *definitionView() const { return m_definition; }
    QLabel *errorLabel() const { return m_error; }

Q_SIGNALS:
    void pipelinesListed();
    void pipelineDisplayed(const QString &name);
    void pipelineFailed(const QString &name, const QString &error);
    void stageShown(int stage);

protected:
    void showEvent(QShowEvent *event) override;

private:
    struct SummaryResult {
        QString name;
        std::optional<pipelines::PipelineSummary> summary;
        QString error;
    };
    void onSummary(SummaryResult result);
    void showStage(int stage);
    void setBusy(bool busy, const QString &text = {});

    PipelineListModel *m_pipelines = nullptr;
    StageTableModel *m_stages = nullptr;
    FeatureMatrixModel *m_features = nullptr;
    QTreeView *m_picker = nullptr;
    QTableView *m_stageList = nullptr;
    DagGraphView *m_graph = nullptr;
    FeatureHeatmapView *m_heatmap = nullptr;
    QPlainTextEdit *m_definition = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_stageTitle = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_busyText = nullptr;
    QProgressBar *m_busyBar = nullptr;
    BenchmarkPanel *m_bench = nullptr;
    QSplitter *m_splitter = nullptr;
    QSplitter *m_leftSplitter = nullptr;
    QSplitter *m_centreSplitter = nullptr;
    QSplitter *m_rightSplitter = nullptr;

    LatestJob m_listingJob;
    LatestJob m_summaryJob;
    bool m_listed = false;
    size_t m_userPipelinesListed = 0; // pipelines::userPipelines() when the list was made
    QString m_pendingPick;            // asked for before the registry was listed
    QString m_current;
    std::optional<pipelines::PipelineSummary> m_summary;
    int m_stage = -1;
};

} // namespace beamscope::ui
