// beamscope: the explorer.
//
//   beamscope [--weights-dir DIR]... [FILE.weights | DIR | TRACE]...
//   beamscope --compare A.weights B.weights
//   beamscope --workspace NAME [--app A | --trace FILE | --weights W | --samples DIR ...] [--run]
//             [--screenshot FILE.png] [--size WxH]
//
// The library scans the project's weights/ folder, every --weights-dir, the
// folders in BEAMSCOPE_WEIGHTS_PATH (colon-separated), the folders added in the
// window (remembered), and recently opened files. `beamscope --help` lists the
// options of each workspace (explorer_options.cpp); startup_scene_*.cpp set the
// workspace up; --screenshot saves the window once that is shown (screenshot.h).

#include "app/gui/explorer_options.h"
#include "app/gui/screenshot.h"
#include "app/gui/startup_scene.h"
#include "ui/common/app_settings.h"
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

// The project's weights/ folder: next to the executable when installed
// (share/beamscope/weights), else the source tree the executable was built from.
QStringList projectWeightsFolders()
{
    QStringList folders;
    const QDir exe(QCoreApplication::applicationDirPath());
    for (const QString &relative : {QStringLiteral("../share/beamscope/weights"), QStringLiteral("weights")})
        if (QFileInfo(exe.filePath(relative)).isDir())
            folders.append(QDir::cleanPath(exe.filePath(relative)));
#ifdef BEAMSCOPE_SOURCE_DIR
    const QString source = QStringLiteral(BEAMSCOPE_SOURCE_DIR "/weights");
    if (QFileInfo(source).isDir())
        folders.append(source);
#endif
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
// The built-in default: a fresh clone has no weights to show, so rather than
// the Weights start page the explorer opens a built-in app's DAG and features.
void openPipelineWhenNoWeights(MainWindow &window)
{
    auto *weights = qobject_cast<WeightsWorkspace *>(window.workspace(QStringLiteral("weights")));
    if (!weights)
        return;
    QObject::connect(weights, &WeightsWorkspace::libraryScanned, &window, [&window, weights] {
        if (!weights->startPageShown())
            return;
        auto *pipeline = qobject_cast<PipelineWorkspace *>(window.workspace(QStringLiteral("pipeline")));
        if (!pipeline)
            return;
        window.setCurrentWorkspace(QStringLiteral("pipeline"));
        // Select the output stage so its feature heatmap is filled in.
        QObject::connect(pipeline, &PipelineWorkspace::pipelineDisplayed, pipeline,
                         [pipeline] { pipeline->selectStage(0); }, Qt::SingleShotConnection);
        pipeline->showPipeline(QStringLiteral("camera_pipe"));
    }, Qt::SingleShotConnection);
}
#endif

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Beamscope"));
    QApplication::setApplicationName(QStringLiteral("beamscope"));
    QApplication::setApplicationDisplayName(QStringLiteral("Beamscope"));
    QApplication::setApplicationVersion(QStringLiteral(BEAMSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("beamscope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/beamscope.svg")));

    QString usageError;
    const std::optional<ExplorerOptions> parsed = parseExplorerOptions(app, &usageError);
    if (!parsed) {
        std::fprintf(stderr, "beamscope: %s (see beamscope --help)\n", qPrintable(usageError));
        return 2;
    }
    const ExplorerOptions &options = *parsed;

    std::unique_ptr<QTemporaryDir> freshSettings;
    if (options.screenshotMode())
        freshSettings = useFreshSettings();

    AppSettings settings;
    if (options.screenshotMode())
        settings.setRememberLayout(false);
    QStringList sessionFolders = projectWeightsFolders();
    sessionFolders += options.weightsDirs;
    sessionFolders += environmentFolders();
    // Folders named on the command line join the library for this run; files
    // (and legacy weights directories) are opened once the window is up.
    QStringList paths;
    for (const QString &path : options.paths) {
        if (QFileInfo(path).isDir() && !isLegacyWeightsDirectory(path) && !options.compare)
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
