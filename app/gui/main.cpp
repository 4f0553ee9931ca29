// beamscope: the explorer.
//
//   beamscope [--weights-dir DIR]... [FILE.weights | DIR | TRACE]...
//   beamscope --compare A.weights B.weights
//   beamscope --workspace NAME [--app A | --trace FILE | --weights W | --samples DIR ...] [--run]
//             [--screenshot FILE.png] [--size WxH]
//
// The library scans the shipped weights, every --weights-dir, the folders in
// BEAMSCOPE_WEIGHTS_PATH (colon-separated), the folders added in the window
// (remembered), and recently opened files. The first start (fresh settings, no
// arguments) runs a search on a built-in app with its hold-one-out weights. `beamscope --help` lists the
// options of each workspace (explorer_options.cpp); startup_scene_*.cpp set the
// workspace up; --screenshot saves the window once that is shown (screenshot.h).

#include "app/gui/explorer_options.h"
#include "app/gui/screenshot.h"
#include "app/gui/startup_scene.h"
#include "core/study/study_report.h"
#include "core/weights/shipped_weights.h"
#include "ui/common/app_settings.h"
#include "ui/common/export_menus.h"
#include "ui/common/wheel_guard.h"
#include "ui/mainwindow/main_window.h"
#include "ui/weights/weights_library.h"
#include "ui/weights/weights_workspace.h"
#if BEAMSCOPE_HAVE_HALIDE
#include "ui/pipeline/pipeline_workspace.h"
#endif

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QIcon>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include <cstdio>

using namespace beamscope::ui;
using namespace beamscope::app;

namespace {

// The shipped weights (core/weights/shipped_weights.h: beside the installed
// program, or the source tree's weights/ in a build), so the library lists them.
QStringList shippedFolders()
{
    QStringList folders;
    for (const std::filesystem::path &folder : beamscope::weights::shippedWeightsFolders())
        folders.append(QString::fromStdString(folder.string()));
    return folders;
}

QStringList environmentFolders()
{
    const QString value = QProcessEnvironment::systemEnvironment().value(QStringLiteral("BEAMSCOPE_WEIGHTS_PATH"));
    QStringList folders;
    for (const QString &part : value.split(QLatin1Char(':'), Qt::SkipEmptyParts))
        folders.append(part);
    return folders;
}

#if BEAMSCOPE_HAVE_HALIDE
// The first start (fresh settings, nothing asked on the command line): a
// finished search to look at. bilateral_grid at beam 4 and two passes takes a
// few seconds on two cores (every root Func gets all of Halide's tilings, so the
// default beam 8 and five passes would make a new user wait half a minute), and
// its hold-one-out weights were trained without it, so the costs are the
// shipped model's honest view of an app it has not seen.
bool defaultSearchScene(ExplorerOptions &scene)
{
    const QString app = QStringLiteral("bilateral_grid");
    const auto weights = beamscope::weights::holdOneOutWeightsFor(app.toStdString());
    if (!weights)
        return false;
    scene.workspace = QStringLiteral("search");
    scene.app = app;
    scene.weights = QString::fromStdString(weights->string());
    scene.run = true;
    if (!scene.beam)
        scene.beam = 4;
    if (!scene.passes)
        scene.passes = 2;
    if (scene.tab.isEmpty())
        scene.tab = QStringLiteral("cost");
    return true;
}

// Without shipped weights (a build whose weights/ folder is missing) there is
// no search to show: a built-in app's DAG and features instead.
void openPipelineWhenNoWeights(MainWindow &window)
{
    auto *weights = qobject_cast<WeightsWorkspace *>(window.workspace(QStringLiteral("weights")));
    if (!weights)
        return;
    QObject::connect(
        weights, &WeightsWorkspace::libraryScanned, &window,
        [&window, weights] {
            if (!weights->startPageShown())
                return;
            auto *pipeline = qobject_cast<PipelineWorkspace *>(window.workspace(QStringLiteral("pipeline")));
            if (!pipeline)
                return;
            window.setCurrentWorkspace(QStringLiteral("pipeline"));
            // Select the output stage so its feature heatmap is filled in.
            QObject::connect(
                pipeline, &PipelineWorkspace::pipelineDisplayed, pipeline, [pipeline] { pipeline->selectStage(0); },
                Qt::SingleShotConnection);
            pipeline->showPipeline(QStringLiteral("camera_pipe"));
        },
        Qt::SingleShotConnection);
}
#endif

void setApplicationNames()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Beamscope"));
    QCoreApplication::setApplicationName(QStringLiteral("beamscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(BEAMSCOPE_VERSION));
}

// Reads the command line before any window system is touched, so --help,
// --version and usage errors work without a display (over ssh, in scripts).
std::optional<ExplorerOptions> parseWithoutDisplay(int argc, char **argv, int *exitCode)
{
    QCoreApplication app(argc, argv);
    setApplicationNames();
    QString usageError;
    std::optional<ExplorerOptions> parsed = parseExplorerOptions(app, &usageError); // exits on --help / --version
    if (!parsed) {
        std::fprintf(stderr, "beamscope: %s (see beamscope --help)\n", qPrintable(usageError));
        *exitCode = 2;
    }
    return parsed;
}

} // namespace

int main(int argc, char **argv)
{
    int usageExit = 0;
    const std::optional<ExplorerOptions> parsed = parseWithoutDisplay(argc, argv, &usageExit);
    if (!parsed)
        return usageExit;
    const ExplorerOptions &options = *parsed;

    QApplication app(argc, argv);
    setApplicationNames();
    QApplication::setApplicationDisplayName(QStringLiteral("Beamscope"));
    QApplication::setDesktopFileName(QStringLiteral("beamscope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/beamscope.svg")));
    beamscope::ui::WheelGuard::installOnApplication();  // a scrolled form never changes a setting
    beamscope::ui::ExportMenus::installOnApplication(); // every table to CSV/JSON, every chart to PNG/SVG

