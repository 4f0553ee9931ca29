// beamscope: the explorer.
//
//   beamscope [--weights-dir DIR]... [FILE.weights | DIR]...
//   beamscope --compare A.weights B.weights
//
// The library scans the project's weights/ folder, every --weights-dir, the
// folders in BEAMSCOPE_WEIGHTS_PATH (colon-separated), the folders added in the
// window (remembered), and recently opened files. --screenshot FILE saves the
// window once a weights file is shown (used for the documentation).

#include "ui/common/app_settings.h"
#include "ui/mainwindow/main_window.h"
#include "ui/weights/diff_view.h"
#include "ui/weights/heatmap_panel.h"
#include "ui/weights/weights_library.h"
#include "ui/weights/weights_workspace.h"
#if BEAMSCOPE_HAVE_HALIDE
#include "ui/pipeline/pipeline_workspace.h"
#endif

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QMouseEvent>
#include <QPointer>
#include <QProcessEnvironment>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>

#include <cmath>
#include <cstdio>
#include <memory>

using namespace beamscope::ui;

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

// Points at the cell with the largest |value| so the picture shows the hover read-out.
void hoverOneCell(HeatmapWidget *heatmap)
{
    const HeatmapGrid &grid = heatmap->grid();
    if (grid.empty())
        return;
    int bestRow = 0, bestColumn = 0;
    for (int r = 0; r < grid.rows; ++r)
        for (int c = 0; c < grid.columns; ++c)
            if (std::abs(grid.at(r, c)) > std::abs(grid.at(bestRow, bestColumn))) {
                bestRow = r;
                bestColumn = c;
            }
    const QPoint at = heatmap->cellRect(bestRow, bestColumn).center();
    QMouseEvent move(QEvent::MouseMove, QPointF(at), QPointF(heatmap->mapToGlobal(at)), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QCoreApplication::sendEvent(heatmap, &move);
}

// Waits for the workspace to show a file (or a comparison), selects the tensor,
// lets layouts and the chart settle, then grabs the window and quits.
void scheduleScreenshot(MainWindow &window, WeightsWorkspace *weights, const QString &file, const QString &tensor,
                        bool comparing)
{
    auto taken = std::make_shared<bool>(false);
    QPointer<MainWindow> guard(&window);
    auto grab = [guard, file, taken](bool onTime) {
        if (*taken || !guard)
            return;
        *taken = true;
        const bool saved = guard->grab().save(file);
        std::fprintf(stderr, "beamscope: %s %s\n", saved ? "saved" : "could not save", qPrintable(file));
        if (!onTime)
            std::fprintf(stderr, "beamscope: nothing was shown within 20 s; the screenshot shows the window as it was\n");
        QCoreApplication::exit(saved && onTime ? 0 : 1);
    };
    if (comparing) {
        QObject::connect(weights, &WeightsWorkspace::comparisonDisplayed, &window, [weights, tensor, grab] {
            DiffView *diff = weights->diffView();
            for (int row = 0; row < static_cast<int>(diff->diff().tensors.size()); ++row)
                if (QString::fromStdString(diff->diff().tensors[row].name) == tensor)
                    diff->selectTensor(row);
            QTimer::singleShot(600, weights, [diff] { hoverOneCell(diff->heatmapPanel()->heatmap()); });
            QTimer::singleShot(900, weights, [grab] { grab(true); });
        });
    } else {
        QObject::connect(weights, &WeightsWorkspace::weightsDisplayed, &window, [weights, tensor, grab] {
            if (!tensor.isEmpty() && !weights->selectTensor(tensor))
                std::fprintf(stderr, "beamscope: no tensor named %s\n", qPrintable(tensor));
            QTimer::singleShot(600, weights, [weights] { hoverOneCell(weights->heatmapPanel()->heatmap()); });
            QTimer::singleShot(900, weights, [grab] { grab(true); });
        });
    }
    QTimer::singleShot(20000, &window, [grab] { grab(false); });
}

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

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Explorer for Halide's learned GPU autoscheduler (Anderson2021).\n"
                       "Library folders also come from BEAMSCOPE_WEIGHTS_PATH (colon-separated)."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption weightsDir(QStringLiteral("weights-dir"),
                                        QStringLiteral("Add DIR to the weights library for this run."),
                                        QStringLiteral("DIR"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Save the window to FILE once weights are shown, then quit "
                                                       "(uses fresh settings, for reproducible pictures)."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption tensor(QStringLiteral("tensor"),
                                    QStringLiteral("Tensor to select first (default head2_filter)."),
                                    QStringLiteral("NAME"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size, e.g. 1500x920."),
                                  QStringLiteral("WxH"));
    const QCommandLineOption compare(QStringLiteral("compare"),
                                     QStringLiteral("Compare the first two paths given (a, then b)."));
    parser.addOptions({weightsDir, screenshot, tensor, size, compare});
    parser.addPositionalArgument(QStringLiteral("paths"), QStringLiteral("Weights files or folders to open."),
                                 QStringLiteral("[FILE.weights|DIR...]"));
    parser.process(app);

    // A screenshot must not depend on what this user's settings remember.
    QTemporaryDir screenshotSettings;
    if (parser.isSet(screenshot)) {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, screenshotSettings.path());
    }

    AppSettings settings;
    if (parser.isSet(screenshot))
        settings.setRememberLayout(false);
    QStringList sessionFolders = projectWeightsFolders();
    sessionFolders += parser.values(weightsDir);
    sessionFolders += environmentFolders();
    // Folders named on the command line join the library for this run; files
    // (and legacy weights directories) are opened once the window is up.
    QStringList paths;
    for (const QString &path : parser.positionalArguments()) {
        if (QFileInfo(path).isDir() && !isLegacyWeightsDirectory(path) && !parser.isSet(compare))
            sessionFolders.append(QFileInfo(path).absoluteFilePath());
        else
            paths.append(QFileInfo(path).absoluteFilePath());
    }
    settings.setSessionFolders(sessionFolders);

    MainWindow window(settings);
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh[0].toInt(), wh[1].toInt());
    }
    auto *weights = qobject_cast<WeightsWorkspace *>(window.workspace(QStringLiteral("weights")));
    if (parser.isSet(screenshot) && weights)
        scheduleScreenshot(window, weights, parser.value(screenshot),
                           parser.isSet(tensor) ? parser.value(tensor) : QStringLiteral("head2_filter"),
                           parser.isSet(compare));
    else if (parser.isSet(tensor) && weights)
        QObject::connect(weights, &WeightsWorkspace::weightsDisplayed, weights,
                         [weights, name = parser.value(tensor)] { weights->selectTensor(name); },
                         Qt::SingleShotConnection);
    window.show();
    if (parser.isSet(compare)) {
        if (paths.size() != 2 || !weights) {
            std::fprintf(stderr, "beamscope: --compare needs exactly two weights paths (a, then b)\n");
            return 2;
        }
        weights->compare(canonicalPath(paths[0]), canonicalPath(paths[1]));
    } else {
        for (const QString &path : paths)
            window.openPath(path);
    }
#if BEAMSCOPE_HAVE_HALIDE
    // The built-in default: a fresh clone has no weights to show, so rather than
    // the Weights start page the explorer opens a built-in app's DAG and features.
    if (weights && paths.isEmpty() && !parser.isSet(screenshot))
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
#endif
    return app.exec();
}
