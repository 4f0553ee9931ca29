// The Search workspace offscreen. Trace tests use the checked-in fixture
// (tests/fixtures/search/box_blur_beam4.jsonl, made by
// `beamscope-cli autoschedule --app box_blur --weights baseline.weights --beam 4 --trace FILE`);
// live searches use Halide-style random weights made here (seeded), so they
// are quick; the cost terms of the fixture use the shipped baseline.weights.

#include "core/samples/rank_metrics.h"
#include "core/samples/training_loop.h"
#include "core/session/search_session.h"
#include "core/search/search_trace.h"
#include "core/util/atomic_file.h"
#include "core/util/json.h"
#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"
#include "tests/support/test_data.h"
#include "ui/common/app_settings.h"
#include "ui/common/chart_export.h"
#include "ui/common/export_menus.h"
#include "ui/common/table_export.h"
#include "ui/search/feature_table_model.h"
#include "ui/search/final_beam_model.h"
#include "ui/search/final_beam_panel.h"
#include "ui/search/search_tree_data.h"
#include "ui/search/search_tree_view.h"
#include "ui/search/search_workspace.h"
#include "ui/search/stage_cost_model.h"
#include "ui/search/state_detail_panel.h"

#include <QSet>
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChartView>
#include <QCheckBox>
#include <QScatterSeries>
#include <QContextMenuEvent>
#include <QImage>
#include <QMenu>
#include <QTimer>
#include <QClipboard>
#include <QGuiApplication>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

using namespace beamscope;
using namespace beamscope::ui;

namespace {

std::filesystem::path fixturePath() { return test::sourceDir() / "tests/fixtures/search/box_blur_beam4.jsonl"; }

search::SearchTrace readFixture()
{
    std::string error;
    auto t = search::SearchTrace::read(fixturePath(), &error);
    if (!t)
        qFatal("fixture: %s", error.c_str());
    return std::move(*t);
}

} // namespace

class TestUiSearch : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void loadTraceCountsByPassAndDepth();
    void selectWinnerShowsDetails();
    void breakdownSumsToStageCosts();
    void compareTwoStates();
    void pathToWinnerFilter();
    void searchByFuncName();
    void navigateByKeysAndGoTo();
    void filterByDecisionTextHidesTheRest();
    void finalBeamListsTheLastBeam();
    void tablesAndChartsExport();
    void badTraceChangesNothing();
    void exportScheduleSource();
    void measureWinnerOnOpenCl();
    void measureTheFinalBeam();
    void liveSearchGrowsAndFinishes();
    void inputStepsAreOneLineOfThePath();
    void cancelStopsTheSearch();
    void staleSearchNeverPaints();
    void continueFromSelectedState();
    void loopNestSavedAndOpened();
    void openedTraceRestoresItsWeights();
    void replayedStatesEqualTheSearchsOwn();
    void prunedAndCompleteStatesCompared();
    void compareExplainsOnRealApps_data();
    void compareExplainsOnRealApps();
    void missingTraceWeightsAreRefused();
    void paintTimeOf200kStates();
    void shippedWeightsSayWhatTheyAre();
    void cleanupTestCase();

private:
    SearchWorkspace *openFixture();
    // A quick live search: box_blur with the random weights made in initTestCase.
    session::SearchRequest randomBoxBlur(int beam, int passes) const;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<SearchWorkspace> m_ws;
    QString m_randomWeights;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> m_testers;
};

void TestUiSearch::initTestCase()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir->path());
    m_settings = std::make_unique<AppSettings>();
    m_settings->setRememberLayout(false);
    m_ws = std::make_unique<SearchWorkspace>(*m_settings, nullptr);
    m_ws->resize(1500, 900);
    m_ws->show();
    // Every item model of the workspace runs under the tester for the whole run.
    for (QAbstractItemModel *m : {static_cast<QAbstractItemModel *>(m_ws->detailPanel()->featureModel()),
                                  static_cast<QAbstractItemModel *>(m_ws->detailPanel()->stageCostModel())})
        m_testers.push_back(
            std::make_unique<QAbstractItemModelTester>(m, QAbstractItemModelTester::FailureReportingMode::QtTest));

    const std::filesystem::path w = std::filesystem::path(m_dir->path().toStdString()) / "random.weights";
    const auto saved = weights::saveWeightsFile(samples::randomWeights(7), w, Overwrite::Replace);
    QVERIFY2(saved.ok, saved.error.c_str());
    m_randomWeights = QString::fromStdString(w.string());
}

void TestUiSearch::cleanupTestCase()
{
    m_ws->cancelSearch();
    m_testers.clear();
    m_ws.reset();
}

session::SearchRequest TestUiSearch::randomBoxBlur(int beam, int passes) const
{
    session::SearchRequest o;
    o.pipeline.app = "box_blur";
    o.weightsPath = m_randomWeights.toStdString();
    o.beamSize = beam;
    o.passes = passes;
    return o;
}

SearchWorkspace *TestUiSearch::openFixture()
{
    QSignalSpy loaded(m_ws.get(), &SearchWorkspace::traceLoaded);
    m_ws->openTrace(QString::fromStdString(fixturePath().string()));
    if (!loaded.wait(20000))
        return nullptr;
    return m_ws.get();
}

void TestUiSearch::loadTraceCountsByPassAndDepth()
{
    const search::SearchTrace trace = readFixture();
    // Drops and File > Open reach the workspace through canOpen: traces yes, weights no.
    QVERIFY(m_ws->canOpen(QString::fromStdString(fixturePath().string())));
    QVERIFY(!m_ws->canOpen(m_randomWeights));
    QVERIFY(!m_ws->fileActions().isEmpty());
    QVERIFY(openFixture());
    const SearchTreeData &d = m_ws->treeData();
    QCOMPARE(d.nodes().size(), trace.nodes().size());
    QCOMPARE(d.pipeline(), QStringLiteral("box_blur"));
    std::map<std::pair<int, int>, int> count, beam;
    int maxPass = 0, maxDepth = 0;
    for (const auto &n : trace.nodes()) {
        count[{n.pass, n.depth}]++;
        beam[{n.pass, n.depth}] += n.inBeam ? 1 : 0;
        maxPass = std::max(maxPass, n.pass);
        maxDepth = std::max(maxDepth, n.depth);
    }
    QCOMPARE(d.passCount(), maxPass + 1);
    QCOMPARE(d.maxDepth(), maxDepth);
    for (const auto &[key, c] : count) {
        QCOMPARE(d.countAt(key.first, key.second), c);
        QCOMPARE(d.beamCountAt(key.first, key.second), beam[key]);
        QVERIFY(beam[key] <= 4); // beam 4
    }
    QCOMPARE(d.countAt(maxPass + 1, 1), 0);
    QCOMPARE(d.winner(), trace.summary.bestId);
    QVERIFY(m_ws->countsLabel()->text().contains(QString::number(trace.nodes().size())));
    // The layout is the hit-test index: every node is found at its own position.
    for (const auto &n : trace.nodes())
        QCOMPARE(d.hitTest(d.position(n.id), 0.5), n.id);
}

