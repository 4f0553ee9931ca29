#pragma once
// The weights files Beamscope ships (the project's weights/ folder: Halide's
// Anderson2021 files and the Adams2019 baseline; weights/README.md) and how a
// program finds them: an installed program looks beside itself
// (<prefix>/share/beamscope/weights, reached from bin/, libexec/beamscope/ or
// lib/<multiarch>/beamscope/); a program run from its build tree uses the
// source tree's weights/; last comes the install prefix it was built for. No
// environment variable is needed in either case.
//
// One piece of code for the CLI (`--weights bilateral_grid`), the plugin (its
// default when HL_WEIGHTS_DIR names nothing) and the explorer (its library and
// first start).

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace beamscope::weights {

// Existing folders that hold shipped weights, best first (usually one).
std::vector<std::filesystem::path> shippedWeightsFolders();

struct ShippedWeights {
    std::string name;           // what --weights accepts: "bilateral_grid", "baseline", "adams2019/baseline"
    std::filesystem::path path; // absolute
    bool holdOneOut = false;    // one of the 16 per-app files, trained without the app it names
};

// Halide's 16 apps that have a hold-one-out weights file (trained without them).
const std::set<std::string> &holdOneOutApps();

// What a shipped file is: "trained on a V100 without harris (hold-one-out)",
// "untrained: a uniform random initialisation", ...
std::string describeShippedWeights(const ShippedWeights &weights);

// Every shipped file of the first folder found: the Anderson2021 ones by their
// stem, the Adams2019 baseline as "adams2019/baseline". Empty when none is found.
std::vector<ShippedWeights> listShippedWeights();

// A shipped file by name: "bilateral_grid", "bilateral_grid.weights",
// "anderson2021/bilateral_grid" or "adams2019/baseline".
std::optional<std::filesystem::path> findShippedWeights(const std::string &name);

// The shipped Anderson2021 baseline.weights (Halide's default model).
std::optional<std::filesystem::path> shippedBaselineWeights();

// The hold-one-out file trained without `app` (Halide's app name, which the
// built-in apps share), when one is shipped.
std::optional<std::filesystem::path> holdOneOutWeightsFor(const std::string &app);

// The shipped file a file's content is (SHA-256 against weights/README.md's table), wherever it lies:
// a copy, or Halide's own src/autoschedulers/anderson2021/baseline.weights, is recognised too.
// `path` is the file given. Nothing for any other content.
std::optional<ShippedWeights> identifyShippedWeights(const std::filesystem::path &weights);

// The shipped file whose content has this SHA-256 (a trace's or a run's record of its weights),
// from the table, without reading any file; nothing when no shipped file has it.
std::optional<std::filesystem::path> shippedWeightsWithDigest(const std::string &sha256);

// What a weights file was trained on, read once for the many pipelines a view scores it on: a file
// retrained here by its training record (trainingRecordPath: its apps and its training pipelines'
// feature hashes), else a shipped per-app file by its content (every Halide app but its own).
struct TrainingSet {
    bool hasRecord = false;
    std::set<std::string> apps;                  // the record's
    std::set<uint64_t> pipelineHashes;           // the record's (samples::pipelineHash of each training pipeline)
    std::optional<std::string> allHalideAppsBut; // a shipped hold-one-out file: its own app

    // Scoring the file on `app`'s samples is in-sample.
    bool containsApp(const std::string &app) const;
    // The same for one pipeline's samples, whatever the folder layout named it (E1): its app, or
    // its content listed in the record, so a flat folder of the very files it was trained on is
    // flagged too.
    bool containsPipeline(const std::string &app, uint64_t pipelineHash) const;
};
TrainingSet trainingSetOf(const std::filesystem::path &weights);

// trainingSetOf(weights).containsApp(app) / containsPipeline(app, hash), for a single question.
bool trainedOnApp(const std::filesystem::path &weights, const std::string &app);
bool trainedOnPipeline(const std::filesystem::path &weights, const std::string &app, uint64_t pipelineHash);

// Where a retraining run records what a weights file was trained on: "<file>.training.json",
// {"trained_on_apps": [...], "held_out_app": "..."} (core/samples/retrain.h writes it).
std::filesystem::path trainingRecordPath(const std::filesystem::path &weights);

// The weights a search, a sample evaluation or an autotune run on `pipelines` starts from when the
// user names none, with why: one Halide app gets its own hold-one-out file (harris.weights for
// harris, never one trained on it); otherwise a trained per-app file, the reason saying what it was
// trained on. Never an untrained file. The CLI and the explorer both default through this.
struct DefaultWeights {
    std::filesystem::path path;
    std::string reason; // "harris.weights: the hold-one-out file for harris (...)"
};
std::optional<DefaultWeights> defaultWeightsFor(const std::vector<std::string> &pipelines);

// True for a shipped untrained initialisation (Anderson2021's baseline.weights
// and gpu.weights: uniform random values), false for any other file.
bool isUntrainedShippedWeights(const std::filesystem::path &weights);

// What a shipped Anderson2021 file is, said for a search on `app`: "trained on
// a V100 without bilateral_grid (hold-one-out)", "untrained: ...". Empty for a
// file that is not one of the shipped ones.
std::string describeShippedWeightsFor(const std::filesystem::path &weights, const std::string &app);

// Where a command's weights come from: `explicitArgument` as a path when it
// exists, else as the name of a shipped file; without it $BEAMSCOPE_WEIGHTS_PATH
// (a file), else <weightsDir>/baseline.weights, else, when the command names
// its pipelines, defaultWeightsFor(pipelines), else the shipped baseline.
// Returns an empty path with `error` set when nothing fits (the error names the
// argument and lists the shipped names); `note` says when a default was taken.
std::filesystem::path resolveWeightsArgument(const std::optional<std::string> &explicitArgument,
                                             const std::optional<std::string> &weightsDir, std::string &error,
                                             std::string *note = nullptr,
                                             const std::vector<std::string> *pipelines = nullptr);

} // namespace beamscope::weights
