// The one place that lists the main window's workspaces.
//
// To add a workspace: derive a class from Workspace (ui/mainwindow/workspace.h),
// include its header here and add ONE line to the list below:
//     {id, title, icon resource, tool tip, factory}
// The side bar, settings keys, drag and drop and File > Open routing follow
// from that line. (A central list rather than self-registering statics because
// beamscope_ui is a static library, where an unreferenced registration object
// would be dropped by the linker.)
//
// A workspace that needs Halide (core/pipelines, core/search, ...) lives in a
// folder named in ui/CMakeLists.txt's ui_halide_folders, and its #include and
// its line go inside #if BEAMSCOPE_HAVE_HALIDE, so the explorer still builds
// (without that workspace) where Halide 14 is not installed.

#include "ui/mainwindow/workspace.h"

#include "ui/device/device_workspace.h"
#include "ui/predictions/predictions_workspace.h"
#include "ui/retrain/retrain_workspace.h"
#include "ui/weights/weights_workspace.h"
#if BEAMSCOPE_HAVE_HALIDE
#include "ui/autotune/autotune_workspace.h"
#include "ui/pipeline/pipeline_workspace.h"
#include "ui/search/search_workspace.h"
#endif

#include <QCoreApplication>

namespace beamscope::ui {

template <typename W>
static Workspace *make(AppSettings &settings, QWidget *parent)
{
    return new W(settings, parent);
}

std::vector<WorkspaceRegistration> registeredWorkspaces()
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("Workspaces", text); };
    return
    {
        {QStringLiteral("weights"), tr("Weights"), QStringLiteral(":/icons/weights.svg"),
         tr("Inspect, compare and convert cost-model weights"), make<WeightsWorkspace>},
            {QStringLiteral("predictions"), tr("Predictions"), QStringLiteral(":/icons/predictions.svg"),
             tr("Predicted cost against measured runtime, per pipeline, for one or two weights files"),
             make<PredictionsWorkspace>},
#if BEAMSCOPE_HAVE_HALIDE
            // Before Retrain, so that an autotune folder opens here rather than as a plain sample folder.
            {QStringLiteral("autotune"), tr("Autotune"), QStringLiteral(":/icons/autotune.svg"),
             tr("Search, compile and measure schedules on the local device, write samples and retrain: Halide's "
                "autotune loop"),
             make<AutotuneWorkspace>},
#endif
            {QStringLiteral("retrain"), tr("Retrain"), QStringLiteral(":/icons/retrain.svg"),
             tr("Train the cost model on samples measured on your GPU"), make<RetrainWorkspace>},
#if BEAMSCOPE_HAVE_HALIDE
            {QStringLiteral("search"), tr("Search"), QStringLiteral(":/icons/beamscope.svg"),
             tr("Run the GPU beam search and walk its tree: decisions, loop nests, features and cost terms of every "
                "state"),
             make<SearchWorkspace>},
            {QStringLiteral("pipeline"), tr("Pipeline"), QStringLiteral(":/icons/pipeline.svg"),
             tr("A pipeline's stages as a graph, each stage's 40 x 7 pipeline features, and its runtime on a target"),
             make<PipelineWorkspace>},
#endif
            {QStringLiteral("device"), tr("Device"), QStringLiteral(":/icons/device.svg"),
             tr("The local GPU beside the V100 (or another reference profile) and the search parameters each implies"),
             make<DeviceWorkspace>},
    };
}

} // namespace beamscope::ui