void TestUiSearch::selectWinnerShowsDetails()
{
    const search::SearchTrace trace = readFixture();
    QVERIFY(openFixture());
    const auto *winner = trace.find(trace.summary.bestId);
    QVERIFY(winner && !winner->features.empty());
    StateDetailPanel *panel = m_ws->detailPanel();
    m_ws->selectState(winner->id);
    QCOMPARE(panel->stateA(), winner->id);
    // Decision path: one entry per depth, root first, ending at the winner.
    QCOMPARE(panel->pathList()->count(), winner->depth);
    QCOMPARE(panel->pathList()->item(panel->pathList()->count() - 1)->data(Qt::UserRole).toLongLong(), winner->id);
    QVERIFY(panel->loopNestText().contains(QStringLiteral("gpu_block")));
    QVERIFY(panel->loopNestText().contains(QStringLiteral("realize:")));
    // The features table holds this state's 73 values of each stage.
    FeatureTableModel *m = panel->featureModel();
    for (int stage = 0; stage < int(winner->features.size()); ++stage) {
        panel->setStage(stage);
        QCOMPARE(m->rowCount(), 73);
        QCOMPARE(m->columnCount(), 3);
        for (int i = 0; i < 73; ++i) {
            const double raw = winner->features[size_t(stage)][size_t(i)];
            QCOMPARE(m->index(i, FeatureTableModel::RawA).data(Qt::UserRole).toDouble(), raw);
            QCOMPARE(m->index(i, FeatureTableModel::LogA).data(Qt::UserRole).toDouble(), std::log1p(raw));
        }
        QCOMPARE(m->index(0, FeatureTableModel::Name).data().toString(), QStringLiteral("num_realizations"));
        QCOMPARE(m->index(72, FeatureTableModel::Name).data().toString(), QStringLiteral("expr_branching"));
    }
    // The stage cost table holds the recorded per-stage predictions.
    StageCostModel *c = panel->stageCostModel();
    QCOMPARE(c->rowCount(), int(winner->stageCosts.size()));
    for (int s = 0; s < c->rowCount(); ++s)
        QCOMPARE(c->index(s, StageCostModel::CostA).data(Qt::UserRole).toDouble(),
                 double(winner->stageCosts[size_t(s)]));
    QVERIFY(panel->summaryText().contains(QStringLiteral("winner")));
    // Copy puts the loop nest as shown (Funcs named as everywhere) on the clipboard.
    QGuiApplication::clipboard()->clear();
    panel->copyLoopNestButton()->click();
    const QString copied = QGuiApplication::clipboard()->text();
    QCOMPARE(copied, QString::fromStdString(m_ws->treeData().funcNames().rewrite(winner->loopNest)));
    QVERIFY(copied.contains(QStringLiteral("gpu_block")));
}

void TestUiSearch::breakdownSumsToStageCosts()
{
    BEAMSCOPE_REQUIRE_DATA(baseline, "weights/anderson2021/baseline.weights");
    QTRY_VERIFY_WITH_TIMEOUT(!m_ws->weightsScanPending(), 30000);
    m_ws->setWeightsPath(QString::fromStdString(baseline.string()));
    QVERIFY(!m_ws->optionsFromControls().weightsPath.empty());
    const search::SearchTrace trace = readFixture();
    QSignalSpy ready(m_ws.get(), &SearchWorkspace::breakdownReady);
    QVERIFY(openFixture());
    QTRY_VERIFY_WITH_TIMEOUT(!m_ws->breakdownPending(), 60000);
    const auto *winner = trace.find(trace.summary.bestId);
    m_ws->selectState(winner->id);
    StageCostModel *costs = m_ws->detailPanel()->stageCostModel();
    QVERIFY2(costs->segmentScale() > 0, "no cost terms (the fixture was made with baseline.weights)");
    QVERIFY(!costs->segmentNames().isEmpty());
    const size_t stages = winner->stageCosts.size();
    QCOMPARE(costs->rowCount(), int(stages));
    for (size_t s = 0; s < stages; ++s) {
        double sum = 0;
        for (double v : costs->segments(costs->rowOfStage(int(s)), 0))
            sum += v;
        // The bars are the cost model's terms for this state's recorded features;
        // their float sum is the stage cost. 1e-4 relative: the test sums the
        // (already 1e-9-scaled) terms in double in a different grouping.
        const double expected = winner->stageCosts[s];
        QVERIFY2(std::abs(sum - expected) <= 1e-4 * std::abs(expected) + 1e-12,
                 qPrintable(QStringLiteral("stage %1: bars %2, recorded %3").arg(s).arg(sum).arg(expected)));
        // The largest term, named with its number beside the bars.
        const std::vector<double> &terms = costs->segments(costs->rowOfStage(int(s)), 0);
        const auto largest =
            std::max_element(terms.begin(), terms.end(), [](double x, double y) { return std::abs(x) < std::abs(y); });
        const QModelIndex main = costs->index(costs->rowOfStage(int(s)), StageCostModel::MainTerm);
        QCOMPARE(main.data(Qt::UserRole).toDouble(), *largest);
        QVERIFY(main.data().toString().endsWith(" " + costs->segmentNames()[largest - terms.begin()]));
    }
    QVERIFY2(m_ws->detailPanel()->costNoteText().contains(QStringLiteral("Costs most: ")),
             qPrintable(m_ws->detailPanel()->costNoteText()));
}

void TestUiSearch::compareTwoStates()
{
    const search::SearchTrace trace = readFixture();
    QVERIFY(openFixture());
    const auto *winner = trace.find(trace.summary.bestId);
    // Another beam state at the same depth: same stages, different schedule.
    const search::TraceNode *other = nullptr;
    for (const auto &n : trace.nodes())
        if (n.inBeam && n.depth == winner->depth && n.id != winner->id && !n.features.empty())
            other = &n;
    QVERIFY(other);
    m_ws->selectState(winner->id);
    m_ws->compareState(other->id);
    StateDetailPanel *panel = m_ws->detailPanel();
    QCOMPARE(panel->stateB(), other->id);
    panel->setStage(0);
    FeatureTableModel *m = panel->featureModel();
    QCOMPARE(m->columnCount(), 6);
    bool anyDifference = false;
    for (int i = 0; i < 73; ++i) {
        const double a = winner->features[0][size_t(i)], b = other->features[0][size_t(i)];
        QCOMPARE(m->index(i, FeatureTableModel::RawB).data(Qt::UserRole).toDouble(), b);
        QCOMPARE(m->index(i, FeatureTableModel::DeltaLog).data(Qt::UserRole).toDouble(), std::log1p(b) - std::log1p(a));
        anyDifference = anyDifference || a != b;
    }
    QVERIFY(anyDifference);
    // Each feature's name says what it measures when pointed at, each in its own words.
    QSet<QString> meanings;
    for (int i = 0; i < 73; ++i) {
        const QString tip = m->index(i, FeatureTableModel::Name).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.startsWith(m->index(i, FeatureTableModel::Name).data(Qt::EditRole).toString() + ": "),
                 qPrintable(tip));
        meanings.insert(tip.section(QStringLiteral(": "), 1));
    }
    QCOMPARE(meanings.size(), 73);
    StageCostModel *c = panel->stageCostModel();
    QCOMPARE(c->columnCount(), int(StageCostModel::ColumnCount));
    QCOMPARE(c->index(c->rowOfStage(0), StageCostModel::Delta).data(Qt::UserRole).toDouble(),
             double(other->stageCosts[0]) - double(winner->stageCosts[0]));
    m_ws->compareState(-1);
    QCOMPARE(m->columnCount(), 3);
}

void TestUiSearch::pathToWinnerFilter()
{
    const search::SearchTrace trace = readFixture();
    QVERIFY(openFixture());
    const SearchTreeData &d = m_ws->treeData();
    std::vector<int64_t> expected;
    for (const auto *n = trace.find(trace.summary.bestId); n; n = trace.find(n->parent))
        expected.push_back(n->id);
    size_t marked = 0;
    for (size_t i = 0; i < d.onWinnerPath().size(); ++i)
        if (d.onWinnerPath()[i]) {
            ++marked;
            QVERIFY(std::find(expected.begin(), expected.end(), int64_t(i)) != expected.end());
        }
    QCOMPARE(marked, expected.size());
    m_ws->setPathOnly(true);
    m_ws->treeView()->fit();
    (void)m_ws->treeView()->grab();
    // Only the path's states are drawn as markers.
    QCOMPARE(m_ws->treeView()->lastMarkerCount(), int64_t(expected.size()));
    m_ws->setPathOnly(false);
    (void)m_ws->treeView()->grab();
    QVERIFY(m_ws->treeView()->lastMarkerCount() > int64_t(expected.size()));
}

void TestUiSearch::searchByFuncName()
{
    const search::SearchTrace trace = readFixture();
    QVERIFY(openFixture());
    const QString func = SearchTreeData::decisionFunc(trace.nodes().back());
    QVERIFY(!func.isEmpty());
    int expected = 0;
    for (const auto &n : trace.nodes())
        if (n.detail.find("func") &&
            QString::fromStdString(n.detail.find("func")->toString()).contains(func, Qt::CaseInsensitive))
            ++expected;
    QVERIFY(expected > 0 && expected < int(trace.nodes().size()));
    m_ws->setFuncSearch(func.toUpper());
    int marked = 0;
    for (bool b : m_ws->treeData().funcMatches())
        marked += b ? 1 : 0;
    QCOMPARE(marked, expected);
    QVERIFY(m_ws->matchLabel()->text().contains(QString::number(expected)));
    m_ws->setFuncSearch(QString());
    for (bool b : m_ws->treeData().funcMatches())
        QVERIFY(!b);
}

