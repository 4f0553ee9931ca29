#pragma once
// The explorer's command line: which workspace to open on, what to show in it,
// whether to start its work, and an optional screenshot. One set of options
// serves users ("open the Search workspace on this trace"), the documentation
// (packaging/take-screenshots.sh) and anyone reproducing a picture.

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>

class QCoreApplication;

namespace beamscope::app {

struct ExplorerOptions {
    QString workspace; // side-bar id ("search", "pipeline", ...); "" = the explorer's default
    QStringList paths; // positional files and folders (absolute)
    QStringList weightsDirs;
    QString screenshot; // PNG to save once the scene is shown ("" = interactive)
    QSize size;         // window size; invalid = the remembered or default one
    int timeoutSeconds = 600;
    bool run = false; // start the workspace's work (search, benchmark, training); --screenshot implies it

    // Weights workspace
    bool compare = false; // the first two paths are a and b (also Predictions' side by side)
    QString tensor;

    // Search and Pipeline workspaces
    QString app;
    QString generator;           // Search: a generator library (.so) to open
    QString generatorName;       // its generator to select (default: the first)
    QStringList generatorParams; // k=v values for it
    QString weights;             // Search: the model; Retrain: initial weights; Predictions: the first file
    QString trace;
    std::optional<int> beam, passes;
    std::optional<qint64> state, compareState;
    bool compareRunnerUp = false; // compare with the cheapest other complete state of the winner's pass
    bool hideUnmatched = false;   // with func: draw only its matches (and the winner's path)
    bool finalBeam = false;       // the final beam's table below the tree
    bool measureBeam = false;     // with measure: time every state of the final beam
    QString func;
    bool pathOnly = false;
    QString tab;                 // detail tab: a number or part of its title ("cost", "loop", ...)
    bool continueSearch = false; // search on from the selected state
    QString measure;             // with run: time the selected state on this target (opencl, cuda)
    QString stage;
    QString bench;   // benchmark target (host, opencl, cuda)
    QString profile; // Device workspace's reference GPU (V100, A100, ...)

    // Retrain and Predictions workspaces
    QString samples;
    std::optional<int> epochs;
    std::optional<double> learningRate;
    QString holdOut;
    QString output;

    bool screenshotMode() const { return !screenshot.isEmpty(); }
};

// Parses the application's arguments (handles --help and --version itself).
// On a usage error returns nullopt with the reason in *error.
std::optional<ExplorerOptions> parseExplorerOptions(const QCoreApplication &app, QString *error);

} // namespace beamscope::app
