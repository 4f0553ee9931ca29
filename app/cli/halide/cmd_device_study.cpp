// beamscope-cli device-study: Halide's V100 hold-one-out weights against the
// same files fine-tuned on this device's samples, per app, measured on this
// device (core/autotune/device_study.h). Rerun the same command to resume.
// Wiring only.

#include "app/cli/arguments.h"
#include "app/cli/halide/svg_png.h"
#include "app/cli/command.h"
#include "app/cli/option_values.h"
#include "app/cli/stderr_progress.h"
#include "core/autotune/device_study.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>

namespace beamscope::cli {

namespace {

const char *const kSynopsis =
    "--out DIR [--quick] [--app A]... [--random N] [--random-stages S] [--batches K] [--batch-size N] "
    "[--loop-epochs N] [--fine-tune-epochs N] [--learning-rate R] [--min-batch N] [--pick-rounds N] [--pick-reps N] "
    "[--sample-reps N] [--scale F] [--target opencl|cuda] [--profile P] [--jobs J] [--compile-timeout S] "
    "[--bench-timeout S] [--seed S] [--cache DIR] [--shard K/T] [--json]";

struct StudyCommand {
    autotune::DeviceStudyOptions options;
    std::string outDir;
    bool quick = false, json = false;
    std::optional<std::string> shard;
};

// --quick: the same stages on two small apps, sized to run in the test command.
void applyQuick(autotune::DeviceStudyOptions &o)
{
    o.apps = {"unsharp", "iir_blur"};
    o.randomPipelines = 1;
    o.randomStages = 3;
    o.batches = 2;
    o.batchSize = 4;
    o.minBatch = 3;
    o.loopEpochs = 10;
    o.fineTuneEpochs = 10;
    o.pickRounds = 3;
    o.pickReps = 1;
    o.sampleReps = 1;
    o.scale = 0.25;
}

std::string ms(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return std::isfinite(v) ? buf : "-";
}

int runStudy(StudyCommand &c, const std::vector<std::string> &args)
{
    autotune::DeviceStudyOptions &o = c.options;
    o.outDir = c.outDir;
    if (c.quick)
        applyQuick(o);
    if (c.shard) {
        const size_t slash = c.shard->find('/');
        const auto k = slash == std::string::npos ? std::nullopt : readSigned(c.shard->substr(0, slash));
        const auto t = slash == std::string::npos ? std::nullopt : readSigned(c.shard->substr(slash + 1));
        if (!k || !t || *t < 1 || *k < 0 || *k >= *t)
            return usageError("", "device-study", "--shard: expected K/T with 0 <= K < T, found '" + *c.shard + "'");
        o.shardIndex = static_cast<int>(*k);
        o.shardCount = static_cast<int>(*t);
    }
    o.renderPng = svgToPngRenderer();
    o.command = "beamscope-cli device-study";
    for (const std::string &a : args)
        o.command += " " + a;
    InterruptScope interrupt;
    StderrProgress progress("device-study ", false);
    const autotune::DeviceStudyResult r = autotune::runDeviceStudy(
        o, &progress, [](const std::string &line) { std::cerr << "device-study: " << line << "\n"; });
    if (r.cancelled) {
        std::cerr << "device-study: interrupted; rerun the same command to resume\n";
        return kFailure;
    }
    if (!r.ok) {
        std::cerr << "beamscope-cli device-study: " << r.error << "\n";
        return kFailure;
    }
    if (r.shardOnly) {
        std::cerr << "device-study: shard " << o.shardIndex << "/" << o.shardCount
                  << " done; run the command without --shard once every shard is done\n";
        return kSuccess;
    }
    if (c.json) {
        std::cout << r.report.toJson().dump(2) << "\n";
    } else {
        for (const study::AppResult &a : r.report.apps)
            std::cout << a.app << ": V100 pick " << ms(a.v100.runtime.medianMs) << " ms, fine-tuned pick "
                      << ms(a.tuned.runtime.medianMs) << " ms, speedup " << ms(a.speedup.ratio) << "x\n";
        std::cout << "geomean speedup " << ms(r.report.geomeanSpeedup.ratio) << "x over " << r.report.appsMeasured
                  << " app(s); report: " << (o.outDir / "report.md").string() << "\n";
    }
    return kSuccess;
}

CommandRun defineStudy(CLI::App &app)
{
    auto c = std::make_shared<StudyCommand>();
    autotune::DeviceStudyOptions &o = c->options;
    constexpr int kMost = std::numeric_limits<int>::max();
    constexpr double kNoEnd = std::numeric_limits<double>::infinity();
    addText(app, "--out", c->outDir, "the study folder (rerun the same command to resume)")->required();
    addFlag(app, "--quick", c->quick, "two small apps and small sizes: every stage, in a few minutes");
    addRepeated(app, "--app", o.apps, "one of Halide's apps (repeatable; default: all sixteen)");
    addInteger(app, "--random", o.randomPipelines, "random pipelines measured for the fine-tune", 0, 10000);
    addInteger(app, "--random-stages", o.randomStages, "their stage count", 1, 50);
    addInteger(app, "--batches", o.batches, "batches of the loop on each app", 1, 9999);
    addInteger(app, "--batch-size", o.batchSize, "schedules per app and batch", 1, 9999);
    addInteger(app, "--loop-epochs", o.loopEpochs, "epochs of the loop's retrain after each batch", 1, kMost);
    addInteger(app, "--fine-tune-epochs", o.fineTuneEpochs, "epochs of each hold-one-out fine-tune", 1, kMost);
    addNumber(app, "--learning-rate", o.learningRate, "ADAM's learning rate", 0, kNoEnd, true);
    addInteger(app, "--min-batch", o.minBatch, "the fewest schedules a training batch holds", 1, kMost);
    addInteger(app, "--pick-rounds", o.pickRounds, "interleaved timing rounds of the two picks", 1, kMost);
    addInteger(app, "--pick-reps", o.pickReps, "timed runs per round (the round keeps the best)", 1, kMost);
    addInteger(app, "--sample-reps", o.sampleReps, "timed runs per generated schedule", 1, kMost);
    addNumber(app, "--scale", o.scale, "output extents: the estimates times this", 0, kNoEnd, true);
    addText(app, "--target", o.target, "where schedules run")->check(oneOf({"cuda", "opencl"}));
    addText(app, "--profile", o.profile, "the GPU the search sizes schedules for (default: autotune's)");
    addInteger(app, "--jobs", o.jobs, "parallel compilations (0: one per hardware thread)", 0, kMost);
    addNumber(app, "--compile-timeout", o.compileTimeoutSeconds, "seconds a compilation may take", 0, kNoEnd, true);
    addNumber(app, "--bench-timeout", o.benchTimeoutSeconds, "seconds a measurement may take", 0, kNoEnd, true);
    addInteger(app, "--seed", o.seed, "the seed of the dropout, the random pipelines and the training");
    addText(app, "--cache", o.cacheDir, "the compiled-library cache folder");
    addText(app, "--shard", c->shard, "Slurm array task K/T: only this task's loops and samples");
    addJsonFlag(app, c->json);
    return [c](const std::vector<std::string> &args) { return runStudy(*c, args); };
}

const CommandRegistration registration{Command{
    "", "device-study", kSynopsis,
    "Halide's V100 hold-one-out weights against the same files fine-tuned on this device's samples, measured here "
    "(resumable)",
    defineStudy}};

} // namespace

} // namespace beamscope::cli