namespace {
// A state's siblings as the trace records them: the other states with its parent
// at its pass and depth, in id order (the order they were added and are drawn).
std::vector<int64_t> siblingsInTrace(const search::SearchTrace &trace, const search::TraceNode &n)
{
    std::vector<int64_t> out;
    for (const auto &m : trace.nodes())
        if (m.parent == n.parent && m.pass == n.pass && m.depth == n.depth)
            out.push_back(m.id);
    return out;
}
} // namespace

void TestUiSearch::navigateByKeysAndGoTo()
{
    const search::SearchTrace trace = readFixture();
    QVERIFY(openFixture());
    SearchTreeView *view = m_ws->treeView();
    const int64_t winner = m_ws->treeData().winner();
    QVERIFY(winner >= 0);
    const search::TraceNode *w = trace.find(winner);
    QVERIFY(w && w->parent >= 0);

    // The field takes "#id" or "id"; Enter selects the state and hands the keys to the tree.
    m_ws->goToField()->clear();
    QTest::keyClicks(m_ws->goToField(), QStringLiteral("#%1").arg(w->parent));
    QTest::keyClick(m_ws->goToField(), Qt::Key_Return);
    QCOMPARE(view->selected(), w->parent);
    QVERIFY(!m_ws->goToState(QStringLiteral("#%1").arg(trace.nodes().size() + 5)));
    QCOMPARE(view->selected(), w->parent);

    // Down goes along the winner's path, Up back to the parent.
    QVERIFY(m_ws->goToState(QString::number(winner)));
    QTest::keyClick(view, Qt::Key_Up);
    QCOMPARE(view->selected(), w->parent);
    QTest::keyClick(view, Qt::Key_Down);
    QCOMPARE(view->selected(), winner);
    QCOMPARE(m_ws->detailPanel()->stateA(), winner);

    // Left and Right walk the siblings in the trace's order; Shift skips to pruned ones.
    const search::TraceNode *many = nullptr;
    for (const auto &n : trace.nodes())
        if (n.parent >= 0 && siblingsInTrace(trace, n).size() >= 4) {
            many = &n;
            break;
        }
    QVERIFY(many);
    const std::vector<int64_t> sibs = siblingsInTrace(trace, *many);
    QVERIFY(m_ws->goToState(QString::number(sibs.front())));
    QTest::keyClick(view, Qt::Key_Left); // nothing left of the first: stays
    QCOMPARE(view->selected(), sibs.front());
    QTest::keyClick(view, Qt::Key_Right);
    QCOMPARE(view->selected(), sibs[1]);
    QTest::keyClick(view, Qt::Key_Right);
    QCOMPARE(view->selected(), sibs[2]);
    QTest::keyClick(view, Qt::Key_Left);
    QCOMPARE(view->selected(), sibs[1]);
    QVERIFY(m_ws->goToState(QString::number(sibs.front())));
    int64_t firstPruned = -1;
    for (size_t i = 1; i < sibs.size() && firstPruned < 0; ++i)
        if (!trace.find(sibs[i])->inBeam)
            firstPruned = sibs[i];
    QVERIFY(firstPruned >= 0);
    QTest::keyClick(view, Qt::Key_Right, Qt::ShiftModifier);
    QCOMPARE(view->selected(), firstPruned);
    QVERIFY(!trace.find(view->selected())->inBeam);
}

void TestUiSearch::filterByDecisionTextHidesTheRest()
{
    const search::SearchTrace trace = readFixture();
    QVERIFY(openFixture());
    // "inline" is in decisions' text, not in any Func's name.
    int expected = 0;
    for (const auto &n : trace.nodes())
        if (QString::fromStdString(n.decision).contains(QStringLiteral("inline"), Qt::CaseInsensitive))
            ++expected;
    QVERIFY(expected > 0 && expected < int(trace.nodes().size()));
    m_ws->setFuncSearch(QStringLiteral("INLINE"));
    int marked = 0;
    for (bool b : m_ws->treeData().funcMatches())
        marked += b ? 1 : 0;
    QCOMPARE(marked, expected);

    const auto &onPath = m_ws->treeData().onWinnerPath();
    int64_t hidden = -1, match = -1;
    for (const auto &n : trace.nodes()) {
        const bool isMatch = m_ws->treeData().funcMatches()[size_t(n.id)];
        if (!isMatch && !onPath[size_t(n.id)] && hidden < 0)
            hidden = n.id;
        if (isMatch && match < 0)
            match = n.id;
    }
    QVERIFY(hidden >= 0 && match >= 0);
    QVERIFY(m_ws->treeView()->isShown(hidden));
    m_ws->hideUnmatchedBox()->setChecked(true);
    QVERIFY(!m_ws->treeView()->isShown(hidden));
    QVERIFY(m_ws->treeView()->isShown(match));
    QVERIFY(m_ws->treeView()->isShown(m_ws->treeData().winner())); // the path stays as context
    m_ws->treeView()->fit();
    (void)m_ws->treeView()->grab();
    QVERIFY(m_ws->treeView()->lastMarkerCount() <= int64_t(expected + std::count(onPath.begin(), onPath.end(), true)));
    m_ws->hideUnmatchedBox()->setChecked(false);
    m_ws->setFuncSearch(QString());
    QVERIFY(m_ws->treeView()->isShown(hidden));
}

void TestUiSearch::finalBeamListsTheLastBeam()
{
    const search::SearchTrace trace = readFixture();
    QVERIFY(openFixture());
    QVERIFY(!m_ws->finalBeamPanel()->isVisible());
    m_ws->finalBeamButton()->click();
    QVERIFY(m_ws->finalBeamPanel()->isVisible());
    FinalBeamModel *model = m_ws->finalBeamPanel()->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);

    // Independently: the complete states of the last pass's deepest depth, cheapest first, after the winner.
    int lastPass = 0, lastDepth = 0;
    for (const auto &n : trace.nodes())
        lastPass = std::max(lastPass, n.pass);
    for (const auto &n : trace.nodes())
        if (n.pass == lastPass)
            lastDepth = std::max(lastDepth, n.depth);
    std::vector<const search::TraceNode *> complete;
    for (const auto &n : trace.nodes())
        if (n.pass == lastPass && n.depth == lastDepth)
            complete.push_back(&n);
    std::stable_sort(complete.begin(), complete.end(), [](auto *a, auto *b) { return a->cost < b->cost; });
    const int64_t winner = m_ws->treeData().winner();
    std::vector<int64_t> expected{winner};
    for (const auto *n : complete)
        if (n->id != winner && expected.size() < 4)
            expected.push_back(n->id);
    QVERIFY(expected.size() > 1);
    QCOMPARE(model->rowCount(), int(expected.size()));
    for (int r = 0; r < model->rowCount(); ++r)
        QCOMPARE(model->stateAt(r), expected[size_t(r)]);
    QVERIFY(model->data(model->index(0, FinalBeamModel::Rank)).toString().contains(QStringLiteral("winner")));
    QCOMPARE(model->data(model->index(0, FinalBeamModel::Cost)).toString(),
             QString::number(trace.find(model->stateAt(0))->cost, 'g', 6));

    // A click on a row selects its state in the tree and the detail panel.
    if (model->rowCount() > 1) {
        QTableView *table = m_ws->finalBeamPanel()->table();
        const QRect cell = table->visualRect(model->index(1, FinalBeamModel::State));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(m_ws->treeView()->selected(), model->stateAt(1));
    }
    m_ws->finalBeamButton()->click();
    QVERIFY(!m_ws->finalBeamPanel()->isVisible());
}

