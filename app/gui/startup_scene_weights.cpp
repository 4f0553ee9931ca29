// The Weights and Device workspaces at start.

#include "app/gui/startup_scene.h"

#include "ui/common/app_settings.h"
#include "ui/device/device_workspace.h"
#include "ui/device/study_panel.h"
#include "ui/device/study_table_model.h"
#include "ui/device/weights_on_samples_panel.h"

#include <QFileInfo>
#include <QLabel>
#include "ui/mainwindow/main_window.h"
#include "ui/weights/diff_view.h"
#include "ui/weights/heatmap_panel.h"
#include "ui/weights/weights_workspace.h"

#include <QCoreApplication>
#include <QMouseEvent>
#include <QTimer>

#include <cmath>

namespace beamscope::app {

using namespace beamscope::ui;

namespace {

// Points at the cell with the largest |value| so a picture shows the hover read-out.
void hoverLargestCell(HeatmapWidget *heatmap)
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

} // namespace

void setUpWeightsScene(MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done)
{
    auto *weights = qobject_cast<WeightsWorkspace *>(window.workspace(QStringLiteral("weights")));
    const QString tensor = options.tensor.isEmpty() ? QStringLiteral("head2_filter") : options.tensor;
    const bool hover = options.screenshotMode();
    if (options.compare) {
        QObject::connect(
            weights, &WeightsWorkspace::comparisonDisplayed, weights,
            [weights, tensor, hover, done] {
                DiffView *diff = weights->diffView();
                for (int row = 0; row < static_cast<int>(diff->diff().tensors.size()); ++row)
                    if (QString::fromStdString(diff->diff().tensors[row].name) == tensor)
                        diff->selectTensor(row);
                if (hover) // after the layout settled, so the cell is where it is drawn
                    QTimer::singleShot(600, weights, [diff] { hoverLargestCell(diff->heatmapPanel()->heatmap()); });
                done.ready();
            },
            Qt::SingleShotConnection);
        weights->compare(canonicalPath(options.paths[0]), canonicalPath(options.paths[1]));
        return;
    }
    const bool tensorAsked = !options.tensor.isEmpty();
    QObject::connect(
        weights, &WeightsWorkspace::weightsDisplayed, weights,
        [weights, tensor, tensorAsked, hover, done] {
            if (!weights->selectTensor(tensor)) {
                // A file without the default tensor (an invalid one) is pictured as shown, its errors and
                // all; only a tensor asked for by name must be there.
                if (tensorAsked)
                    done.failed(QStringLiteral("no tensor named %1").arg(tensor));
                else
                    done.ready();
                return;
            }
            if (hover)
                QTimer::singleShot(600, weights, [weights] { hoverLargestCell(weights->heatmapPanel()->heatmap()); });
            done.ready();
        },
        Qt::SingleShotConnection);
    for (const QString &path : options.paths)
        window.openPath(path);
}

void setUpDeviceScene(MainWindow &window, const ExplorerOptions &options, const SceneCallbacks &done)
{
    auto *device = qobject_cast<DeviceWorkspace *>(window.workspace(QStringLiteral("device")));
    if (!options.profile.isEmpty())
        device->setProfile(options.profile);
    if (!options.samples.isEmpty() && device->canOpen(options.samples)) {
        // A device study's folder: its page, read at once.
        device->open(options.samples);
        device->studyPanel()->model()->rowCount() > 0 ? done.ready()
                                                      : done.failed(device->studyPanel()->headline()->text());
        return;
    }
    if (!options.samples.isEmpty()) {
        // The weights comparison on samples measured here; positional paths are the weights choices.
        WeightsOnSamplesPanel *panel = device->weightsPanel();
        if (!options.paths.isEmpty()) {
            // Positional paths arrive absolute; a choice that is no file or folder is a name
            // (a shipped file, halide-hold-one-out) as typed.
            QStringList choices;
            for (const QString &p : options.paths)
                choices << (QFileInfo::exists(p) ? p : QFileInfo(p).fileName());
            panel->setWeightsChoices(choices);
        }
        QObject::connect(
            panel, &WeightsOnSamplesPanel::compared, device, [done] { done.ready(); }, Qt::SingleShotConnection);
        device->offerSampleFolder(options.samples);
        return;
    }
    if (device->hasQueried())
        done.ready();
    else // the query starts when the workspace is first shown
        QObject::connect(
            device, &DeviceWorkspace::deviceQueried, device, [done] { done.ready(); }, Qt::SingleShotConnection);
}

} // namespace beamscope::app
