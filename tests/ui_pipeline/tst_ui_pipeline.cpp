// The Pipeline workspace offscreen. Expected values come from core, computed
// here independently of the GUI (FunctionDAG of the same registry entry):
// the graph has a node per stage and an arrow per DAG edge (plus one per
// update chaining a Func's definitions), a selected stage's heatmap model
// holds exactly that stage's PipelineFeatures, a host benchmark of a golden
// pipeline finishes with a median, and Cancel stops a long run.

#include "core/dag/function_dag.h"
#include "core/pipelines/pipeline.h"
#include "core/pipelines/pipeline_summary.h"
#include "core/session/search_session.h"
#include "ui/common/app_settings.h"
#include "ui/pipeline/benchmark_panel.h"
#include "ui/pipeline/dag_graph_view.h"
#include "ui/pipeline/feature_matrix_model.h"
#include "ui/pipeline/pipeline_list_model.h"
#include "ui/pipeline/pipeline_workspace.h"
#include "ui/pipeline/stage_table_model.h"
#include "ui/search/search_tree_data.h"
#include "ui/search/search_workspace.h"
#include "tests/support/test_data.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace beamscope;
using namespace beamscope::ui;

namespace {

constexpr int kDagTimeoutMs = 60000;
// Compiling box_blur and its reference for the host takes a few seconds on a
// quiet machine; the build machine is shared, hence the margin.
constexpr int kBenchTimeoutMs = 240000;

struct CoreCounts {
    int nodes = 0; // stages, inputs included
    int edges = 0; // DAG edges plus update chains
};

CoreCounts coreCounts(const std::string &name)
{
    const auto info = pipelines::findPipeline(name);
    const pipelines::PipelineInstance instance = info->build();
    const dag::FunctionDAG dag(instance.outputs);
    CoreCounts c;
    for (const auto &n : dag.nodes) {
        c.nodes += static_cast<int>(n.stages.size());
        c.edges += static_cast<int>(n.stages.size()) - 1;
    }
    c.edges += static_cast<int>(dag.edges.size());
    return c;
}

} // namespace