// Every table exports what it shows as CSV and JSON, numbers whole; every chart saves as PNG and SVG;
// a right-click offers both (ExportMenus on the application).
void TestUiSearch::tablesAndChartsExport()
{
    const search::SearchTrace trace = readFixture();
    QVERIFY(openFixture());
    const auto *winner = trace.find(trace.summary.bestId);
    m_ws->selectState(winner->id);
    QTableView *costs = m_ws->detailPanel()->costTable();
    QAbstractItemModel *model = costs->model();
    QVERIFY(model->rowCount() == int(winner->stageCosts.size()) && model->rowCount() > 0);
    const QString costHeader = model->headerData(StageCostModel::CostA, Qt::Horizontal).toString();

    // JSON, read back: one object per row, each cost the model's unrounded number.
    const QString json = m_dir->filePath(QStringLiteral("costs.json"));
    QCOMPARE(saveTable(*costs, json, TableFormat::Json), QString());
    const auto text = readTextFile(json.toStdString());
    QVERIFY(text);
    const JsonParseResult parsed = parseJson(*text);
    QVERIFY2(parsed.value, parsed.error.c_str());
    QCOMPARE(parsed.value->items().size(), size_t(model->rowCount()));
    for (int r = 0; r < model->rowCount(); ++r) {
        const Json &row = parsed.value->items()[size_t(r)];
        const Json *cost = row.find(costHeader.toStdString());
        QVERIFY(cost && cost->isNumber());
        QCOMPARE(cost->toNumber(), model->index(r, StageCostModel::CostA).data(Qt::UserRole).toDouble());
        QCOMPARE(QString::fromStdString(row.find("Stage")->toString()),
                 model->index(r, StageCostModel::Stage).data().toString());
    }
    // CSV: a header line of the visible columns, then a line per row.
    const QString csv = tableText(*costs, TableFormat::Csv);
    const QStringList lines = csv.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), model->rowCount() + 1);
    QVERIFY(lines.front().startsWith(QStringLiteral("Stage,") + costHeader));
    QVERIFY(!lines.front().contains(QStringLiteral("B cost"))); // hidden while nothing is compared

    // A chart as PNG and SVG.
    const auto charts = m_ws->findChildren<QChartView *>();
    QVERIFY(!charts.isEmpty());
    QChartView *chart = charts.front();
    chart->resize(400, 300);
    const QString png = m_dir->filePath(QStringLiteral("chart.png")),
                  svg = m_dir->filePath(QStringLiteral("chart.svg"));
    QCOMPARE(saveWidgetPicture(*chart, png), QString());
    QCOMPARE(saveWidgetPicture(*chart, svg), QString());
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size() / image.devicePixelRatio(), chart->size());
    const auto svgText = readTextFile(svg.toStdString());
    QVERIFY(svgText && svgText->find("<svg") != std::string::npos);
    QVERIFY(!QFileInfo::exists(m_dir->filePath(QStringLiteral("nowhere/chart.png"))));
    QVERIFY(!saveWidgetPicture(*chart, m_dir->filePath(QStringLiteral("nowhere/chart.png"))).isEmpty());

    // The right-click menu on a table, with the filter installed as the explorer installs it.
    ExportMenus::installOnApplication();
    QStringList offered;
    QTimer::singleShot(0, this, [&offered] {
        if (auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget())) {
            for (QAction *a : menu->actions())
                offered << a->text();
            menu->close();
        }
    });
    QContextMenuEvent click(QContextMenuEvent::Mouse, QPoint(5, 5), costs->viewport()->mapToGlobal(QPoint(5, 5)));
    QApplication::sendEvent(costs->viewport(), &click);
    QVERIFY2(offered.contains(QStringLiteral("Export table as CSV…")), qPrintable(offered.join(QLatin1Char('|'))));
    QVERIFY(offered.contains(QStringLiteral("Export table as JSON…")));
}

void TestUiSearch::badTraceChangesNothing()
{
    QVERIFY(openFixture());
    const size_t before = m_ws->treeData().nodes().size();
    const QString bad = m_dir->filePath(QStringLiteral("bad.jsonl"));
    const std::string fixture = test::readFile(fixturePath());
    test::writeFile(bad.toStdString(), fixture.substr(0, fixture.find('\n') + 1) + "{\"id\": 0, \"parent\": -1}\n");
    QSignalSpy failed(m_ws.get(), &SearchWorkspace::loadFailed);
    m_ws->openTrace(bad);
    QVERIFY(failed.wait(10000));
    const QString error = failed.first().first().toString();
    QVERIFY2(error.contains(QStringLiteral("bad.jsonl")) && error.contains(QStringLiteral("line 2")),
             qPrintable(error));
    QCOMPARE(m_ws->treeData().nodes().size(), before);
}

void TestUiSearch::exportScheduleSource()
{
    const search::SearchTrace trace = readFixture();
    QVERIFY(openFixture());
    QSignalSpy exported(m_ws.get(), &SearchWorkspace::scheduleExported);
    // The winner is complete: core/schedule's emitter writes Halide source for it.
    const QString full = m_dir->filePath(QStringLiteral("winner.schedule.h"));
    m_ws->exportScheduleTo(trace.summary.bestId, full);
    QVERIFY(exported.wait(60000));
    QCOMPARE(exported.last().at(1).toBool(), true);
    QCOMPARE(exported.last().at(2).toBool(), true);
    const std::string source = test::readFile(full.toStdString());
    QVERIFY2(source.find("gpu_blocks") != std::string::npos, source.c_str());
    // A state at depth 1 is partial: its file says why and carries the loop nest as comments.
    const search::TraceNode *partial = nullptr;
    for (const auto &n : trace.nodes())
        if (n.depth == 1 && n.inBeam)
            partial = &n;
    QVERIFY(partial);
    const QString part = m_dir->filePath(QStringLiteral("partial.schedule.h"));
    m_ws->exportScheduleTo(partial->id, part);
    QVERIFY(exported.wait(60000));
    QCOMPARE(exported.last().at(1).toBool(), true);
    QCOMPARE(exported.last().at(2).toBool(), false);
    const std::string text = test::readFile(part.toStdString());
    QVERIFY2(text.find("partial") != std::string::npos && text.find("realize:") != std::string::npos, text.c_str());
}

void TestUiSearch::measureWinnerOnOpenCl()
{
    const search::SearchTrace trace = readFixture();
    QVERIFY(openFixture());
    QSignalSpy measured(m_ws.get(), &SearchWorkspace::measured);
    // OpenCL runs on PoCL on machines without a GPU; the worker process keeps
    // PoCL's LLVM away from libHalide's.
    m_ws->setMeasureTarget(QStringLiteral("opencl"));
    m_ws->selectState(trace.summary.bestId);
    m_ws->measureState(trace.summary.bestId);
    QVERIFY(measured.wait(300000));
    QVERIFY2(measured.first().at(0).toBool(), qPrintable(m_ws->detailPanel()->measurementText()));
    QVERIFY(measured.first().at(1).toDouble() > 0);
    QVERIFY(m_ws->detailPanel()->measurementText().contains(QStringLiteral(" ms")));
    QVERIFY2(m_ws->detailPanel()->measurementText().contains(QStringLiteral("matches the reference")),
             qPrintable(m_ws->detailPanel()->measurementText()));
    // Review S7: the measurement is kept: another state clears the line, selecting this one again brings it
    // back, and the state's hover text has its time.
    const QString line = m_ws->detailPanel()->measurementText();
    const search::TraceNode *other = trace.find(trace.summary.bestId - 1);
    QVERIFY(other);
    m_ws->selectState(other->id);
    QVERIFY(m_ws->detailPanel()->measurementText().isEmpty());
    m_ws->selectState(trace.summary.bestId);
    QCOMPARE(m_ws->detailPanel()->measurementText(), line);
    QVERIFY2(m_ws->treeData().describe(trace.summary.bestId).contains(QStringLiteral("ms median")),
             qPrintable(m_ws->treeData().describe(trace.summary.bestId)));
}

// "Measure the beam": each state of the final beam timed in turn on OpenCL, then predicted against
// measured with the rank correlations, as core computes them, with n and intervals.
void TestUiSearch::measureTheFinalBeam()
{
    QVERIFY(openFixture());
    QTRY_VERIFY_WITH_TIMEOUT(!m_ws->breakdownPending(), 60000); // the trace's session measures
    m_ws->setMeasureTarget(QStringLiteral("opencl"));
    if (!m_ws->finalBeamButton()->isChecked())
        m_ws->finalBeamButton()->click();
    FinalBeamPanel *panel = m_ws->finalBeamPanel();
    const int rows = panel->model()->rowCount();
    QVERIFY(rows >= 3);
    QSignalSpy measured(m_ws.get(), &SearchWorkspace::measured);
    panel->measureButton()->click();
    QCOMPARE(panel->measureButton()->text(), QStringLiteral("Cancel measuring"));
    QTRY_COMPARE_WITH_TIMEOUT(measured.count(), rows, 600000);
    QCOMPARE(panel->measureButton()->text(), QStringLiteral("Measure the beam"));
    std::vector<double> predicted, times;
    for (int r = 0; r < rows; ++r) {
        const int64_t id = panel->model()->stateAt(r);
        QVERIFY2(m_ws->treeData().isMeasured(id),
                 qPrintable(QStringLiteral("#%1: %2").arg(id).arg(m_ws->detailPanel()->measurementText())));
        predicted.push_back(m_ws->treeData().node(id)->cost);
        times.push_back(m_ws->treeData().measuredMs(id));
        QVERIFY(panel->model()->data(panel->model()->index(r, FinalBeamModel::Measured)).toString().endsWith("ms"));
    }
    QCOMPARE(panel->scatter()->count(), rows);
    const samples::RankMetrics expected = samples::rankMetrics(predicted, times);
    const QString text = panel->rankText();
    QVERIFY2(text.contains(QStringLiteral("Spearman %1").arg(expected.spearman, 0, 'f', 2)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("n = %1").arg(rows)), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("rough guess"))); // fewer than 20
    m_ws->finalBeamButton()->click();
}

