// Documentation screenshots of the Retrain and Predictions workspaces in the
// explorer's real main window (not a test; run it under Xvfb or offscreen):
//
//   beamscope-model-screenshots --samples DIR --initial W --out-dir D
//       [--weights A.weights --compare B.weights] [--epochs N] [--hold-out APP] [--size WxH]
//
// It trains --initial on --samples for a few epochs in the Retrain workspace
// and grabs D/retrain.png, then shows --weights (default --initial) and, side
// by side, --compare (default: the file just trained) over the same samples in
// the Predictions workspace and grabs D/predictions.png. Settings are fresh
// and the trained file goes to a temporary folder, so nothing of the user's
// changes.

#include "ui/common/app_settings.h"
#include "ui/common/weights_combo_box.h"
#include "ui/mainwindow/main_window.h"
#include "ui/predictions/predictions_workspace.h"
#include "ui/retrain/retrain_workspace.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <memory>

using namespace beamscope::ui;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Beamscope"));
    QApplication::setApplicationName(QStringLiteral("beamscope-screenshots"));
    QApplication::setApplicationDisplayName(QStringLiteral("Beamscope"));
    QStandardPaths::setTestModeEnabled(true); // the trained file lands in a test location, not the user's
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption samplesOpt(QStringLiteral("samples"), QStringLiteral("Sample folder."), QStringLiteral("DIR"));
    const QCommandLineOption initialOpt(QStringLiteral("initial"), QStringLiteral("Initial weights."), QStringLiteral("W"));
    const QCommandLineOption weightsOpt(QStringLiteral("weights"), QStringLiteral("Weights for predictions."), QStringLiteral("W"));
    const QCommandLineOption compareOpt(QStringLiteral("compare"), QStringLiteral("Second weights."), QStringLiteral("W"));
    const QCommandLineOption outOpt(QStringLiteral("out-dir"), QStringLiteral("Where the PNGs go."), QStringLiteral("D"));
    const QCommandLineOption epochsOpt(QStringLiteral("epochs"), QStringLiteral("Epochs."), QStringLiteral("N"), QStringLiteral("8"));
    const QCommandLineOption rateOpt(QStringLiteral("learning-rate"), QStringLiteral("Rate."), QStringLiteral("R"), QStringLiteral("0.001"));
    const QCommandLineOption sizeOpt(QStringLiteral("size"), QStringLiteral("Window size."), QStringLiteral("WxH"), QStringLiteral("1500x920"));
    const QCommandLineOption libraryOpt(QStringLiteral("weights-dir"), QStringLiteral("Library folder."), QStringLiteral("DIR"));
    const QCommandLineOption holdOutOpt(QStringLiteral("hold-out"), QStringLiteral("Held-out app."), QStringLiteral("APP"));
    parser.addOptions({holdOutOpt, samplesOpt, initialOpt, weightsOpt, compareOpt, outOpt, epochsOpt, rateOpt, sizeOpt, libraryOpt});
    parser.process(app);
    if (!parser.isSet(samplesOpt) || !parser.isSet(initialOpt) || !parser.isSet(outOpt)) {
        std::fprintf(stderr, "usage: --samples DIR --initial W --out-dir D [--weights A] [--compare B]\n");
        return 2;
    }
    QTemporaryDir settingsDir;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    QDir(AppSettings::trainedWeightsFolder()).removeRecursively();

    AppSettings settings;
    settings.setRememberLayout(false);
    settings.setSessionFolders(parser.values(libraryOpt));
    MainWindow window(settings);
    const QStringList wh = parser.value(sizeOpt).split(QLatin1Char('x'));
    window.resize(wh.value(0).toInt(), wh.value(1).toInt());
    auto *retrain = qobject_cast<RetrainWorkspace *>(window.workspace(QStringLiteral("retrain")));
    auto *predictions = qobject_cast<PredictionsWorkspace *>(window.workspace(QStringLiteral("predictions")));
    if (!retrain || !predictions) {
        std::fprintf(stderr, "the Retrain and Predictions workspaces are not registered\n");
        return 1;
    }
    const QString outDir = parser.value(outOpt);
    QDir().mkpath(outDir);
    const QString samples = parser.value(samplesOpt);
    auto save = [&window](const QString &file) {
        const bool ok = window.grab().save(file);
        std::fprintf(stderr, "%s %s\n", ok ? "saved" : "could not save", qPrintable(file));
        return ok;
    };

    window.setCurrentWorkspace(QStringLiteral("retrain"));
    window.show();
    retrain->addSampleFolder(samples);
    retrain->setInitialWeights(parser.value(initialOpt));
    retrain->setEpochs(parser.value(epochsOpt).toInt());
    retrain->setLearningRate(parser.value(rateOpt).toDouble());
    retrain->setSeed(1);
    retrain->setNumCores(80);
    retrain->setOutput(AppSettings::trainedWeightsFolder() + QStringLiteral("/retrained-locally.weights"));

    QObject::connect(retrain, &RetrainWorkspace::runFinished, &window, [&] {
        if (!retrain->lastOutcome() || !retrain->lastOutcome()->ok) {
            std::fprintf(stderr, "training failed: %s\n",
                         retrain->lastOutcome() ? qPrintable(retrain->lastOutcome()->error) : "?");
            QCoreApplication::exit(1);
            return;
        }
        const QString trained = retrain->lastOutcome()->output;
        QTimer::singleShot(800, &window, [&, trained] {
            if (!save(outDir + QStringLiteral("/retrain.png"))) {
                QCoreApplication::exit(1);
                return;
            }
            window.setCurrentWorkspace(QStringLiteral("predictions"));
            QObject::connect(predictions, &PredictionsWorkspace::evaluated, &window, [&] {
                if (!predictions->isIdle())
                    return; // a newer evaluation is on its way
                QTimer::singleShot(800, &window, [&] {
                    if (predictions->isIdle())
                        QCoreApplication::exit(save(outDir + QStringLiteral("/predictions.png")) ? 0 : 1);
                });
            });
            predictions->addSampleFolder(samples);
            predictions->setWeights(parser.isSet(weightsOpt) ? parser.value(weightsOpt) : parser.value(initialOpt));
            predictions->setComparisonWeights(parser.isSet(compareOpt) ? parser.value(compareOpt) : trained);
        });
    });
    // Start once the form has read the folders and the library.
    auto startWhenReady = std::make_shared<std::function<void()>>();
    *startWhenReady = [&, startWhenReady] {
        if (retrain->foldersPending() || retrain->initialWeightsBox()->scanPending() ||
            !retrain->startButton()->isEnabled()) {
            QTimer::singleShot(100, &window, *startWhenReady);
            return;
        }
        QTimer::singleShot(300, &window, [&] {
            if (parser.isSet(holdOutOpt))
                retrain->setHoldOutApp(parser.value(holdOutOpt));
            retrain->start();
        });
    };
    QTimer::singleShot(300, &window, *startWhenReady);
    QTimer::singleShot(300000, &window, [] {
        std::fprintf(stderr, "timed out\n");
        QCoreApplication::exit(1);
    });
    return app.exec();
}
