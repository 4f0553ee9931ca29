// The Search and Pipeline workspaces at start (they exist only in builds with Halide).

#include "app/gui/startup_scene.h"

#include "ui/mainwindow/main_window.h"

#if BEAMSCOPE_HAVE_HALIDE
#include "ui/pipeline/benchmark_panel.h"
#include "ui/pipeline/pipeline_workspace.h"
#include "ui/search/search_tree_data.h"
#include "ui/search/final_beam_model.h"
#include "ui/search/final_beam_panel.h"
#include "ui/search/search_workspace.h"
#include "ui/search/state_detail_panel.h"

#include <QFileInfo>
#include <QCheckBox>
#include <QPushButton>
#include <QTabWidget>

#include <cstdio>

#include <memory>
#endif

namespace beamscope::app {

using namespace beamscope::ui;

#if BEAMSCOPE_HAVE_HALIDE
namespace {

// A tab by number, or the first whose title contains the text ("cost" → "Cost breakdown").
int findTab(const QTabWidget *tabs, const QString &wanted)
{
    bool isNumber = false;
    const int index = wanted.toInt(&isNumber);
    if (isNumber)
        return index >= 0 && index < tabs->count() ? index : -1;
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i).remove(QLatin1Char('&')).contains(wanted, Qt::CaseInsensitive))
            return i;
    return -1;
}

// Selection, comparison, filters and tab, once the tree and its cost terms are there;
// then, when asked, a search continued from that state (whose tree replaces this
// one: its winner is selected) or a measurement of it.
void showRequestedState(SearchWorkspace *search, const ExplorerOptions &options, const SceneCallbacks &done,
                        bool continued)
{
    const qint64 id = continued ? search->treeData().winner() : options.state.value_or(search->treeData().winner());
    if (!search->treeData().node(id)) {
        done.failed(QStringLiteral("the tree has no state #%1").arg(id));
        return;
    }
    search->selectState(id);
    if (options.compareState)
        search->compareState(*options.compareState);
    if (options.compareRunnerUp) {
        const search::TraceNode *w = search->treeData().node(id);
        const search::TraceNode *runnerUp = nullptr;
        for (const search::TraceNode &n : search->treeData().nodes())
            if (n.pass == w->pass && n.depth == w->depth && n.id != id && (!runnerUp || n.cost < runnerUp->cost))
                runnerUp = &n;
        if (!runnerUp) {
            done.failed(QStringLiteral("state #%1 has no other complete state to compare with").arg(id));
            return;
        }
        search->compareState(runnerUp->id);
    }
    if (!options.func.isEmpty())
        search->setFuncSearch(options.func);
    if (options.pathOnly)
        search->setPathOnly(true);
    if (options.hideUnmatched)
        search->hideUnmatchedBox()->setChecked(true);
    if (options.finalBeam && !search->finalBeamButton()->isChecked()) {
        search->finalBeamButton()->click();
        search->finalBeamPanel()->showSelected(id);
    }
    if (!options.tab.isEmpty()) {
        QTabWidget *tabs = search->detailPanel()->tabs();
        const int tab = findTab(tabs, options.tab);
        // The loop nest is no tab: it is always shown below them (older scripts ask for "loop").
        const bool loopNest = options.tab.contains(QStringLiteral("loop"), Qt::CaseInsensitive);
        if (tab < 0 && !loopNest) {
            done.failed(QStringLiteral("no detail tab \"%1\"").arg(options.tab));
            return;
        }
        if (tab >= 0)
            tabs->setCurrentIndex(tab);
    }
    if (options.continueSearch && !continued) {
        search->continueFrom(id);
        return; // searchFinished comes back here
    }
    if (options.screenshotMode()) // what the picture shows, so scripts and tests can check it
        std::fprintf(
            stderr, "beamscope: Search workspace: %s, weights %s%s%s, %lld states, state #%lld selected (cost %.6g)\n",
            qPrintable(search->treeData().pipeline()),
            // The file the tree was searched with (the form's: a default, or the trace's own).
            qPrintable(QFileInfo(QString::fromStdString(search->optionsFromControls().weightsPath)).fileName()),
            search->weightsNote().isEmpty() ? "" : ": ", qPrintable(search->weightsNote()),
            static_cast<long long>(search->treeData().summary().statesEvaluated), static_cast<long long>(id),
            search->treeData().node(id)->cost);
    if (!options.measure.isEmpty() && options.measureBeam) {
        FinalBeamPanel *panel = search->finalBeamPanel();
        auto remaining = std::make_shared<int>(panel->model()->rowCount());
        QObject::connect(search, &SearchWorkspace::measured, search, [done, panel, remaining](bool, double) {
            if (--*remaining > 0)
                return;
            panel->tabs()->setCurrentIndex(1); // predicted against measured
            done.ready();
        });
        search->setMeasureTarget(options.measure);
        panel->measureButton()->click();
        return;
    }
    if (!options.measure.isEmpty() && options.run) {
        QObject::connect(
            search, &SearchWorkspace::measured, search, [done](bool, double) { done.ready(); },
            Qt::SingleShotConnection);
        search->setMeasureTarget(options.measure);
        search->measureState(id);
        return;
    }
    done.ready();
}

} // namespace

