#include "ui/pipeline/pipeline_workspace.h"

#include "core/pipelines/pipeline.h"
#include "ui/common/app_settings.h"
#include "ui/common/number_format.h"
#include "ui/pipeline/benchmark_panel.h"
#include "ui/pipeline/dag_graph_view.h"
#include "ui/pipeline/feature_heatmap_view.h"
#include "ui/pipeline/feature_matrix_model.h"
#include "ui/pipeline/pipeline_list_model.h"
#include "ui/pipeline/stage_table_model.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace beamscope::ui {

namespace {
const QString kWorkspaceId = QStringLiteral("pipeline");

QWidget *titled(const QString &title, QWidget *content, QWidget *extra = nullptr)
{
    auto *box = new QWidget;
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(3);
    auto *label = new QLabel(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()));
    if (extra) {
        auto *row = new QHBoxLayout;
        row->addWidget(label);
        row->addStretch();
        row->addWidget(extra);
        layout->addLayout(row);
    } else {
        layout->addWidget(label);
    }
    layout->addWidget(content, 1);
    return box;
}
} // namespace

PipelineWorkspace::PipelineWorkspace(AppSettings &settings, QWidget *parent)
    : Workspace(settings, parent),
      m_pipelines(new PipelineListModel(this)),
      m_stages(new StageTableModel(this)),
      m_features(new FeatureMatrixModel(this))
{
    setObjectName(kWorkspaceId);

    // Left: the app picker and the stage list.
    m_picker = new QTreeView;
    m_picker->setModel(m_pipelines);
    m_picker->setUniformRowHeights(true);
    m_picker->setAlternatingRowColors(true);
    m_picker->header()->setSectionResizeMode(PipelineListModel::NameColumn, QHeaderView::Interactive);
    m_picker->header()->resizeSection(PipelineListModel::NameColumn, 190);
    m_picker->header()->setSectionResizeMode(PipelineListModel::StagesColumn, QHeaderView::ResizeToContents);
    m_stageList = new QTableView;
    m_stageList->setModel(m_stages);
    m_stageList->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_stageList->setSelectionMode(QAbstractItemView::SingleSelection);
    m_stageList->verticalHeader()->hide();
    m_stageList->verticalHeader()->setDefaultSectionSize(QFontMetrics(font()).height() + 4);
    m_stageList->horizontalHeader()->setSectionResizeMode(StageTableModel::StageColumn, QHeaderView::Stretch);
    m_stageList->horizontalHeader()->setSectionResizeMode(StageTableModel::CostModelColumn,
                                                          QHeaderView::ResizeToContents);
    m_stageList->horizontalHeader()->setSectionResizeMode(StageTableModel::DepthColumn, QHeaderView::ResizeToContents);
    m_stageList->setShowGrid(false);
    m_leftSplitter = new QSplitter(Qt::Vertical);
    m_leftSplitter->addWidget(titled(tr("Pipelines"), m_picker));
    m_leftSplitter->addWidget(titled(tr("Stages"), m_stageList));
    m_leftSplitter->setStretchFactor(0, 3);
    m_leftSplitter->setStretchFactor(1, 2);

    // Centre: the graph (with zoom controls and a busy indicator) over the benchmark.
    m_graph = new DagGraphView;
    m_title = new QLabel(tr("Pick a pipeline on the left"));
    m_title->setTextFormat(Qt::RichText);
    m_busyBar = new QProgressBar;
    m_busyBar->setRange(0, 0);
    m_busyBar->setMaximumWidth(120);
    m_busyBar->setMaximumHeight(12);
    m_busyText = new QLabel;
    m_error = new QLabel;
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b42318"));
    m_error->hide();
    auto button = [this](const QString &text, const QString &tip) {
        auto *b = new QToolButton;
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    QToolButton *zoomIn = button(QStringLiteral("+"), tr("Zoom in (or the mouse wheel)"));
    QToolButton *zoomOut = button(QStringLiteral("−"), tr("Zoom out"));
    QToolButton *fit = button(tr("Fit"), tr("Show the whole graph"));
    connect(zoomIn, &QToolButton::clicked, m_graph, [this] { m_graph->zoomBy(1.25); });
    connect(zoomOut, &QToolButton::clicked, m_graph, [this] { m_graph->zoomBy(0.8); });
    connect(fit, &QToolButton::clicked, m_graph, &DagGraphView::fitAll);
    auto *graphBox = new QWidget;
    auto *graphLayout = new QVBoxLayout(graphBox);
    graphLayout->setContentsMargins(4, 4, 4, 4);
    graphLayout->setSpacing(3);
    auto *graphBar = new QHBoxLayout;
    graphBar->addWidget(m_title, 1);
    graphBar->addWidget(m_busyText);
    graphBar->addWidget(m_busyBar);
    graphBar->addWidget(zoomOut);
    graphBar->addWidget(zoomIn);
    graphBar->addWidget(fit);
    graphLayout->addLayout(graphBar);
    graphLayout->addWidget(m_error);
    graphLayout->addWidget(m_graph, 1);
    auto *legend =
        new QLabel(tr("<span style='color:#555'>layers run from the inputs (dashed boxes) to the "
                      "output (orange) · arrows run producer → consumer · dashed arrows: a Func's next update · "
                      "click a stage to see its features · wheel zooms, drag pans</span>"));
    legend->setWordWrap(true);
    graphLayout->addWidget(legend);
    m_bench = new BenchmarkPanel;
    auto *benchBox = new QGroupBox(tr("Benchmark"));
    auto *benchLayout = new QVBoxLayout(benchBox);
    benchLayout->addWidget(m_bench);
    m_centreSplitter = new QSplitter(Qt::Vertical);
    m_centreSplitter->addWidget(graphBox);
    m_centreSplitter->addWidget(benchBox);
    m_centreSplitter->setStretchFactor(0, 4);
    m_centreSplitter->setStretchFactor(1, 1);
    m_centreSplitter->setSizes({700, 200});

    // Right: the selected stage's features and definition.
    m_stageTitle = new QLabel(tr("No stage selected"));
    m_stageTitle->setWordWrap(true);
    m_heatmap = new FeatureHeatmapView(m_features);
    m_definition = new QPlainTextEdit;
    m_definition->setReadOnly(true);
    m_definition->setFont(monospaceFont());
    m_definition->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_definition->setPlaceholderText(tr("The stage's Halide definition"));
    auto *featureBox = new QWidget;
    auto *featureLayout = new QVBoxLayout(featureBox);
    featureLayout->setContentsMargins(4, 4, 4, 4);
    featureLayout->setSpacing(3);
    featureLayout->addWidget(m_stageTitle);
    featureLayout->addWidget(m_heatmap, 1);
    m_rightSplitter = new QSplitter(Qt::Vertical);
    m_rightSplitter->addWidget(featureBox);
    m_rightSplitter->addWidget(titled(tr("Halide definition"), m_definition));
    m_rightSplitter->setStretchFactor(0, 5);
    m_rightSplitter->setStretchFactor(1, 1);

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->addWidget(m_leftSplitter);
    m_splitter->addWidget(m_centreSplitter);
    m_splitter->addWidget(m_rightSplitter);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setStretchFactor(2, 0);
    m_splitter->setSizes({300, 700, 520});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_splitter);

    connect(m_picker->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex &current) {
        const QString name =
            current.siblingAtColumn(PipelineListModel::NameColumn).data(PipelineListModel::NameRole).toString();
        if (!name.isEmpty() && name != m_current)
            showPipeline(name);
    });
    connect(m_stageList->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    selectStage(current.row());
            });
    connect(m_graph, &DagGraphView::stageSelected, this, &PipelineWorkspace::showStage);

    setBusy(false);
}

