#include "app/gui/startup_scene.h"

#include "ui/mainwindow/main_window.h"

#include <map>

namespace beamscope::app {

bool setUpScene(ui::MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done)
{
    using SetUp = void (*)(ui::MainWindow &, const ExplorerOptions &, const SceneCallbacks &);
    static const std::map<QString, SetUp> scenes = {
        {QStringLiteral("weights"), setUpWeightsScene},   {QStringLiteral("search"), setUpSearchScene},
        {QStringLiteral("pipeline"), setUpPipelineScene}, {QStringLiteral("device"), setUpDeviceScene},
        {QStringLiteral("retrain"), setUpRetrainScene},   {QStringLiteral("predictions"), setUpPredictionsScene},
        {QStringLiteral("autotune"), setUpAutotuneScene},
    };
    const auto scene = scenes.find(options.workspace);
    if (scene == scenes.end() || !window.workspace(options.workspace))
        return false;
    window.setCurrentWorkspace(options.workspace);
    scene->second(window, options, done);
    return true;
}

} // namespace beamscope::app
