#include "app/gui/screenshot.h"

#include "ui/mainwindow/main_window.h"

#include <QCoreApplication>
#include <QDir>
#include <QPixmap>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>

namespace beamscope::app {

namespace {
// Charts animate, layouts and the hover read-out settle after the data arrives.
constexpr int kSettleMs = 1500;

// Queued, so that a failure noticed before the event loop runs still ends it.
void finish(int status)
{
    QTimer::singleShot(0, qApp, [status] { QCoreApplication::exit(status); });
}
} // namespace

std::unique_ptr<QTemporaryDir> useFreshSettings()
{
    auto dir = std::make_unique<QTemporaryDir>();
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir->path());
    // Files the explorer makes itself (trained weights) land in Qt's test locations, not the user's;
    // what an earlier screenshot left there is removed so the library looks the same every time.
    QStandardPaths::setTestModeEnabled(true);
    QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).removeRecursively();
    return dir;
}

SceneCallbacks screenshotWhenReady(ui::MainWindow &window, const QString &file, QSize asked, int timeoutSeconds)
{
    // The timers are the window's children: they cannot fire once it is gone.
    ui::MainWindow *shown = &window;
    auto *settle = new QTimer(&window);
    settle->setSingleShot(true);
    settle->setInterval(kSettleMs);
    QObject::connect(settle, &QTimer::timeout, &window, [shown, file, asked] {
        // A picture that claims a size it is not would say the window fits a screen it does not fit:
        // no file rather than a wrong one.
        const QPixmap picture = shown->grab();
        if (asked.isValid() && (shown->size() != asked || picture.size() != asked)) {
            const QSize minimum = shown->minimumSizeHint().expandedTo(shown->minimumSize());
            std::fprintf(stderr,
                         "beamscope: the window is %dx%d, not the %dx%d asked for (its minimum is %dx%d); no "
                         "screenshot saved\n",
                         shown->width(), shown->height(), asked.width(), asked.height(), minimum.width(),
                         minimum.height());
            finish(1);
            return;
        }
        const bool saved = picture.save(file, "PNG");
        std::fprintf(stderr, "beamscope: %s %s\n", saved ? "saved" : "could not save", qPrintable(file));
        finish(saved ? 0 : 1);
    });
    auto *timeout = new QTimer(&window);
    timeout->setSingleShot(true);
    QObject::connect(timeout, &QTimer::timeout, &window, [timeoutSeconds] {
        std::fprintf(stderr, "beamscope: nothing to grab within %d s; no screenshot saved\n", timeoutSeconds);
        finish(1);
    });
    timeout->start(timeoutSeconds * 1000);

    SceneCallbacks callbacks;
    callbacks.ready = [settle] { settle->start(); };
    callbacks.failed = [settle](const QString &error) {
        settle->stop();
        std::fprintf(stderr, "beamscope: %s; no screenshot saved\n", qPrintable(error));
        finish(1);
    };
    return callbacks;
}

} // namespace beamscope::app