void PipelineWorkspace::showEvent(QShowEvent *event)
{
    Workspace::showEvent(event);
    listPipelines();
}

void PipelineWorkspace::listPipelines()
{
    // A generator library opened since (Search workspace) registered pipelines: list again.
    if (m_listed && pipelines::userPipelines().size() != m_userPipelinesListed)
        m_listed = false;
    // Lazily: building every registered pipeline's Funcs costs a moment of CPU
    // that a session never opening this workspace should not pay.
    if (m_listed || m_listingJob.pending())
        return;
    m_userPipelinesListed = pipelines::userPipelines().size();
    setBusy(true, tr("listing pipelines…"));
    m_listingJob.start(
        this, [] { return pipelines::listPipelines(); },
        [this](std::vector<pipelines::PipelineListing> listings) {
            m_listed = true;
            m_pipelines->setListings(listings);
            for (int g = 0; g < m_pipelines->rowCount(); ++g)
                m_picker->setFirstColumnSpanned(g, {}, true); // group titles run across the columns
            m_picker->expandAll();
            setBusy(m_summaryJob.pending());
            Q_EMIT pipelinesListed();
            if (!m_pendingPick.isEmpty())
                showPipeline(std::exchange(m_pendingPick, QString()));
        });
}

PipelineWorkspace::~PipelineWorkspace() = default;

void PipelineWorkspace::saveLayout()
{
    settings().setLayoutValue(kWorkspaceId, QStringLiteral("splitter"), m_splitter->saveState());
    settings().setLayoutValue(kWorkspaceId, QStringLiteral("left"), m_leftSplitter->saveState());
    settings().setLayoutValue(kWorkspaceId, QStringLiteral("centre"), m_centreSplitter->saveState());
    settings().setLayoutValue(kWorkspaceId, QStringLiteral("right"), m_rightSplitter->saveState());
}

void PipelineWorkspace::restoreLayout()
{
    m_splitter->restoreState(settings().layoutValue(kWorkspaceId, QStringLiteral("splitter")));
    m_leftSplitter->restoreState(settings().layoutValue(kWorkspaceId, QStringLiteral("left")));
    m_centreSplitter->restoreState(settings().layoutValue(kWorkspaceId, QStringLiteral("centre")));
    m_rightSplitter->restoreState(settings().layoutValue(kWorkspaceId, QStringLiteral("right")));
}