// an input's steps (nothing to decide) are one grey line at the end of the
// decision path, and a pass-through state is named by the last decision on its path.
void TestUiSearch::inputStepsAreOneLineOfThePath()
{
    QSignalSpy finished(m_ws.get(), &SearchWorkspace::searchFinished);
    QSignalSpy status(m_ws.get(), &SearchWorkspace::statusMessage);
    m_ws->startSearch(randomBoxBlur(2, 1));
    // G10: a new search clears the window's status line (an earlier refusal is no longer the news).
    QVERIFY(
        std::any_of(status.begin(), status.end(), [](const QList<QVariant> &a) { return a[0].toString().isEmpty(); }));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 180000);
    const SearchTreeData &d = m_ws->treeData();
    // The deepest state of the winner's pass: box_blur's input is decided last, as a pass-through.
    int64_t through = -1;
    for (const auto &n : d.nodes())
        if (n.passThrough && (through < 0 || n.depth > d.node(through)->depth))
            through = n.id;
    QVERIFY2(through >= 0, "box_blur's input steps are pass-throughs on Halide's steps");
    m_ws->selectState(through);
    StateDetailPanel *panel = m_ws->detailPanel();
    int decided = 0, passed = 0;
    for (int64_t id : d.pathTo(through))
        (d.node(id)->passThrough ? passed : decided)++;
    QVERIFY(passed >= 1);
    QCOMPARE(panel->pathList()->count(), decided + 1);
    const QString last = panel->pathList()->item(panel->pathList()->count() - 1)->text();
    QVERIFY2(last.contains(QStringLiteral("nothing to decide")) && last.contains(QStringLiteral("input")),
             qPrintable(last));
    for (int i = 0; i + 1 < panel->pathList()->count(); ++i)
        QVERIFY(!panel->pathList()->item(i)->text().contains(QStringLiteral("nothing to decide")));
    QVERIFY2(panel->summaryText().contains(QStringLiteral("last decision:")), qPrintable(panel->summaryText()));
}

void TestUiSearch::liveSearchGrowsAndFinishes()
{
    const session::SearchRequest o = randomBoxBlur(2, 2);
    QSignalSpy added(m_ws.get(), &SearchWorkspace::nodesAdded);
    QSignalSpy finished(m_ws.get(), &SearchWorkspace::searchFinished);
    m_ws->startSearch(o);
    QVERIFY(m_ws->isSearching());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 180000);
    QCOMPARE(finished.first().at(0).toBool(), true);
    QCOMPARE(finished.first().at(1).toBool(), false);
    QVERIFY(!m_ws->isSearching());
    // The tree grew in several batches (one per decision depth), not at the end.
    QVERIFY2(added.count() >= 2, qPrintable(QString::number(added.count())));
    const SearchTreeData &d = m_ws->treeData();
    int delivered = 0;
    for (const auto &args : added)
        delivered += args.first().toInt();
    QCOMPARE(size_t(delivered), d.nodes().size());
    QCOMPARE(d.passCount(), 2);
    QVERIFY(d.winner() >= 0);
    for (const auto &row : d.rows())
        QVERIFY(row.beamCount <= 2);
    // The winner is selected and its cost terms (random weights here) sum to its stage costs.
    QTRY_VERIFY_WITH_TIMEOUT(!m_ws->breakdownPending(), 60000);
    const auto *w = d.node(d.winner());
    const auto termsSumToStageCosts = [&] {
        m_ws->selectState(d.winner());
        StageCostModel *costs = m_ws->detailPanel()->stageCostModel();
        if (costs->segmentScale() <= 0)
            return false;
        for (size_t s = 0; s < w->stageCosts.size(); ++s) {
            double sum = 0;
            for (double v : costs->segments(costs->rowOfStage(int(s)), 0))
                sum += v;
            if (std::abs(sum - w->stageCosts[s]) > 1e-4 * std::abs(w->stageCosts[s]) + 1e-12)
                return false;
        }
        return true;
    };
    QVERIFY(termsSumToStageCosts());
    // Another weights file chosen afterwards is for the next search: the cost
    // terms of this tree still come from the model this search ran with (with
    // the shipped baseline they would not sum to the random weights' costs).
    const QString previous = QString::fromStdString(m_ws->optionsFromControls().weightsPath);
    const std::string other = (test::sourceDir() / "weights/anderson2021/gpu.weights").string();
    m_ws->setWeightsPath(QString::fromStdString(other));
    QCOMPARE(m_ws->optionsFromControls().weightsPath, other);
    QVERIFY(other != o.weightsPath);
    QVERIFY(!m_ws->breakdownPending());
    QVERIFY(termsSumToStageCosts());
    m_ws->setWeightsPath(previous);
}

void TestUiSearch::cancelStopsTheSearch()
{
    const session::SearchRequest o = randomBoxBlur(64, 20);
    QSignalSpy added(m_ws.get(), &SearchWorkspace::nodesAdded);
    QSignalSpy finished(m_ws.get(), &SearchWorkspace::searchFinished);
    m_ws->startSearch(o);
    QVERIFY(added.wait(120000));
    m_ws->cancelSearch();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QCOMPARE(finished.first().at(0).toBool(), true);
    QCOMPARE(finished.first().at(1).toBool(), true); // cancelled
    QVERIFY(m_ws->treeData().passCount() < 20);
}

void TestUiSearch::staleSearchNeverPaints()
{
    const session::SearchRequest a = randomBoxBlur(16, 5);
    session::SearchRequest b = a;
    b.beamSize = 1;
    b.passes = 1;
    QSignalSpy finished(m_ws.get(), &SearchWorkspace::searchFinished);
    m_ws->startSearch(a);
    m_ws->startSearch(b); // replaces a at once
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QTest::qWait(300);
    QCOMPARE(finished.count(), 1); // a never reports
    const SearchTreeData &d = m_ws->treeData();
    QCOMPARE(d.passCount(), 1);
    for (const auto &row : d.rows())
        QVERIFY(row.beamCount <= 1);
}

