#pragma once
// What the explorer shows at start when the command line asks for it: one
// function per workspace puts the workspace in the state the options describe
// (an app's search or trace with a state selected, a pipeline with a stage and
// a benchmark, a training run, ...) and calls `ready` once that is on screen,
// or `failed` with the reason. The screenshot mode grabs the window on `ready`;
// interactively nothing more happens.

#include "app/gui/explorer_options.h"

#include <functional>

namespace beamscope::ui {
class MainWindow;
}

namespace beamscope::app {

struct SceneCallbacks {
    std::function<void()> ready;
    std::function<void(const QString &error)> failed;
};

// Shows options.workspace and sets it up; false (nothing set up) when no
// workspace of that name is registered in this build.
bool setUpScene(ui::MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done);

// One per workspace (startup_scene_*.cpp); the workspace is already current.
void setUpWeightsScene(ui::MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done);
void setUpSearchScene(ui::MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done);
void setUpPipelineScene(ui::MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done);
void setUpDeviceScene(ui::MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done);
void setUpRetrainScene(ui::MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done);
void setUpPredictionsScene(ui::MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done);
void setUpAutotuneScene(ui::MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done);

} // namespace beamscope::app