void PipelineWorkspace::setBusy(bool busy, const QString &text)
{
    m_busyBar->setVisible(busy);
    m_busyText->setVisible(busy);
    m_busyText->setText(text);
}

bool PipelineWorkspace::offerSearchState(const SearchStateOffer &offer)
{
    if (!offer.session)
        return false;
    m_bench->setSearchState(offer);
    return showPipeline(offer.app);
}

bool PipelineWorkspace::showPipeline(const QString &name)
{
    if (!m_listed) {
        m_pendingPick = name;
        listPipelines();
        return true;
    }
    const QModelIndex index = m_pipelines->indexOf(name);
    if (!index.isValid())
        return false;
    {
        QSignalBlocker block(m_picker->selectionModel());
        m_picker->setCurrentIndex(index);
    }
    m_current = name;
    m_bench->setPipeline(name, index.data(PipelineListModel::GpuScheduleRole).toBool());
    m_title->setText(tr("<b>%1</b>").arg(name.toHtmlEscaped()));
    m_error->hide();
    setBusy(true, tr("building the DAG of %1…").arg(name));
    m_summaryJob.start(
        this,
        [name] {
            SummaryResult r;
            r.name = name;
            try {
                r.summary = pipelines::summarizePipeline(name.toStdString());
            } catch (const std::exception &e) {
                r.error = QString::fromStdString(e.what());
            }
            return r;
        },
        [this](SummaryResult r) { onSummary(std::move(r)); });
    return true;
}

void PipelineWorkspace::onSummary(SummaryResult result)
{
    setBusy(false);
    m_stage = -1;
    m_features->clear();
    m_definition->clear();
    if (!result.summary) {
        m_summary.reset();
        m_graph->clear();
        m_stages->clear();
        m_error->setText(tr("Could not build the DAG of %1: %2").arg(result.name, result.error));
        m_error->show();
        m_stageTitle->setText(tr("No stage selected"));
        Q_EMIT statusMessage(m_error->text(), 0);
        Q_EMIT pipelineFailed(result.name, result.error);
        return;
    }
    m_summary = std::move(result.summary);
    m_stages->setSummary(*m_summary);
    m_graph->setSummary(*m_summary);
    int inputs = 0;
    for (const auto &s : m_summary->stages)
        inputs += s.isInput ? 1 : 0;
    m_title->setText(tr("<b>%1</b> · %2 stages · %3 · %4 arrows")
                         .arg(result.name.toHtmlEscaped())
                         .arg(static_cast<int>(m_summary->stages.size()) - inputs)
                         .arg(inputs == 1 ? tr("1 input") : tr("%1 inputs").arg(inputs))
                         .arg(m_graph->edgeCount()));
    m_stageTitle->setText(tr("Select a stage in the graph or the list"));
    Q_EMIT statusMessage(tr("%1: %2 stages").arg(result.name).arg(static_cast<int>(m_summary->stages.size()) - inputs),
                         4000);
    Q_EMIT pipelineDisplayed(result.name);
}

void PipelineWorkspace::selectStage(int stage)
{
    m_graph->selectStage(stage); // emits stageSelected -> showStage
}

bool PipelineWorkspace::selectStage(const QString &name)
{
    if (!m_summary)
        return false;
    for (size_t i = 0; i < m_summary->stages.size(); ++i)
        if (QString::fromStdString(m_summary->stages[i].name) == name) {
            selectStage(static_cast<int>(i));
            return true;
        }
    return false;
}

void PipelineWorkspace::showStage(int stage)
{
    m_stage = stage;
    {
        QSignalBlocker block(m_stageList->selectionModel());
        if (stage >= 0) {
            m_stageList->selectionModel()->setCurrentIndex(
                m_stages->index(stage, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_stageList->scrollTo(m_stages->index(stage, 0));
        } else
            m_stageList->clearSelection();
    }
    if (stage < 0 || !m_summary || stage >= static_cast<int>(m_summary->stages.size())) {
        m_features->clear();
        m_definition->clear();
        m_stageTitle->setText(tr("No stage selected"));
        Q_EMIT stageShown(-1);
        return;
    }
    const auto &s = m_summary->stages[static_cast<size_t>(stage)];
    const QString name = QString::fromStdString(s.name);
    m_definition->setPlainText(QString::fromStdString(s.definitionText));
    if (s.isInput) {
        m_features->clear();
        m_stageTitle->setText(
            tr("<b>%1</b> is an input: the cost model has no stage for it").arg(name.toHtmlEscaped()));
    } else {
        m_features->setFeatures(s.features, name);
        int nonZero = 0;
        for (const auto &row : s.features.matrix)
            for (int v : row)
                nonZero += v != 0 ? 1 : 0;
        m_stageTitle->setText(tr("<b>%1</b> · cost-model stage %2 · pipeline features (%3 non-zero of 40 × 7): "
                                 "op histogram, then access patterns")
                                  .arg(name.toHtmlEscaped())
                                  .arg(s.costModelIndex)
                                  .arg(nonZero));
    }
    Q_EMIT stageShown(stage);
}

} // namespace beamscope::ui