// "Continue" on a selected state of the fixture's trace starts a new search
// off the GUI thread: the tree shows the new run, whose first decision is the
// selected state's, flagged as fixed in every pass.
// A state saved as Halide's loop nest is read back by `beamscope-cli state` and, opened, is the
// same state (the same dump, the same cost under the same weights); a dump of another pipeline is
// refused with the Func that does not fit.
void TestUiSearch::loopNestSavedAndOpened()
{
    QSignalSpy finished(m_ws.get(), &SearchWorkspace::searchFinished);
    m_ws->startSearch(randomBoxBlur(2, 1));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QVERIFY(finished.first().at(0).toBool());
    const qint64 winner = m_ws->treeData().winner();
    QVERIFY(winner >= 0);
    const float cost = m_ws->treeData().node(winner)->cost;
    QTRY_VERIFY_WITH_TIMEOUT(!m_ws->breakdownPending(), 60000);

    const QString saved = m_dir->filePath(QStringLiteral("box_blur_winner.nest"));
    QVERIFY(m_ws->saveStateAsLoopNest(winner, saved));
    const std::optional<std::string> dump = readTextFile(saved.toStdString());
    QVERIFY(dump && dump->find("realize: ") != std::string::npos);
    QVERIFY(m_ws->canOpen(saved));
    QVERIFY(!m_ws->canOpen(m_dir->filePath(QStringLiteral("missing.nest"))));

    const test::ProcessResult state =
        test::runProcess(test::cliPath(), {"state", "--app", "box_blur", "--loop-nest", saved.toStdString(),
                                           "--weights", m_randomWeights.toStdString(), "--json"});
    QVERIFY2(state.exitCode == 0, state.err.c_str());

    m_ws->setApp(QStringLiteral("box_blur"));
    m_ws->setWeightsPath(m_randomWeights);
    m_ws->setBeamSize(2);
    m_ws->setPasses(1);
    finished.clear();
    QVERIFY(m_ws->openLoopNest(saved));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(m_ws->statusText()));
    const qint64 reopened = m_ws->treeData().winner();
    QVERIFY(reopened >= 0);
    QCOMPARE(m_ws->treeData().node(reopened)->cost, cost);
    QTRY_VERIFY_WITH_TIMEOUT(!m_ws->breakdownPending(), 60000);
    const QString again = m_dir->filePath(QStringLiteral("box_blur_reopened.nest"));
    QVERIFY(m_ws->saveStateAsLoopNest(reopened, again));
    QCOMPARE(readTextFile(again.toStdString()), dump);

    // A Func box_blur does not have.
    const QString other = m_dir->filePath(QStringLiteral("other.nest"));
    QVERIFY(replaceTextFile(other.toStdString(), " gpu_none\nrealize: not_in_box_blur [16, 16] with 1 stages\n").ok);
    finished.clear();
    QVERIFY(m_ws->openLoopNest(other));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY(!finished.first().at(0).toBool());
    QVERIFY2(m_ws->statusText().contains(QStringLiteral("not_in_box_blur")), qPrintable(m_ws->statusText()));
}

void TestUiSearch::continueFromSelectedState()
{
    QVERIFY(openFixture());
    const search::SearchTrace trace = readFixture();
    const search::TraceNode *pick = nullptr;
    for (const auto &n : trace.nodes())
        if (n.depth == 1 && n.inBeam && (!pick || n.cost > pick->cost))
            pick = &n; // not the cheapest, so the new search could not have found it by itself
    QVERIFY(pick);
    m_ws->setWeightsPath(m_randomWeights);
    m_ws->setBeamSize(2);
    m_ws->setPasses(2);
    QTRY_VERIFY_WITH_TIMEOUT(!m_ws->weightsScanPending(), 30000);
    m_ws->selectState(pick->id);
    QPushButton *button = m_ws->detailPanel()->continueButton();
    QVERIFY(button->isEnabled());

    QSignalSpy finished(m_ws.get(), &SearchWorkspace::searchFinished);
    QTest::mouseClick(button, Qt::LeftButton);
    // The click returns at once: the search runs on its worker, cancellable, Continue disabled meanwhile.
    QVERIFY(m_ws->isSearching());
    QVERIFY(!button->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 180000);
    QCOMPARE(finished.first().at(0).toBool(), true);
    QCOMPARE(finished.first().at(1).toBool(), false);

    // Halide gives a second build of a pipeline in one process "$N"-suffixed Func names.
    const auto decision = [](const search::TraceNode *n) {
        return QString::fromStdString(n->detail.dump()).remove(QRegularExpression(QStringLiteral("\\$\\d+")));
    };
    const SearchTreeData &d = m_ws->treeData();
    QCOMPARE(d.pipeline(), QStringLiteral("box_blur"));
    QCOMPARE(d.passCount(), 2);
    // The fixture's depth 1 decides the output whole (a per-Func trace); on Halide's steps that is
    // the output's first step, fixed, and its second, a pass-through, is fixed with it.
    int fixedNodes = 0;
    for (const auto &n : d.nodes()) {
        QCOMPARE(n.fixed, n.depth <= 2);
        if (n.fixed && !n.passThrough) {
            ++fixedNodes;
            QCOMPARE(decision(&n), decision(pick));
        }
    }
    QCOMPARE(fixedNodes, 2); // once per pass
    QVERIFY(d.winner() >= 0);
    const search::TraceNode *w = d.node(d.winner());
    while (w && w->depth > 1)
        w = d.node(w->parent);
    QVERIFY(w && w->fixed);
    QCOMPARE(decision(w), decision(pick));
    QVERIFY(button->isEnabled() || m_ws->detailPanel()->stateA() < 0);
}

// SearchSession::replay rebuilds a state from its decisions: for every beam
// state of a live search it gives the loop nest, features and stage costs the
// search itself recorded, so what it shows for a pruned state is what the
// search computed when it costed that state.
void TestUiSearch::replayedStatesEqualTheSearchsOwn()
{
    const session::SearchRequest o = randomBoxBlur(2, 1);
    std::string error;
    const auto session = session::SearchSession::open(o, &error);
    QVERIFY2(session, error.c_str());
    const session::SearchOutcome outcome = session->run(nullptr, {});
    QVERIFY2(outcome.ok, outcome.error.c_str());
    SearchTreeData d;
    d.load(outcome.trace);
    int compared = 0;
    for (const search::TraceNode &n : d.nodes()) {
        if (n.features.empty() || n.passThrough)
            continue;
        const auto replayed = session->replay(d.decisionsTo(n.id), &error);
        QVERIFY2(replayed, error.c_str());
        QCOMPARE(replayed->loopNest, n.loopNest);
        QCOMPARE(replayed->features.size(), n.features.size());
        for (size_t s = 0; s < n.features.size(); ++s)
            QVERIFY2(replayed->features[s] == n.features[s],
                     qPrintable(QStringLiteral("#%1 stage %2").arg(n.id).arg(s)));
        QCOMPARE(replayed->stageCosts.size(), n.stageCosts.size());
        for (size_t s = 0; s < n.stageCosts.size();
             ++s) // the same network on the same rows; summation order may differ
            QVERIFY(std::abs(replayed->stageCosts[s] - n.stageCosts[s]) <=
                    1e-5f * std::max(1.0f, std::abs(n.stageCosts[s])));
        ++compared;
    }
    QVERIFY(compared >= 4);
    // Decisions that do not fit the pipeline are refused with a reason.
    QVERIFY(!session->replay({Json::object()}, &error));
    QVERIFY(!error.empty());
}

// Review, Search 2 and 3: the winner against a state the beam pruned. The
// pruned state is rebuilt from its decisions, and all three views hold both:
// the features (sorted by |Δ|, "differing only"), the cost terms of A and B on
// one axis, and a loop-nest diff. Hovering names a state; rows name their step.
void TestUiSearch::prunedAndCompleteStatesCompared()
{
    QVERIFY(openFixture());
    QTRY_VERIFY_WITH_TIMEOUT(!m_ws->breakdownPending(), 60000);
    const SearchTreeData &d = m_ws->treeData();
    const qint64 winner = d.winner();
    QVERIFY(winner >= 0);
    const search::TraceNode *w = d.node(winner);
    const search::TraceNode *pruned = nullptr;
    for (const auto &n : d.nodes())
        if (!n.inBeam && n.depth == w->depth && n.features.empty() && n.pass == w->pass)
            pruned = &n;
    QVERIFY(pruned);
    const qint64 prunedId = pruned->id;
    QVERIFY(!d.hasDetails(prunedId));

    QSignalSpy recomputed(m_ws.get(), &SearchWorkspace::detailsRecomputed);
    m_ws->selectState(winner);
    m_ws->compareState(prunedId);
    QTRY_VERIFY_WITH_TIMEOUT(recomputed.count() >= 1, 60000);
    QVERIFY(d.hasDetails(prunedId) && d.isRecomputed(prunedId));
    StateDetailPanel *panel = m_ws->detailPanel();
    QCOMPARE(panel->stateB(), prunedId);
    QVERIFY(panel->summaryText().contains(QStringLiteral("rebuilt from its decisions")));

    // Features: B's column filled; sorted by |Δ log| with the differing-only switch.
    panel->setStage(0);
    FeatureTableModel *m = panel->featureModel();
    QCOMPARE(m->columnCount(), 6);
    QVERIFY(panel->differingOnlyBox()->isEnabled());
    panel->differingOnlyBox()->setChecked(true);
    FeatureDiffProxy *proxy = panel->featureProxy();
    int differing = 0;
    for (int i = 0; i < 73; ++i)
        differing += m->index(i, FeatureTableModel::RawA).data(Qt::UserRole).toDouble() !=
                     m->index(i, FeatureTableModel::RawB).data(Qt::UserRole).toDouble();
    QVERIFY(differing > 0);
    QCOMPARE(proxy->rowCount(), differing);
    for (int r = 1; r < proxy->rowCount(); ++r)
        QVERIFY(std::abs(proxy->index(r - 1, FeatureTableModel::DeltaLog).data(Qt::UserRole).toDouble()) >=
                std::abs(proxy->index(r, FeatureTableModel::DeltaLog).data(Qt::UserRole).toDouble()));
    panel->differingOnlyBox()->setChecked(false);
    QCOMPARE(proxy->rowCount(), 73);

    // Costs: a row per stage with A's and B's term bars on one scale, largest |B − A| first.
    StageCostModel *costs = panel->stageCostModel();
    QCOMPARE(costs->rowCount(), int(d.stageNames().size()));
    QVERIFY(costs->hasB());
    for (int r = 0; r < costs->rowCount(); ++r)
        QVERIFY(!costs->segments(r, 0).empty() && !costs->segments(r, 1).empty());
    QVERIFY(!costs->index(0, StageCostModel::Delta).data(Qt::UserRole).isNull());

    // Loop nest: the diff of A against B.
    const QString nest = panel->loopNestText();
    QVERIFY2(nest.contains(QStringLiteral("− ")) || nest.contains(QStringLiteral("+ ")), qPrintable(nest));

    // Hover text and row labels.
    QVERIFY(d.describe(prunedId).startsWith(QStringLiteral("#%1 · ").arg(prunedId)));
    QVERIFY(d.describe(prunedId).contains(QStringLiteral("pruned")));
    QVERIFY(!d.depthLabel(1).isEmpty());
    m_ws->compareState(-1);
}