class TestUiPipeline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        // Compiled pipelines go to a cache of this run, not the user's.
        QVERIFY(m_cacheDir.isValid());
        qputenv("XDG_CACHE_HOME", m_cacheDir.path().toUtf8());
        m_settings = std::make_unique<AppSettings>();
        m_workspace = std::make_unique<PipelineWorkspace>(*m_settings);
        m_workspace->resize(1400, 900);
        m_listTester = std::make_unique<QAbstractItemModelTester>(
            m_workspace->pipelineModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_stageTester = std::make_unique<QAbstractItemModelTester>(
            m_workspace->stageModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_featureTester = std::make_unique<QAbstractItemModelTester>(
            m_workspace->featureModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy listed(m_workspace.get(), &PipelineWorkspace::pipelinesListed);
        m_workspace->show();
        QTRY_COMPARE_WITH_TIMEOUT(listed.count(), 1, kDagTimeoutMs);
    }

    void pickerListsRegistryByOrigin()
    {
        const auto *model = m_workspace->pipelineModel();
        int children = 0;
        for (int g = 0; g < model->rowCount(); ++g)
            children += model->rowCount(model->index(g, 0));
        QCOMPARE(children, static_cast<int>(pipelines::builtinPipelines().size()));
        for (const auto &info : pipelines::builtinPipelines()) {
            const QModelIndex index = model->indexOf(QString::fromStdString(info.name));
            QVERIFY2(index.isValid(), info.name.c_str());
            // Grouped by origin: every sibling has the same origin.
            const QString group = index.parent().data().toString();
            QVERIFY2(!group.isEmpty(), info.name.c_str());
        }
        // The listed stage count is the cost model's.
        for (const char *name : {"box_blur", "histogram", "matmul"}) {
            const auto info = pipelines::findPipeline(name);
            const dag::FunctionDAG dag(info->build().outputs);
            const QModelIndex index = model->indexOf(QString::fromLatin1(name));
            QCOMPARE(index.data(PipelineListModel::StageCountRole).toInt(),
                     static_cast<int>(dag.costModelStages().size()));
            QCOMPARE(index.siblingAtColumn(PipelineListModel::StagesColumn).data().toString(),
                     QString::number(dag.costModelStages().size()));
        }
        QVERIFY(!m_workspace->showPipeline(QStringLiteral("no_such_pipeline")));
        QCOMPARE(pipelines::displayName("blur_x$12_s0"), std::string("blur_x_s0"));
        QCOMPARE(pipelines::displayName("f$3(x) = (g$1(x) + $2)"), std::string("f(x) = (g(x) + $2)"));
    }

    void graphOfBoxBlur()
    {
        QSignalSpy shown(m_workspace.get(), &PipelineWorkspace::pipelineDisplayed);
        QVERIFY(m_workspace->showPipeline(QStringLiteral("box_blur")));
        QVERIFY(m_workspace->isBusy());
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kDagTimeoutMs);
        QCOMPARE(shown.at(0).at(0).toString(), QStringLiteral("box_blur"));
        const CoreCounts expected = coreCounts("box_blur");
        QCOMPARE(expected.nodes, 3); // input_im, blur_x, output (PIPELINES.md)
        QCOMPARE(expected.edges, 2);
        QCOMPARE(m_workspace->graphView()->nodeCount(), expected.nodes);
        QCOMPARE(m_workspace->graphView()->edgeCount(), expected.edges);
        QCOMPARE(m_workspace->stageModel()->rowCount(), expected.nodes);
        // Layered from inputs to the output: input before blur_x before output.
        const auto &stages = m_workspace->summary()->stages;
        double xInput = 0, xBlur = 0, xOutput = 0;
        const bool vertical = m_workspace->graphView()->isVertical();
        for (size_t i = 0; i < stages.size(); ++i) {
            const QPointF centre = m_workspace->graphView()->nodeCentre(static_cast<int>(i));
            const double x = vertical ? centre.y() : centre.x();
            (stages[i].isInput ? xInput : stages[i].func == "blur_x" ? xBlur : xOutput) = x;
        }
        QVERIFY(xInput < xBlur);
        QVERIFY(xBlur < xOutput);
    }

    void graphWithUpdateDefinitions()
    {
        // histogram: hist has a pure definition and an update.
        QSignalSpy shown(m_workspace.get(), &PipelineWorkspace::pipelineDisplayed);
        QVERIFY(m_workspace->showPipeline(QStringLiteral("histogram")));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kDagTimeoutMs);
        const CoreCounts expected = coreCounts("histogram");
        QCOMPARE(m_workspace->graphView()->nodeCount(), expected.nodes);
        QCOMPARE(m_workspace->graphView()->edgeCount(), expected.edges);
    }

    void selectedStageShowsCoreFeatures()
    {
        QSignalSpy shown(m_workspace.get(), &PipelineWorkspace::pipelineDisplayed);
        QVERIFY(m_workspace->showPipeline(QStringLiteral("box_blur")));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kDagTimeoutMs);

        const auto info = pipelines::findPipeline("box_blur");
        const dag::FunctionDAG dag(info->build().outputs);
        const auto &summary = *m_workspace->summary();
        for (const auto &ref : dag.costModelStages()) {
            const dag::Stage &coreStage = dag.stage(ref);
            // Each build() in this process makes Funcs named "blur_x$N"; the GUI shows "blur_x".
            const QString name = QString::fromStdString(pipelines::displayName(coreStage.name));
            QVERIFY(m_workspace->selectStage(name));
            const FeatureMatrixModel *model = m_workspace->featureModel();
            QCOMPARE(model->stage(), name);
            QCOMPARE(model->rowCount(), dag::kFeatureRows);
            QCOMPARE(model->columnCount(), dag::kScalarTypeCount);
            int nonZero = 0;
            for (int r = 0; r < dag::kFeatureRows; ++r) {
                QCOMPARE(model->headerData(r, Qt::Vertical).toString(), QString::fromStdString(dag::featureRowName(r)));
                for (int t = 0; t < dag::kScalarTypeCount; ++t) {
                    const int expected = coreStage.features.matrix[static_cast<size_t>(r)][static_cast<size_t>(t)];
                    const QModelIndex cell = model->index(r, t);
                    QCOMPARE(cell.data(FeatureMatrixModel::ValueRole).toInt(), expected);
                    QCOMPARE(cell.data().toString(), expected ? QString::number(expected) : QString());
                    nonZero += expected ? 1 : 0;
                }
            }
            QVERIFY(nonZero > 0);
            // The definition as Halide prints it, naming the Func.
            const QString definition = m_workspace->definitionView()->toPlainText();
            QVERIFY2(definition.startsWith(QString::fromStdString(pipelines::displayName(coreStage.node->name)) +
                                           QLatin1Char('(')),
                     qPrintable(definition));
            QVERIFY2(!definition.contains(QLatin1Char('$')), qPrintable(definition));
            QCOMPARE(summary.stages[static_cast<size_t>(m_workspace->selectedStage())].name,
                     pipelines::displayName(coreStage.name));
        }
        for (int t = 0; t < dag::kScalarTypeCount; ++t)
            QCOMPARE(m_workspace->featureModel()->headerData(t, Qt::Horizontal).toString(),
                     QString::fromLatin1(dag::scalarTypeName(t)));
        // Access-pattern groups start at row 24 and every 4 rows after.
        QVERIFY(m_workspace->featureModel()->headerData(24, Qt::Vertical, FeatureMatrixModel::GroupStartRole).toBool());
        QVERIFY(
            !m_workspace->featureModel()->headerData(25, Qt::Vertical, FeatureMatrixModel::GroupStartRole).toBool());
        QVERIFY(m_workspace->featureModel()->headerData(28, Qt::Vertical, FeatureMatrixModel::GroupStartRole).toBool());
    }

    void clickingANodeSelectsItsStage()
    {
        QSignalSpy shown(m_workspace.get(), &PipelineWorkspace::pipelineDisplayed);
        QVERIFY(m_workspace->showPipeline(QStringLiteral("box_blur")));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kDagTimeoutMs);
        DagGraphView *view = m_workspace->graphView();
        const auto &stages = m_workspace->summary()->stages;
        int blurX = -1;
        for (size_t i = 0; i < stages.size(); ++i)
            if (stages[i].name == "blur_x_s0")
                blurX = static_cast<int>(i);
        QVERIFY(blurX >= 0);
        QSignalSpy stageShown(m_workspace.get(), &PipelineWorkspace::stageShown);
        const QPoint at = view->mapFromScene(view->nodeCentre(blurX));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        QTRY_VERIFY(!stageShown.isEmpty());
        QCOMPARE(stageShown.last().at(0).toInt(), blurX);
        QCOMPARE(m_workspace->featureModel()->stage(), QStringLiteral("blur_x_s0"));
        QCOMPARE(m_workspace->stageModel()->index(blurX, 0).data().toString().left(9), QStringLiteral("blur_x_s0"));
    }

    void hostBenchmarkShowsMedian()
    {
        QSignalSpy shown(m_workspace.get(), &PipelineWorkspace::pipelineDisplayed);
        QVERIFY(m_workspace->showPipeline(QStringLiteral("box_blur")));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kDagTimeoutMs);
        BenchmarkPanel *bench = m_workspace->benchmarkPanel();
        QCOMPARE(bench->pipeline(), QStringLiteral("box_blur"));
        bench->setTarget(QStringLiteral("host"));
        bench->setRepetitions(3);
        QSignalSpy finished(bench, &BenchmarkPanel::finished);
        bench->run();
        QCOMPARE(bench->state(), BenchmarkPanel::State::Running);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kBenchTimeoutMs);
        const BenchmarkOutcome &o = bench->lastOutcome();
        QVERIFY2(o.ok, qPrintable(o.failure + QStringLiteral(": ") + o.message));
        QCOMPARE(o.reps, 3);
        QVERIFY(o.medianMs > 0);
        QVERIFY(o.minMs <= o.medianMs);
        QVERIFY(o.checked && o.matches);
        QCOMPARE(bench->state(), BenchmarkPanel::State::Idle);
        const QString text = bench->findChild<QLabel *>(QStringLiteral("benchmarkResult"))->text();
        QVERIFY2(text.contains(QStringLiteral("median")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("matches the host reference")), qPrintable(text));
    }

    void cancelStopsARun()
    {
        BenchmarkPanel *bench = m_workspace->benchmarkPanel();
        QCOMPARE(bench->pipeline(), QStringLiteral("box_blur"));
        bench->setTarget(QStringLiteral("host"));
        // Far more repetitions than the test could wait for: only Cancel ends it.
        bench->setRepetitions(100000);
        QSignalSpy finished(bench, &BenchmarkPanel::finished);
        bench->run();
        QCOMPARE(bench->state(), BenchmarkPanel::State::Running);
        QTest::qWait(1500); // compiled by the previous test: the worker is timing by now
        QVERIFY(finished.isEmpty());
        bench->cancel();
        QCOMPARE(bench->state(), BenchmarkPanel::State::Cancelling);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(bench->lastOutcome().failure, QStringLiteral("cancelled"));
        QVERIFY(!bench->lastOutcome().ok);
        QCOMPARE(bench->state(), BenchmarkPanel::State::Idle);
    }

    // Review P1: the state selected in Search is benchmarked in Pipeline. The Search workspace hands
    // its winner over (a partial state is refused: it has no schedule); the panel times it on OpenCL
    // with the output checked against the host reference, as Search's Measure does.
    void searchStateBenchmarkedInPipeline()
    {
        BEAMSCOPE_REQUIRE_DATA(weightsFile, "weights/anderson2021/bilateral_grid.weights");
        SearchWorkspace search(*m_settings, nullptr);
        session::SearchRequest request;
        request.pipeline.app = "box_blur";
        request.weightsPath = weightsFile.string();
        request.beamSize = 1;
        request.passes = 1;
        QSignalSpy searched(&search, &SearchWorkspace::searchFinished);
        search.startSearch(request);
        QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, kDagTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!search.breakdownPending(), kDagTimeoutMs);
        const SearchTreeData &tree = search.treeData();
        QSignalSpy offered(&search, &Workspace::searchStateForWorkspace);
        const search::TraceNode *partial = nullptr;
        for (const auto &n : tree.nodes())
            if (n.depth < tree.maxDepth())
                partial = &n;
        QVERIFY(partial);
        QVERIFY(!search.benchmarkInPipeline(partial->id));
        QVERIFY(search.benchmarkInPipeline(tree.winner()));
        QCOMPARE(offered.count(), 1);
        QCOMPARE(offered.at(0).at(0).toString(), QStringLiteral("pipeline"));
        const auto offer = offered.at(0).at(1).value<SearchStateOffer>();

        QSignalSpy shown(m_workspace.get(), &PipelineWorkspace::pipelineDisplayed);
        QVERIFY(m_workspace->offerSearchState(offer));
        BenchmarkPanel *bench = m_workspace->benchmarkPanel();
        QCOMPARE(bench->pipeline(), QStringLiteral("box_blur"));
        QVERIFY(bench->hasSearchState());
        QCOMPARE(bench->scheduleChoice(), BenchmarkPanel::SearchState);
        QSignalSpy finished(bench, &BenchmarkPanel::finished);
        bench->run();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kBenchTimeoutMs);
        const BenchmarkOutcome &o = bench->lastOutcome();
        QVERIFY2(o.ok, qPrintable(o.failure + QStringLiteral(": ") + o.message));
        QVERIFY(o.schedule.startsWith(QStringLiteral("Search state #%1").arg(tree.winner())));
        QVERIFY(o.medianMs > 0 && o.minMs <= o.medianMs);
        QVERIFY(o.checked && o.matches);
        QVERIFY(o.target.contains(QStringLiteral("opencl")));
        // Another pipeline shown: the state, of box_blur, is no longer offered.
        QVERIFY(m_workspace->showPipeline(QStringLiteral("matmul")));
        QTRY_VERIFY_WITH_TIMEOUT(!m_workspace->isBusy(), kDagTimeoutMs);
        QVERIFY(!bench->hasSearchState());
        QVERIFY(bench->scheduleChoice() != BenchmarkPanel::SearchState);
    }

    void newerPickSupersedesOlder()
    {
        QSignalSpy shown(m_workspace.get(), &PipelineWorkspace::pipelineDisplayed);
        QVERIFY(m_workspace->showPipeline(QStringLiteral("matmul")));
        QVERIFY(m_workspace->showPipeline(QStringLiteral("box_blur")));
        QTRY_VERIFY_WITH_TIMEOUT(!m_workspace->isBusy(), kDagTimeoutMs);
        QTest::qWait(200);
        QCOMPARE(shown.count(), 1);
        QCOMPARE(shown.at(0).at(0).toString(), QStringLiteral("box_blur"));
        QCOMPARE(m_workspace->currentPipeline(), QStringLiteral("box_blur"));
    }

    void cleanupTestCase()
    {
        m_featureTester.reset();
        m_stageTester.reset();
        m_listTester.reset();
        m_workspace.reset();
    }

private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_cacheDir;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<PipelineWorkspace> m_workspace;
    std::unique_ptr<QAbstractItemModelTester> m_listTester, m_stageTester, m_featureTester;
};

QTEST_MAIN(TestUiPipeline)
#include "tst_ui_pipeline.moc"