    std::unique_ptr<QTemporaryDir> freshSettings;
    if (options.screenshotMode())
        freshSettings = useFreshSettings();

    AppSettings settings;
    if (options.screenshotMode())
        settings.setRememberLayout(false);
    QStringList sessionFolders = shippedFolders();
    sessionFolders += options.weightsDirs;
    sessionFolders += environmentFolders();
    // Folders named on the command line join the library for this run; files
    // (and legacy weights directories) are opened once the window is up.
    QStringList paths;
    for (const QString &path : options.paths) {
        // A device study is a folder of the Device workspace's own, not one for the weights library.
        if (QFileInfo(path).isDir() && !isLegacyWeightsDirectory(path) && !options.compare &&
            !beamscope::study::isStudyFolder(path.toStdString()))
            sessionFolders.append(path);
        else
            paths.append(path);
    }
    settings.setSessionFolders(sessionFolders);

    MainWindow window(settings);
    if (options.size.isValid())
        window.resize(options.size);

    SceneCallbacks done;
    if (options.screenshotMode()) {
        done = screenshotWhenReady(window, options.screenshot, options.size, options.timeoutSeconds);
    } else {
        done.ready = [] {};
        done.failed = [](const QString &error) { std::fprintf(stderr, "beamscope: %s\n", qPrintable(error)); };
    }

    ExplorerOptions scene = options;
    scene.paths = paths;
    // Nothing asked and nothing remembered (the first start, or a screenshot of
    // it): the default search. Settings are read before the window saves any.
    const bool nothingAsked = scene.workspace.isEmpty() && options.paths.isEmpty() && !options.compare &&
                              options.tensor.isEmpty() && options.weightsDirs.isEmpty();
    const bool firstStart = settings.currentWorkspace().isEmpty();
#if BEAMSCOPE_HAVE_HALIDE
    if (nothingAsked && (firstStart || options.screenshotMode()))
        defaultSearchScene(scene);
#endif
    // The Weights workspace is the scene when a screenshot, a comparison or a tensor asks for no other.
    if (scene.workspace.isEmpty() && (options.screenshotMode() || options.compare || !options.tensor.isEmpty()))
        scene.workspace = QStringLiteral("weights");
    window.show();
    if (!scene.workspace.isEmpty()) {
        if (!setUpScene(window, scene, done)) {
            std::fprintf(stderr, "beamscope: no workspace \"%s\" in this build (%s)\n", qPrintable(scene.workspace),
                         qPrintable(window.workspaceIds().join(QStringLiteral(", "))));
            return 2;
        }
    } else {
        for (const QString &path : paths)
            window.openPath(path);
#if BEAMSCOPE_HAVE_HALIDE
        if (paths.isEmpty())
            openPipelineWhenNoWeights(window);
#endif
    }
    return app.exec();
}
