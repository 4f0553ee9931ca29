#include "app/gui/explorer_options.h"

#include "core/weights/shipped_weights.h"

#include <QCommandLineParser>
#include <QFileInfo>

namespace beamscope::app {

namespace {

QCommandLineOption valueOption(const char *name, const char *help, const char *valueName)
{
    return QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(help), QString::fromLatin1(valueName));
}

// Reads an optional whole number; false (with the reason) when it is not one.
template <typename Int>
bool readInteger(const QCommandLineParser &parser, const QString &name, std::optional<Int> &out, QString *error)
{
    if (!parser.isSet(name))
        return true;
    bool ok = false;
    const qlonglong value = parser.value(name).toLongLong(&ok);
    if (!ok || value < 0) {
        *error = QStringLiteral("--%1 expects a whole number >= 0, found \"%2\"").arg(name, parser.value(name));
        return false;
    }
    out = static_cast<Int>(value);
    return true;
}

} // namespace

std::optional<ExplorerOptions> parseExplorerOptions(const QCoreApplication &app, QString *error)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Explorer for Halide's learned GPU autoscheduler (Anderson2021).\n"
                       "Library folders also come from BEAMSCOPE_WEIGHTS_PATH (colon-separated).\n\n"
                       "The options below open a workspace on something and, with --run, start its work;\n"
                       "--screenshot FILE.png then saves the window once that is shown and quits, e.g.\n"
                       "  beamscope --workspace search --app bilateral_grid --weights W --beam 8 --passes 3 \\\n"
                       "      --tab cost --screenshot search.png --size 1600x1000"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QList<QCommandLineOption> options = {
        valueOption("weights-dir", "Add DIR to the weights library for this run.", "DIR"),
        valueOption("workspace",
                    "Open on this workspace: weights, search, pipeline, retrain, predictions, autotune, device "
                    "(default: weights, or search with --trace, pipeline with --app).",
                    "NAME"),
        QCommandLineOption(QStringLiteral("run"),
                           QStringLiteral("Start the workspace's work: the search (Search), the "
                                          "benchmark (Pipeline, --bench), the training (Retrain).")),
        valueOption("screenshot",
                    "Save the window to FILE (PNG) once the workspace shows what was asked, then quit. "
                    "Implies --run; uses fresh settings, so pictures are reproducible.",
                    "FILE"),
        valueOption("size", "Window size, e.g. 1600x1000.", "WxH"),
        valueOption("timeout", "With --screenshot: give up (exit 1) after S seconds (default 600).", "S"),
        QCommandLineOption(
            QStringLiteral("compare"),
            QStringLiteral("Compare the first two paths given (a, then b): the Weights workspace's diff, "
                           "or the Predictions workspace's side by side.")),
        valueOption("tensor", "Weights: tensor to select first (default head2_filter).", "NAME"),
        valueOption("app",
                    "Search / Pipeline: the registered pipeline (beamscope-cli apps lists them); Autotune: pipelines, "
                    "comma-separated.",
                    "NAME"),
        valueOption("generator",
                    "Search: open a library of your Halide 14 generators (checked in a separate process first); "
                    "with --run, search the generator chosen.",
                    "LIB.so"),
        valueOption("name", "Search: with --generator, the generator to choose (default: the first).", "GEN"),
        valueOption("param", "Search: with --generator, a GeneratorParam value k=v (repeatable).", "K=V"),
        valueOption("weights",
                    "Search: the cost model's weights; Retrain: the initial weights; Predictions: the "
                    "weights to evaluate. A path, or a shipped file's name (bilateral_grid).",
                    "FILE"),
        valueOption("trace", "Search: open this trace file (beamscope-cli autoschedule --trace) instead of searching.",
                    "FILE"),
        valueOption("beam", "Search: beam size.", "N"),
        valueOption("passes", "Search: passes (0 = auto).", "P"),
        valueOption("state", "Search: state to select once shown (default: the winner).", "ID"),
        valueOption("compare-state", "Search: state to compare the selected one with.", "ID"),
        QCommandLineOption(QStringLiteral("compare-runner-up"),
                           QStringLiteral("Search: compare the winner with the runner-up: the cheapest other "
                                          "complete state of its pass.")),
        valueOption("func", "Search: highlight the decisions on Funcs whose name contains NAME.", "NAME"),
        QCommandLineOption(QStringLiteral("path-only"), QStringLiteral("Search: show only the path to the winner.")),
        QCommandLineOption(QStringLiteral("hide-unmatched"),
                           QStringLiteral("Search: with --func, draw only the matching states and the winner's path.")),
        QCommandLineOption(QStringLiteral("final-beam"),
                           QStringLiteral("Search: show the final beam's table below the tree.")),
        QCommandLineOption(QStringLiteral("measure-beam"),
                           QStringLiteral("Search: with --measure TARGET, time every state of the final beam and "
                                          "show predicted against measured.")),
        valueOption("tab",
                    "Search: the state's detail tab, by number or title (path, features, cost); the loop nest "
                    "is always shown below them. Autotune: the chart page whose title holds TAB (batches).",
                    "TAB"),
        QCommandLineOption(QStringLiteral("continue"),
                           QStringLiteral("Search: continue the search from the selected state (then its winner is "
                                          "selected).")),
        valueOption("measure",
                    "Search: with --run, compile and time the selected state on TARGET (opencl, cuda) "
                    "in the bench worker.",
                    "TARGET"),
        valueOption("stage", "Pipeline: stage to select (default: one in the middle of the graph).", "NAME"),
        valueOption("bench", "Pipeline: with --run, time the pipeline on TARGET (host, opencl, cuda) first.", "TARGET"),
        valueOption("profile", "Device: the reference GPU beside the local one (V100, A100, H100, H200).", "NAME"),
        valueOption("samples",
                    "Retrain / Predictions / Device (weights comparison): a folder of .sample files; Device: a "
                    "device study's folder (beamscope-cli device-study); Autotune: an autotune output folder.",
                    "DIR"),
        valueOption("epochs", "Retrain: epochs.", "N"),
        valueOption("learning-rate", "Retrain: learning rate.", "R"),
        valueOption("hold-out", "Retrain: the app to hold out.", "APP"),
        valueOption("output", "Retrain: where the trained weights go; Autotune: the output folder.", "FILE"),
    };
    parser.addOptions(options);
    parser.addPositionalArgument(QStringLiteral("paths"), QStringLiteral("Weights files or folders to open."),
                                 QStringLiteral("[FILE.weights|DIR|TRACE|LIB.so...]"));
    // parse() rather than process(): an unknown option is a usage error (exit 2), as everywhere.
    if (!parser.parse(app.arguments())) {
        *error = parser.errorText();
        return std::nullopt;
    }
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();

    ExplorerOptions o;
    for (const QString &path : parser.positionalArguments())
        o.paths.append(QFileInfo(path).absoluteFilePath());
    o.weightsDirs = parser.values(QStringLiteral("weights-dir"));
    o.screenshot = parser.value(QStringLiteral("screenshot"));
    o.run = parser.isSet(QStringLiteral("run")) || o.screenshotMode();
    o.compare = parser.isSet(QStringLiteral("compare"));
    o.tensor = parser.value(QStringLiteral("tensor"));
    o.app = parser.value(QStringLiteral("app"));
    if (parser.isSet(QStringLiteral("generator")))
        o.generator = QFileInfo(parser.value(QStringLiteral("generator"))).absoluteFilePath();
    o.generatorName = parser.value(QStringLiteral("name"));
    o.generatorParams = parser.values(QStringLiteral("param"));
    for (const QString &kv : o.generatorParams)
        if (kv.indexOf(QLatin1Char('=')) <= 0) {
            *error = QStringLiteral("--param expects KEY=VALUE, found \"%1\"").arg(kv);
            return std::nullopt;
        }
    if ((!o.generatorName.isEmpty() || !o.generatorParams.isEmpty()) && o.generator.isEmpty()) {
        *error = QStringLiteral("--name and --param need --generator LIB.so");
        return std::nullopt;
    }
    o.weights = parser.value(QStringLiteral("weights"));
    // A path, or a shipped file's name as beamscope-cli takes it ("bilateral_grid").
    if (!o.weights.isEmpty() && !QFileInfo::exists(o.weights))
        if (const auto shipped = weights::findShippedWeights(o.weights.toStdString()))
            o.weights = QString::fromStdString(shipped->string());
    o.trace = parser.value(QStringLiteral("trace"));
    o.func = parser.value(QStringLiteral("func"));
    o.pathOnly = parser.isSet(QStringLiteral("path-only"));
    o.compareRunnerUp = parser.isSet(QStringLiteral("compare-runner-up"));
    o.hideUnmatched = parser.isSet(QStringLiteral("hide-unmatched"));
    o.finalBeam = parser.isSet(QStringLiteral("final-beam"));
    o.measureBeam = parser.isSet(QStringLiteral("measure-beam"));
    if (o.measureBeam)
        o.finalBeam = true;
    o.tab = parser.value(QStringLiteral("tab"));
    o.continueSearch = parser.isSet(QStringLiteral("continue"));
    o.measure = parser.value(QStringLiteral("measure"));
    o.stage = parser.value(QStringLiteral("stage"));
    o.bench = parser.value(QStringLiteral("bench"));
    o.profile = parser.value(QStringLiteral("profile"));
    o.samples = parser.value(QStringLiteral("samples"));
    o.holdOut = parser.value(QStringLiteral("hold-out"));
    o.output = parser.value(QStringLiteral("output"));

    if (parser.isSet(QStringLiteral("size"))) {
        const QStringList wh = parser.value(QStringLiteral("size")).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2)
            o.size = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
        if (!okW || !okH || o.size.width() < 200 || o.size.height() < 200) {
            *error = QStringLiteral("--size expects WIDTHxHEIGHT (each >= 200), found \"%1\"")
                         .arg(parser.value(QStringLiteral("size")));
            return std::nullopt;
        }
    }
    std::optional<int> timeout;
    if (!readInteger(parser, QStringLiteral("beam"), o.beam, error) ||
        !readInteger(parser, QStringLiteral("passes"), o.passes, error) ||
        !readInteger(parser, QStringLiteral("state"), o.state, error) ||
        !readInteger(parser, QStringLiteral("compare-state"), o.compareState, error) ||
        !readInteger(parser, QStringLiteral("epochs"), o.epochs, error) ||
        !readInteger(parser, QStringLiteral("timeout"), timeout, error))
        return std::nullopt;
    if (timeout)
        o.timeoutSeconds = *timeout;
    if (parser.isSet(QStringLiteral("learning-rate"))) {
        bool ok = false;
        o.learningRate = parser.value(QStringLiteral("learning-rate")).toDouble(&ok);
        if (!ok || *o.learningRate <= 0) {
            *error = QStringLiteral("--learning-rate expects a positive number, found \"%1\"")
                         .arg(parser.value(QStringLiteral("learning-rate")));
            return std::nullopt;
        }
    }

    o.workspace = parser.value(QStringLiteral("workspace")).toLower();
    if (o.workspace.isEmpty() && (!o.trace.isEmpty() || !o.generator.isEmpty()))
        o.workspace = QStringLiteral("search");
    else if (o.workspace.isEmpty() && !o.app.isEmpty())
        o.workspace = QStringLiteral("pipeline");
    if (o.compare && o.paths.size() != 2) {
        *error = QStringLiteral("--compare needs exactly two weights paths (a, then b)");
        return std::nullopt;
    }
    if (o.workspace == QLatin1String("search") && o.screenshotMode() && o.app.isEmpty() && o.trace.isEmpty() &&
        o.generator.isEmpty()) {
        *error =
            QStringLiteral("a screenshot of the Search workspace needs --app or --generator (to search) or --trace");
        return std::nullopt;
    }
    if ((o.workspace == QLatin1String("retrain") || o.workspace == QLatin1String("predictions")) &&
        o.screenshotMode() && o.samples.isEmpty()) {
        *error = QStringLiteral("a screenshot of the %1 workspace needs --samples DIR").arg(o.workspace);
        return std::nullopt;
    }
    return o;
}

} // namespace beamscope::app