// Review §1.4 and N4: compared on a real app (camera_pipe's 35 stages, local_laplacian's 103), the
// view explains where A and B part: the first differing decision is named, every stage keeps its
// whole name in a table sorted by |B − A|, the features open on the stage that differs most with only
// the differing features, A, B and Δ in view before the long name, and the loop-nest diff is folded to
// its changes. At both window sizes the README's screenshots use.
void TestUiSearch::compareExplainsOnRealApps_data()
{
    QTest::addColumn<QString>("app");
    QTest::addColumn<QSize>("size");
    for (const char *app : {"camera_pipe", "local_laplacian"})
        for (const QSize size : {QSize(1280, 800), QSize(1600, 1000)})
            QTest::addRow("%s %dx%d", app, size.width(), size.height()) << QString::fromLatin1(app) << size;
}

void TestUiSearch::compareExplainsOnRealApps()
{
    QFETCH(QString, app);
    QFETCH(QSize, size);
    const auto weightsFile = weights::holdOneOutWeightsFor(app.toStdString());
    QVERIFY(weightsFile);
    static QString searched;
    if (searched != app) { // one search per app, both sizes look at it
        session::SearchRequest o;
        o.pipeline.app = app.toStdString();
        o.weightsPath = weightsFile->string();
        o.beamSize = 2;
        o.passes = 1;
        QSignalSpy finished(m_ws.get(), &SearchWorkspace::searchFinished);
        m_ws->startSearch(o);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 300000);
        QVERIFY(finished.first().at(0).toBool());
        QTRY_VERIFY_WITH_TIMEOUT(!m_ws->breakdownPending(), 60000);
        searched = app;
    }
    m_ws->resize(size);
    const auto reset = qScopeGuard([this] { // whatever happens, the next row and test start uncompared
        m_ws->compareState(-1);
        m_ws->resize(1500, 900);
    });
    const SearchTreeData &d = m_ws->treeData();
    const search::TraceNode *winner = d.node(d.winner());
    QVERIFY(winner);
    // The runner-up: the cheapest other complete state (the final step prunes it; it is rebuilt).
    const search::TraceNode *other = nullptr;
    for (const auto &n : d.nodes())
        if (n.depth == winner->depth && n.pass == winner->pass && n.id != winner->id &&
            (!other || n.cost < other->cost))
            other = &n;
    QVERIFY(other);
    const qint64 otherId = other->id;
    QSignalSpy recomputed(m_ws.get(), &SearchWorkspace::detailsRecomputed);
    m_ws->selectState(winner->id);
    m_ws->compareState(otherId);
    if (!d.hasDetails(otherId))
        QVERIFY(recomputed.wait(60000));
    other = d.node(otherId);
    StateDetailPanel *panel = m_ws->detailPanel();
    panel->tabs()->setCurrentIndex(2);
    QApplication::processEvents();

    // Where the decisions part: the depth and both decisions, as the decision paths hold them.
    const std::vector<int64_t> pa = d.pathTo(winner->id), pb = d.pathTo(other->id);
    size_t i = 0;
    while (pa[i] == pb[i])
        ++i;
    const QString divergence = panel->divergenceText();
    QVERIFY2(divergence.contains(QStringLiteral("depth %1").arg(d.node(pa[i])->depth)), qPrintable(divergence));
    QVERIFY2(divergence.contains(d.shown(d.node(pb[i])->decision).toHtmlEscaped()), qPrintable(divergence));
    QVERIFY(panel->summaryText().contains(divergence));

    // Every stage has a row, named whole (no "…") and uniquely, as the CLI names it (its
    // Func's Halide name in a fresh process, whatever this one built before), largest |B − A| first.
    StageCostModel *costs = panel->stageCostModel();
    QCOMPARE(costs->rowCount(), int(d.stageNames().size()));
    QVERIFY(costs->rowCount() >= 35);
    QTableView *table = panel->costTable();
    const QFontMetrics metrics(table->font());
    QSet<QString> labels;
    for (int r = 0; r < costs->rowCount(); ++r) {
        const QString label = costs->index(r, StageCostModel::Stage).data().toString();
        QCOMPARE(label, d.shown(d.stageNames()[static_cast<size_t>(costs->stageOfRow(r))]));
        QVERIFY2(!labels.contains(label), qPrintable(label));
        labels.insert(label);
        QVERIFY2(metrics.horizontalAdvance(label) <= table->columnWidth(StageCostModel::Stage),
                 qPrintable(QStringLiteral("%1 is cut at %2 px").arg(label).arg(table->columnWidth(0))));
        table->scrollTo(costs->index(r, StageCostModel::Stage));
        QVERIFY(table->viewport()->rect().intersects(table->visualRect(costs->index(r, StageCostModel::Stage))));
        if (r > 0) {
            const QVariant before = costs->index(r - 1, StageCostModel::Delta).data(Qt::UserRole);
            const QVariant here = costs->index(r, StageCostModel::Delta).data(Qt::UserRole);
            if (here.isValid())
                QVERIFY(before.isValid() && std::abs(before.toDouble()) >= std::abs(here.toDouble()));
        }
    }
    // B − A, the term that differs most and the term bars are in view beside the names; A's and B's
    // costs are in the row's tooltip.
    for (int column : {int(StageCostModel::Delta), int(StageCostModel::Terms)})
        QVERIFY2(table->columnViewportPosition(column) + qMin(table->columnWidth(column), 40) <=
                     table->viewport()->width(),
                 qPrintable(QStringLiteral("column %1 off-screen at %2 (at %3 of %4 px)")
                                .arg(column)
                                .arg(size.width())
                                .arg(table->columnViewportPosition(column))
                                .arg(table->viewport()->width())));
    QVERIFY(costs->index(0, StageCostModel::Stage).data(Qt::ToolTipRole).toString().contains(QStringLiteral("B cost")));
    // Why, in words: the stage that differs most (the table's first row) and the term behind it.
    const QString note = panel->costNoteText();
    QVERIFY2(note.contains(QStringLiteral("Differs most in %1: B − A ")
                               .arg(costs->index(0, StageCostModel::Stage).data().toString())) &&
                 note.contains(QStringLiteral(", of which ")),
             qPrintable(note));

    // Features: on the stage whose cost differs most, only what differs, the numbers before the name.
    const int top = costs->stageOfRow(0);
    QCOMPARE(costs->rowOfStage(top), 0);
    panel->tabs()->setCurrentIndex(1);
    QApplication::processEvents();
    QCOMPARE(panel->featureModel()->hasB(), true);
    QVERIFY(panel->differingOnlyBox()->isChecked());
    QVERIFY(panel->featureProxy()->rowCount() < 73);
    QHeaderView *header = panel->featureTable()->horizontalHeader();
    QCOMPARE(header->visualIndex(FeatureTableModel::Name), header->count() - 1);
    for (int column : {int(FeatureTableModel::LogA), int(FeatureTableModel::LogB), int(FeatureTableModel::DeltaLog)})
        QVERIFY2(header->sectionViewportPosition(column) + header->sectionSize(column) <=
                     panel->featureTable()->viewport()->width(),
                 qPrintable(QStringLiteral("feature column %1 off-screen at %2").arg(column).arg(size.width())));

    // The loop nest: the changes and a little context, the unchanged runs folded.
    const QString nest = panel->loopNestText();
    QVERIFY2(nest.contains(QStringLiteral("unchanged line")), qPrintable(nest.left(400)));
    QVERIFY(nest.contains(QStringLiteral("− ")) || nest.contains(QStringLiteral("+ ")));
    const auto nestLines = std::count(winner->loopNest.begin(), winner->loopNest.end(), '\n');
    QVERIFY2(nest.count(QLatin1Char('\n')) < nestLines / 2,
             qPrintable(QStringLiteral("%1 lines shown of %2").arg(nest.count(QLatin1Char('\n'))).arg(nestLines)));
}

