#pragma once
// The explorer's screenshot mode (--screenshot FILE.png): fresh settings, so a
// picture does not depend on what this user's explorer remembers, and a grab of
// the whole window once the start scene is shown, then the explorer quits
// (exit 0 saved, 1 failed or timed out). packaging/take-screenshots.sh makes
// the documentation's pictures this way.

#include "app/gui/startup_scene.h"

#include <QSize>
#include <QString>

#include <memory>

class QTemporaryDir;

namespace beamscope::ui {
class MainWindow;
}

namespace beamscope::app {

// Points QSettings and QStandardPaths at throw-away locations; keep the result
// alive as long as the application runs.
std::unique_ptr<QTemporaryDir> useFreshSettings();

// Callbacks for the start scene: `ready` (again) restarts a short settling
// pause after which the window is saved to `file`; `failed`, or nothing within
// timeoutSeconds, ends the explorer with exit status 1. A window that could
// not take the asked size (smaller than its minimum) is saved as it is, and
// stderr says so.
SceneCallbacks screenshotWhenReady(ui::MainWindow &window, const QString &file, QSize asked, int timeoutSeconds);

} // namespace beamscope::app
