// The Retrain and Predictions workspaces at start.

#include "app/gui/startup_scene.h"

#include "ui/common/app_settings.h"
#include "ui/common/weights_combo_box.h"
#include "ui/mainwindow/main_window.h"
#include "ui/predictions/predictions_workspace.h"
#include "ui/retrain/retrain_workspace.h"

#include <QPushButton>
#include <QTimer>

#include <functional>
#include <memory>

namespace beamscope::app {

using namespace beamscope::ui;

void setUpRetrainScene(MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done)
{
    auto *retrain = qobject_cast<RetrainWorkspace *>(window.workspace(QStringLiteral("retrain")));
    if (!options.samples.isEmpty())
        retrain->addSampleFolder(options.samples);
    if (!options.weights.isEmpty())
        retrain->setInitialWeights(options.weights);
    if (options.epochs)
        retrain->setEpochs(*options.epochs);
    if (options.learningRate)
        retrain->setLearningRate(*options.learningRate);
    if (!options.output.isEmpty())
        retrain->setOutput(options.output);
    if (options.screenshotMode()) {
        // Reproducible figures: the seed and core count of the documentation's pictures.
        retrain->setSeed(1);
        retrain->setNumCores(80);
    }
    if (!options.run) {
        done.ready();
        return;
    }
    QObject::connect(
        retrain, &RetrainWorkspace::runFinished, retrain,
        [retrain, done] {
            const auto &outcome = retrain->lastOutcome();
            if (outcome && outcome->ok)
                done.ready();
            else
                done.failed(QStringLiteral("training failed: %1").arg(outcome ? outcome->error : QStringLiteral("?")));
        },
        Qt::SingleShotConnection);
    // Start once the form has read the folders and the library (and the held-out app is offered).
    auto startWhenReady = std::make_shared<std::function<void()>>();
    *startWhenReady = [retrain, options, startWhenReady] {
        if (retrain->foldersPending() || retrain->initialWeightsBox()->scanPending() ||
            !retrain->startButton()->isEnabled()) {
            QTimer::singleShot(100, retrain, *startWhenReady);
            return;
        }
        if (!options.holdOut.isEmpty())
            retrain->setHoldOutApp(options.holdOut);
        retrain->start();
    };
    QTimer::singleShot(300, retrain, *startWhenReady);
}

void setUpPredictionsScene(MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done)
{
    auto *predictions = qobject_cast<PredictionsWorkspace *>(window.workspace(QStringLiteral("predictions")));
    // The workspace evaluates after each change (debounced); the scene is ready once nothing more is coming.
    QObject::connect(predictions, &PredictionsWorkspace::evaluated, predictions, [predictions, done] {
        if (predictions->isIdle())
            done.ready();
    });
    if (!options.samples.isEmpty())
        predictions->addSampleFolder(options.samples);
    if (options.compare) {
        predictions->setWeights(options.paths[0]);
        predictions->setComparisonWeights(options.paths[1]);
    } else if (!options.weights.isEmpty()) {
        predictions->setWeights(options.weights);
    }
}

} // namespace beamscope::app
