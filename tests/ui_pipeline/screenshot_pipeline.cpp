// beamscope-screenshots-pipeline: opens the explorer's main window on the
// Pipeline workspace (an app with a stage selected) and then the Device
// panel, and saves each as a PNG for the documentation:
//
//   xvfb-run -s "-screen 0 1600x1000x24" build/.../beamscope-screenshots-pipeline
//       --out docs/screenshots [--app local_laplacian] [--stage NAME] [--size 1600x1000]
//       [--bench host|opencl|cuda]   (times the pipeline first, so the result shows)
//
// Fresh settings (a temporary folder), so the pictures do not depend on what
// this user's explorer remembers.

#include "ui/common/app_settings.h"
#include "ui/device/device_workspace.h"
#include "ui/mainwindow/main_window.h"
#include "ui/pipeline/benchmark_panel.h"
#include "ui/pipeline/pipeline_workspace.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>

using namespace beamscope::ui;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Beamscope"));
    QApplication::setApplicationName(QStringLiteral("beamscope"));
    QApplication::setApplicationDisplayName(QStringLiteral("Beamscope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/beamscope.svg")));
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption out(QStringLiteral("out"), QStringLiteral("Folder for pipeline.png and device.png."),
                                 QStringLiteral("DIR"), QStringLiteral("."));
    const QCommandLineOption appName(QStringLiteral("app"), QStringLiteral("Pipeline to show."), QStringLiteral("NAME"),
                                     QStringLiteral("local_laplacian"));
    const QCommandLineOption stage(QStringLiteral("stage"), QStringLiteral("Stage to select (default: the middle one)."),
                                   QStringLiteral("NAME"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size."), QStringLiteral("WxH"),
                                  QStringLiteral("1600x1000"));
    const QCommandLineOption bench(QStringLiteral("bench"), QStringLiteral("Run the benchmark on TARGET before grabbing."),
                                   QStringLiteral("TARGET"));
    parser.addOptions({out, appName, stage, size, bench});
    parser.process(app);

    QTemporaryDir settingsDir;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    AppSettings settings;
    settings.setRememberLayout(false);
    MainWindow window(settings);
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    if (wh.size() == 2)
        window.resize(wh[0].toInt(), wh[1].toInt());
    auto *pipeline = qobject_cast<PipelineWorkspace *>(window.workspace(QStringLiteral("pipeline")));
    auto *device = qobject_cast<DeviceWorkspace *>(window.workspace(QStringLiteral("device")));
    if (!pipeline || !device) {
        std::fprintf(stderr, "beamscope-screenshots-pipeline: the pipeline or device workspace is not registered\n");
        return 1;
    }
    const QDir dir(parser.value(out));
    const auto save = [&window, dir](const QString &name) {
        const QString file = dir.filePath(name);
        const bool ok = window.grab().save(file);
        std::fprintf(stderr, "%s %s\n", ok ? "saved" : "could not save", qPrintable(file));
        return ok;
    };

    QObject::connect(device, &DeviceWorkspace::deviceQueried, &window, [&] {
        QTimer::singleShot(500, &window, [&] { QCoreApplication::exit(save(QStringLiteral("device.png")) ? 0 : 1); });
    });
    QObject::connect(pipeline, &PipelineWorkspace::pipelineDisplayed, &window, [&] {
        const auto &stages = pipeline->summary()->stages;
        bool selected = false;
        if (parser.isSet(stage))
            selected = pipeline->selectStage(parser.value(stage));
        if (!selected) // a stage in the middle of the graph, not an input
            for (size_t i = stages.size() / 2; i < stages.size() && !selected; ++i)
                if (!stages[i].isInput) {
                    pipeline->selectStage(static_cast<int>(i));
                    selected = true;
                }
        const auto grabPipeline = [&] {
            QTimer::singleShot(800, &window, [&] {
                if (!save(QStringLiteral("pipeline.png")))
                    QCoreApplication::exit(1);
                window.setCurrentWorkspace(QStringLiteral("device"));
            });
        };
        if (!parser.isSet(bench)) {
            grabPipeline();
            return;
        }
        BenchmarkPanel *panel = pipeline->benchmarkPanel();
        QObject::connect(panel, &BenchmarkPanel::finished, &window, grabPipeline, Qt::SingleShotConnection);
        panel->setTarget(parser.value(bench));
        panel->setRepetitions(5);
        panel->run();
    });
    QObject::connect(pipeline, &PipelineWorkspace::pipelineFailed, &window, [](const QString &, const QString &error) {
        std::fprintf(stderr, "beamscope-screenshots-pipeline: %s\n", qPrintable(error));
        QCoreApplication::exit(1);
    });
    window.setCurrentWorkspace(QStringLiteral("pipeline"));
    window.show();
    pipeline->showPipeline(parser.value(appName));
    QTimer::singleShot(120000, &window, [] {
        std::fprintf(stderr, "beamscope-screenshots-pipeline: nothing shown within 120 s\n");
        QCoreApplication::exit(1);
    });
    return app.exec();
}