void setUpSearchScene(MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done)
{
    auto *search = qobject_cast<SearchWorkspace *>(window.workspace(QStringLiteral("search")));
    if (!options.weights.isEmpty())
        search->setWeightsPath(options.weights);
    if (!options.app.isEmpty())
        search->setApp(options.app);
    if (options.beam)
        search->setBeamSize(*options.beam);
    if (options.passes)
        search->setPasses(*options.passes);

    // The cost terms need the pipeline rebuilt off the GUI thread; the picture waits for them.
    auto searches = std::make_shared<int>(0); // finished searches and traces; a second one is the continued search
    const auto whenShown = [search, options, done, searches] {
        const bool continued = ++*searches > 1;
        if (!search->breakdownPending())
            showRequestedState(search, options, done, continued);
        else
            QObject::connect(
                search, &SearchWorkspace::breakdownReady, search,
                [search, options, done, continued] { showRequestedState(search, options, done, continued); },
                Qt::SingleShotConnection);
    };
    QObject::connect(search, &SearchWorkspace::searchFinished, search, [done, whenShown](bool ok, bool) {
        if (ok)
            whenShown();
        else
            done.failed(QStringLiteral("the search failed (the workspace's status line says why)"));
    });
    QObject::connect(search, &SearchWorkspace::traceLoaded, search, whenShown);
    QObject::connect(search, &SearchWorkspace::loadFailed, search,
                     [done](const QString &error) { done.failed(error); });
    const auto begin = [search, options] {
        if (!options.trace.isEmpty())
            search->openTrace(options.trace);
        else if ((!options.app.isEmpty() || !options.generator.isEmpty()) && options.run)
            search->startSearch(); // waits for the weights library's scan itself
    };
    if (options.generator.isEmpty()) {
        begin();
        return;
    }
    // The user's library first (looked at in a child process), then the trace or the search that needs it.
    QObject::connect(
        search, &SearchWorkspace::generatorLibraryOpened, search,
        [done, begin](bool ok, const QString &message) {
            if (ok)
                begin();
            else
                done.failed(message);
        },
        Qt::SingleShotConnection);
    GeneratorParamValues values;
    for (const QString &kv : options.generatorParams)
        values.append({kv.section(QLatin1Char('='), 0, 0), kv.section(QLatin1Char('='), 1)});
    search->openGeneratorLibrary(options.generator, options.generatorName, values);
}

void setUpPipelineScene(MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done)
{
    auto *pipeline = qobject_cast<PipelineWorkspace *>(window.workspace(QStringLiteral("pipeline")));
    QObject::connect(
        pipeline, &PipelineWorkspace::pipelineDisplayed, pipeline,
        [pipeline, options, done] {
            const auto &stages = pipeline->summary()->stages;
            bool selected = !options.stage.isEmpty() && pipeline->selectStage(options.stage);
            if (!options.stage.isEmpty() && !selected) {
                done.failed(QStringLiteral("%1 has no stage %2").arg(pipeline->currentPipeline(), options.stage));
                return;
            }
            // Otherwise a stage in the middle of the graph, not an input, so the heatmap has features to show.
            for (size_t i = stages.size() / 2; i < stages.size() && !selected; ++i)
                if (!stages[i].isInput) {
                    pipeline->selectStage(static_cast<int>(i));
                    selected = true;
                }
            if (options.bench.isEmpty() || !options.run) {
                done.ready();
                return;
            }
            BenchmarkPanel *panel = pipeline->benchmarkPanel();
            QObject::connect(
                panel, &BenchmarkPanel::finished, pipeline, [done](const BenchmarkOutcome &) { done.ready(); },
                Qt::SingleShotConnection);
            panel->setTarget(options.bench);
            panel->setRepetitions(5);
            panel->run();
        },
        Qt::SingleShotConnection);
    QObject::connect(pipeline, &PipelineWorkspace::pipelineFailed, pipeline,
                     [done](const QString &, const QString &error) { done.failed(error); });
    pipeline->showPipeline(options.app.isEmpty() ? QStringLiteral("camera_pipe") : options.app);
}

#else

void setUpSearchScene(MainWindow &, const ExplorerOptions &, const SceneCallbacks &done)
{
    done.failed(QStringLiteral("this explorer was built without Halide (no Search workspace)"));
}

void setUpPipelineScene(MainWindow &, const ExplorerOptions &, const SceneCallbacks &done)
{
    done.failed(QStringLiteral("this explorer was built without Halide (no Pipeline workspace)"));
}

#endif

} // namespace beamscope::app