// The fixture recorded again with its weights and profile named, as the CLI writes them.
static QString traceWithWeights(const QString &dir, const std::string &weights, const QString &name)
{
    search::SearchTrace trace = readFixture();
    trace.params.weights = weights;
    trace.params.profile = "a100";
    const std::filesystem::path out = std::filesystem::path(dir.toStdString()) / name.toStdString();
    std::string error;
    if (!trace.write(out, true, &error))
        qFatal("trace: %s", error.c_str());
    return QString::fromStdString(out.string());
}

// Review, Search 1: opening a trace made with other weights than the form's
// must put those weights in the form, so Start and Continue search with them.
void TestUiSearch::openedTraceRestoresItsWeights()
{
    const std::string gpu = (test::sourceDir() / "weights/anderson2021/gpu.weights").string();
    m_ws->setWeightsPath(m_randomWeights);
    QTRY_VERIFY_WITH_TIMEOUT(!m_ws->weightsScanPending(), 30000);
    QCOMPARE(QString::fromStdString(m_ws->optionsFromControls().weightsPath), m_randomWeights);

    QSignalSpy loaded(m_ws.get(), &SearchWorkspace::traceLoaded);
    m_ws->openTrace(traceWithWeights(m_dir->path(), gpu, QStringLiteral("with_gpu.jsonl")));
    QVERIFY(loaded.wait(20000));
    QTRY_VERIFY_WITH_TIMEOUT(!m_ws->weightsScanPending(), 30000);
    const session::SearchRequest o = m_ws->optionsFromControls();
    QCOMPARE(o.weightsPath, gpu);
    QCOMPARE(QString::fromStdString(o.profile).toLower(), QStringLiteral("a100"));
    QCOMPARE(o.beamSize, 4);
    QVERIFY(m_ws->missingTraceWeights().isEmpty());
}

// A trace whose weights file is gone: the form says so, and neither Start nor
// Continue searches with whatever file the form held before.
void TestUiSearch::missingTraceWeightsAreRefused()
{
    const std::string gone = (std::filesystem::path(m_dir->path().toStdString()) / "gone.weights").string();
    QSignalSpy loaded(m_ws.get(), &SearchWorkspace::traceLoaded);
    m_ws->openTrace(traceWithWeights(m_dir->path(), gone, QStringLiteral("with_missing.jsonl")));
    QVERIFY(loaded.wait(20000));
    QCOMPARE(m_ws->missingTraceWeights(), QString::fromStdString(gone));
    QVERIFY(m_ws->weightsNote().contains(QStringLiteral("gone.weights")));

    const qint64 winner = m_ws->treeData().winner();
    QVERIFY(winner >= 0);
    const size_t nodes = m_ws->treeData().nodes().size();
    QVERIFY(!m_ws->continueFrom(winner));
    m_ws->startSearch();
    QVERIFY(!m_ws->isSearching());
    QCOMPARE(m_ws->treeData().nodes().size(), nodes); // the trace is still shown

    // Naming a file on purpose is the user's choice, not a fallback.
    m_ws->setWeightsPath(m_randomWeights);
    QVERIFY(m_ws->missingTraceWeights().isEmpty());
}

// The line under the weights: a hold-one-out file on its own app, on another
// app, the untrained baseline; nothing for a file that is not shipped.
void TestUiSearch::shippedWeightsSayWhatTheyAre()
{
    const auto shipped = [](const char *name) {
        return QString::fromStdString(weights::findShippedWeights(name).value_or("").string());
    };
    QVERIFY(!shipped("bilateral_grid").isEmpty());
    m_ws->setApp(QStringLiteral("bilateral_grid"));
    m_ws->setWeightsPath(shipped("bilateral_grid"));
    QTRY_VERIFY(m_ws->weightsNote().contains(QStringLiteral("without bilateral_grid (hold-one-out)")));
    m_ws->setWeightsPath(shipped("harris"));
    QTRY_VERIFY(
        m_ws->weightsNote().contains(QStringLiteral("without harris; bilateral_grid was among its training apps")));
    m_ws->setWeightsPath(shipped("baseline"));
    QTRY_VERIFY(m_ws->weightsNote().startsWith(QStringLiteral("untrained")));
    m_ws->setWeightsPath(m_randomWeights);
    QTRY_VERIFY(m_ws->weightsNote().isEmpty());
}

void TestUiSearch::paintTimeOf200kStates()
{
    // A synthetic trace shaped like a big search: 5 passes x 20 depths x 2,000
    // states, 32 kept per row. Figures are printed, not asserted (the build
    // machine is shared; speed is not a unit-test property).
    search::SearchTrace t(250000);
    t.pipeline = "synthetic";
    int64_t id = 0;
    std::vector<int64_t> previousBeam;
    for (int pass = 0; pass < 5; ++pass) {
        previousBeam.clear();
        for (int depth = 1; depth <= 20; ++depth) {
            std::vector<int64_t> beam;
            for (int i = 0; i < 2000; ++i, ++id) {
                search::TraceNode n;
                n.parent = previousBeam.empty() ? -1 : previousBeam[size_t(i) % previousBeam.size()];
                n.pass = pass;
                n.depth = depth;
                n.decision = "f" + std::to_string(depth) + ": root";
                n.cost = depth + std::fmod(double(i) * 0.618, 1.0) * depth * 8;
                n.inBeam = i % 62 == 0;
                if (n.inBeam)
                    beam.push_back(id);
                t.add(std::move(n));
            }
            previousBeam = beam;
        }
    }
    t.summary.bestId = id - 1;
    QCOMPARE(t.nodes().size(), size_t(200000));
    QElapsedTimer timer;
    timer.start();
    SearchTreeData d;
    d.load(t);
    const double loadMs = double(timer.nsecsElapsed()) / 1e6;
    SearchTreeView view;
    view.resize(1200, 800);
    view.setData(&d);
    const auto measure = [&](const char *what, bool expectMarkers) {
        std::vector<double> ms;
        for (int i = 0; i < 5; ++i) {
            (void)view.grab();
            ms.push_back(view.lastPaintMs());
        }
        std::sort(ms.begin(), ms.end());
        qInfo("paint 200,000 states, %s: median %.2f ms (min %.2f, max %.2f), %lld markers", what, ms[2], ms[0], ms[4],
              static_cast<long long>(view.lastMarkerCount()));
        if (expectMarkers)
            QVERIFY(view.lastMarkerCount() > 0);
    };
    qInfo("load 200,000 states into the view's data: %.1f ms", loadMs);
    measure("fitted (strips + survivors)", true);
    view.zoomBy(40, QPointF(600, 400));
    measure("zoomed 40x (individual states)", true);
    view.setPathOnly(true);
    measure("zoomed 40x, path to the winner only", false);
    view.setPathOnly(false);
    view.fit();
    d.setFuncFilter(QStringLiteral("f7"));
    measure("fitted, Func filter on", true);
    timer.restart();
    int64_t hits = 0;
    for (int i = 0; i < 100000; ++i)
        hits += d.hitTest(d.position(int64_t(i) * 2), 1.0) >= 0 ? 1 : 0;
    qInfo("hit tests: %.3f us each", double(timer.nsecsElapsed()) / 1e3 / 100000);
    QCOMPARE(hits, int64_t(100000));
}

QTEST_MAIN(TestUiSearch)
#include "tst_ui_search.moc"
