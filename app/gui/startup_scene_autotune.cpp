// The Autotune workspace at start (it exists only in builds with Halide):
// --samples DIR opens an autotune folder; --app A --output DIR [--run] sets
// up (and starts) a run of that app into DIR; --tab WORD shows the chart page
// whose title holds it ("batches").

#include "app/gui/startup_scene.h"

#include "ui/mainwindow/main_window.h"

#if BEAMSCOPE_HAVE_HALIDE
#include "ui/autotune/autotune_workspace.h"

#include <QLabel>
#include <QTabWidget>
#endif

namespace beamscope::app {

using namespace beamscope::ui;

#if BEAMSCOPE_HAVE_HALIDE
void setUpAutotuneScene(MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done)
{
    auto *autotune = qobject_cast<AutotuneWorkspace *>(window.workspace(QStringLiteral("autotune")));
    if (!options.samples.isEmpty()) {
        if (!autotune->canOpen(options.samples)) {
            done.failed(
                QStringLiteral("%1 is not an autotune output folder (no manifest.json of one)").arg(options.samples));
            return;
        }
        autotune->open(options.samples);
    }
    // --tab: the chart page whose title holds the word ("batches", "runtimes").
    if (!options.tab.isEmpty()) {
        QTabWidget *pages = autotune->chartPages();
        int found = -1;
        for (int i = 0; i < pages->count() && found < 0; i++)
            if (pages->tabText(i).contains(options.tab, Qt::CaseInsensitive))
                found = i;
        if (found < 0) {
            done.failed(QStringLiteral("no chart page \"%1\" in the Autotune workspace").arg(options.tab));
            return;
        }
        pages->setCurrentIndex(found);
    }
    if (!options.app.isEmpty())
        autotune->setApps(options.app.split(QLatin1Char(',')));
    if (!options.output.isEmpty())
        autotune->setOutputFolder(options.output);
    if (!options.weights.isEmpty())
        autotune->setWeights(options.weights);
    // Nothing to run (no pipelines named): the form as it is is the scene.
    if (!options.run || !options.samples.isEmpty() || options.app.isEmpty()) {
        done.ready();
        return;
    }
    QObject::connect(
        autotune, &AutotuneWorkspace::runFinished, autotune,
        [autotune, done](bool ok) {
            if (ok)
                done.ready();
            else
                done.failed(autotune->statusLabel()->text());
        },
        Qt::SingleShotConnection);
    autotune->start();
    if (!autotune->isRunning() && !autotune->isSlurmRun()) // refused: the status line says why
        done.failed(autotune->statusLabel()->text());
}
#else
void setUpAutotuneScene(MainWindow &, const ExplorerOptions &, const SceneCallbacks &done)
{
    done.failed(QStringLiteral("this build has no Halide, so no Autotune workspace"));
}
#endif

} // namespace beamscope::app
