// beamscope-bench-retrain: one training run timed in the Retrain workspace
// (offscreen, charts and table live) and with `beamscope-cli retrain`, the
// same samples, initial weights, epochs, learning rate and seed; medians over
// --repeats runs of each, their ratio, and the GUI thread's longest stall
// while the workspace trained (how long a Cancel click could wait).
// Usage: beamscope-bench-retrain [--samples DIR] [--epochs N] [--repeats R]
// Default samples: tests/fixtures/halide/samples/retrain_set (Halide's own).

#include "ui/common/app_settings.h"
#include "ui/retrain/retrain_workspace.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace beamscope::ui;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Options {
    QString samples = QStringLiteral(BEAMSCOPE_SOURCE_DIR "/tests/fixtures/halide/samples/retrain_set");
    QString initial = QStringLiteral(BEAMSCOPE_SOURCE_DIR "/weights/anderson2021/bilateral_grid.weights");
    int epochs = 3000;
    int repeats = 3;
    double learningRate = 0.001;
};

double cliSeconds(const Options &o, const QString &out)
{
    QProcess cli;
    QElapsedTimer clock;
    clock.start();
    cli.start(QStringLiteral(BEAMSCOPE_CLI),
              {QStringLiteral("retrain"), QStringLiteral("--samples"), o.samples, QStringLiteral("--initial"),
               o.initial, QStringLiteral("--out"), out, QStringLiteral("--epochs"), QString::number(o.epochs),
               QStringLiteral("--learning-rate"), QString::number(o.learningRate), QStringLiteral("--seed"),
               QStringLiteral("1"), QStringLiteral("--force")});
    if (!cli.waitForFinished(-1) || cli.exitCode() != 0) {
        std::fprintf(stderr, "beamscope-cli retrain failed: %s\n", cli.readAllStandardError().constData());
        return -1;
    }
    return static_cast<double>(clock.nsecsElapsed()) * 1e-9;
}

struct GuiRun {
    double seconds = -1;
    double longestStallMs = 0;
};

GuiRun guiSeconds(const Options &o, const QString &out)
{
    AppSettings settings;
    settings.setRememberLayout(false);
    RetrainWorkspace workspace(settings);
    workspace.resize(1600, 1000);
    workspace.show();
    workspace.addSampleFolder(o.samples);
    QEventLoop settle;
    QTimer::singleShot(500, &settle, &QEventLoop::quit); // the folder summary and weights scan
    settle.exec();
    workspace.setInitialWeights(o.initial);
    workspace.setEpochs(o.epochs);
    workspace.setLearningRate(o.learningRate);
    workspace.setSeed(1);
    workspace.setOutput(out);

    // A 10 ms ticker: how late it fires is how long the GUI thread was busy.
    GuiRun run;
    QElapsedTimer sinceTick;
    QTimer ticker;
    ticker.setInterval(10);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        run.longestStallMs = std::max(run.longestStallMs, static_cast<double>(sinceTick.nsecsElapsed()) * 1e-6 - 10);
        sinceTick.restart();
    });
    QEventLoop done;
    QObject::connect(&workspace, &RetrainWorkspace::runFinished, &done, &QEventLoop::quit);
    QElapsedTimer clock;
    clock.start();
    sinceTick.start();
    ticker.start();
    workspace.start();
    done.exec();
    ticker.stop();
    const auto &outcome = workspace.lastOutcome();
    if (!outcome || !outcome->ok) {
        std::fprintf(stderr, "GUI training failed: %s\n", outcome ? qPrintable(outcome->error) : "no outcome");
        return run;
    }
    run.seconds = static_cast<double>(clock.nsecsElapsed()) * 1e-9;
    return run;
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // the bench's settings never touch the user's
    Options o;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--samples"))
            o.samples = args[i + 1];
        else if (args[i] == QLatin1String("--epochs"))
            o.epochs = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--repeats"))
            o.repeats = std::max(1, args[i + 1].toInt());
        else if (args[i] == QLatin1String("--initial"))
            o.initial = args[i + 1];
        else {
            std::fprintf(stderr, "usage: beamscope-bench-retrain [--samples DIR] [--epochs N] [--repeats R] "
                                 "[--initial W]\n");
            return 2;
        }
    }
    QTemporaryDir tmp;
    std::vector<double> gui, cli, stalls;
    for (int r = 0; r < o.repeats; ++r) {
        // Alternated, so a change in the machine's load falls on both.
        const double c = cliSeconds(o, tmp.filePath(QStringLiteral("cli.weights")));
        const GuiRun g = guiSeconds(o, tmp.filePath(QStringLiteral("gui-%1.weights").arg(r)));
        if (c < 0 || g.seconds < 0)
            return 1;
        cli.push_back(c);
        gui.push_back(g.seconds);
        stalls.push_back(g.longestStallMs);
        std::printf("run %d: cli %.2f s, gui %.2f s, longest GUI stall %.0f ms\n", r + 1, c, g.seconds,
                    g.longestStallMs);
    }
    std::printf("retrain %d epochs on %s\n", o.epochs, qPrintable(o.samples));
    std::printf("median cli_s %.2f gui_s %.2f ratio %.2f longest_stall_ms %.0f (median of %d)\n", median(cli),
                median(gui), median(gui) / median(cli), median(stalls), o.repeats);
    return 0;
}
