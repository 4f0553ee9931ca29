// beamscope-cli autotune: Halide's autotune loop (core/autotune/autotune.h)
// on built-in apps, seeded random pipelines and generators: search with
// dropout, compile, measure on the local device, write .sample files, retrain.
// Rerun with the same options to resume. Wiring only.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/stderr_progress.h"
#include "core/autotune/autotune_request.h"
#include "core/autotune/slurm.h"
#include "core/samples/run_folder.h"
#include "core/bench/targets.h"
#include "core/pipelines/generator_library.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <thread>

namespace beamscope::cli {

namespace {

using autotune::SlurmOptions;

const char *const kSynopsis =
    "--out DIR (--app A... | --random N [--random-stages S] | --generator LIB.so --name G [--param k=v]...) "
    "[--weights W] --target cuda|opencl [--profile v100|local|NAME] [--batches B] [--batch-size N] [--jobs J] "
    "[--retrain | --no-retrain] [--epochs N] [--learning-rate R] [--min-batch N] [--seed S] [--first-beam N] "
    "[--dropout PCT] [--no-randomize-tilings] [--no-freeze] [--reps N] [--warmup N] [--scale F] "
    "[--compile-timeout S] [--bench-timeout S] [--cache DIR] [--json] "
    "[--slurm [--tasks T] [--partition P] [--gpus-per-task N] [--cpus-per-task N] [--account A] [--time HH:MM:SS] "
    "[--sbatch-arg X]... [--slurm-retries N]]";

// "K/T" of --shard: task K of T, 0 <= K < T.
bool parseShard(const std::string &text, int &index, int &count)
{
    const size_t slash = text.find('/');
    if (slash == std::string::npos)
        return false;
    const auto k = readSigned(text.substr(0, slash)), t = readSigned(text.substr(slash + 1));
    if (!k || !t || *t < 1 || *t > 100000 || *k < 0 || *k >= *t)
        return false;
    index = static_cast<int>(*k);
    count = static_cast<int>(*t);
    return true;
}

std::string selfPath()
{
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("beamscope-cli") : p.string();
}

int fail(const std::string &message)
{
    std::cerr << "beamscope-cli autotune: " << message << "\n";
    return kFailure;
}

std::string describeRecord(const samples::ScheduleRecord &r)
{
    char buf[160];
    if (r.status == samples::Status::Ok)
        std::snprintf(buf, sizeof buf, "ok %.4g ms (predicted %.4g)", r.runtimeMs, r.predictedCost);
    else
        std::snprintf(buf, sizeof buf, "%s", samples::statusName(r.status));
    std::string line = "autotune: " + samples::batchName(r.batch) + " " + r.pipeline + " #" + std::to_string(r.index) +
                       " (beam " + std::to_string(r.beamSize) + ", seed " + std::to_string(r.dropoutSeed) + "): " + buf;
    if (r.status != samples::Status::Ok && !r.message.empty()) {
        // A measurement's message may start with the class already said ("crash: the worker ...").
        const std::string said = std::string(buf) + ": ";
        const std::string message = r.message.rfind(said, 0) == 0 ? r.message.substr(said.size()) : r.message;
        line += ": " + message.substr(0, 300);
    }
    return line;
}

Json recordsJson(const std::vector<samples::ScheduleRecord> &records)
{
    Json a = Json::array();
    for (const auto &r : records)
        a.push(r.toJson());
    return a;
}

// The command line, as parsed: the request itself, and what says which part of a Slurm run this is.
struct AutotuneOptions {
    autotune::AutotuneRequest request;
    std::vector<std::string> generatorParams, injectFaults;
    std::optional<std::string> generator, name, shard;
    bool retrain = false, noRetrain = false, noRandomizeTilings = false, noFreeze = false, json = false;
    int batch = 0, mergeBatch = -1, attempt = 0;
    bool slurm = false;
    SlurmOptions slurmOptions;
};

int runAutotuneCommand(AutotuneOptions &options)
{
    auto usage = [](const std::string &why) { return usageError("", "autotune", why); };
    autotune::AutotuneRequest &o = options.request;
    o.retrain = !options.noRetrain;
    o.randomizeTilings = !options.noRandomizeTilings;
    o.freezeInlineComputeRoot = !options.noFreeze;
    for (const std::string &f : options.injectFaults) {
        const size_t eq = f.find('='); // there is one: checked while parsing
        o.injectFaults[f.substr(0, eq)] = f.substr(eq + 1);
    }
    if (options.generator) {
        o.generatorLibrary = *options.generator;
        o.generatorName = *options.name; // --generator needs --name
        try {
            o.generatorParams = pipelines::parseGeneratorParams(options.generatorParams);
        } catch (const std::exception &e) {
            return fail(e.what());
        }
    }
    if (o.apps.empty() && o.randomPipelines == 0 && o.generatorLibrary.empty())
        return usage("name the pipelines: --app A (repeatable), --random N, or --generator LIB.so --name G");

    // Slurm: an array task (--shard), the merge job (--slurm-merge), or the submission (--slurm).
    if (options.shard) {
        parseShard(*options.shard, o.shardIndex, o.shardCount); // checked while parsing
        o.onlyBatch = options.batch;
        o.retrain = false;
        // Compile on the CPUs Slurm gave the task, not on every core of the node.
        if (o.jobs == 0)
            if (const char *cpus = std::getenv("SLURM_CPUS_PER_TASK")) {
                const auto n = readSigned(cpus);
                o.jobs = n ? static_cast<int>(std::clamp<long long>(*n, 1, std::numeric_limits<int>::max())) : 1;
            }
    }
    const int mergeBatch = options.mergeBatch;
    const int attempt = options.attempt;
    const SlurmOptions &slurm = options.slurmOptions;
    if (options.slurm) {
        std::string error;
        bool allComplete = false;
        const auto sub = autotune::submitSlurmRun(o, slurm, selfPath(), error, &allComplete);
        if (allComplete) {
            std::cerr << "autotune: every batch of " << o.outDir << " is complete\n";
            return kSuccess;
        }
        if (!sub)
            return fail(error);
        std::cerr << "autotune: submitted batch " << sub->batch << " as array job " << sub->arrayJob << " ("
                  << slurm.tasks << " tasks) and merge job " << sub->mergeJob << "; scripts in "
                  << autotune::slurmFolder(std::filesystem::absolute(o.outDir)).string()
                  << "; follow it with 'beamscope-cli slurm status " << o.outDir << "'\n";
        if (options.json)
            std::cout << sub->toJson().dump(2) << "\n";
        return kSuccess;
    }

    const bool json = options.json;
    autotune::AutotuneEvents events;
    events.onStart = [](const std::string &line) { std::cerr << "autotune: " << line << "\n"; };
    events.onRecord = [](const samples::ScheduleRecord &r) { std::cerr << describeRecord(r) << "\n"; };
    events.onBatch = [](const autotune::BatchSummary &b) {
        std::cerr << "autotune: " << samples::batchName(b.batch) << " done:";
        for (const auto &[status, n] : b.counts)
            std::cerr << " " << status << " " << n;
        std::cerr << "; search " << b.searchSeconds << " s, compile " << b.compileSeconds << " s, measure "
                  << b.measureSeconds << " s, train " << b.trainSeconds << " s\n";
        for (const auto &[pipeline, ms] : b.bestMs)
            std::cerr << "autotune:   best " << pipeline << ": " << ms << " ms\n";
        if (b.retrained)
            std::cerr << "autotune:   retrained: training loss " << b.before.trainingLoss << " -> "
                      << b.after.trainingLoss << "\n";
        else if (!b.trainingNote.empty())
            std::cerr << "autotune:   not retrained: " << b.trainingNote << "\n";
    };
    InterruptScope interrupt;
    StderrProgress progress("autotune ", true);
    if (mergeBatch >= 0) {
        const autotune::MergeOutcome m = autotune::mergeSlurmBatch(o, mergeBatch, attempt, &progress, events);
        if (m.resubmitted)
            std::cerr << "autotune: batch " << mergeBatch << ": task(s) did not complete; resubmitted as array job "
                      << m.resubmitted->arrayJob << " (attempt " << m.resubmitted->attempt << ")\n";
        for (int k : m.givenUp)
            std::cerr << "autotune: batch " << mergeBatch << ": task " << k << " failed " << attempt + 1
                      << " time(s); merged without the schedules it did not finish\n";
        if (m.next)
            std::cerr << "autotune: submitted batch " << m.next->batch << " as array job " << m.next->arrayJob << "\n";
        if (!m.ok)
            return fail(m.error);
        return kSuccess;
    }
    const autotune::AutotuneResult result = autotune::runAutotune(o, &progress, events);
    if (!result.ok)
        return fail(result.error);
    if (result.staleTempFilesRemoved)
        std::cerr << "autotune: removed " << result.staleTempFilesRemoved << " temporary file(s) a killed run left\n";
    if (result.batchesSkipped || result.schedulesResumed)
        std::cerr << "autotune: resumed: " << result.batchesSkipped << " batch(es) already complete, "
                  << result.schedulesResumed << " schedule(s) of the next batch already done\n";
    if (json) {
        Json j = Json::object();
        j["out"] = o.outDir;
        j["cancelled"] = result.cancelled;
        j["batches_skipped"] = result.batchesSkipped;
        j["schedules_resumed"] = result.schedulesResumed;
        j["records"] = recordsJson(result.records);
        Json batches = Json::array();
        for (const auto &b : result.batches)
            batches.push(b.toJson());
        j["batches"] = batches;
        std::cout << j.dump(2) << "\n";
    }
    if (result.cancelled) {
        std::cerr << "autotune: interrupted; rerun the same command to resume\n";
        return kFailure;
    }
    return kSuccess;
}

CommandRun defineAutotune(CLI::App &app)
{
    auto options = std::make_shared<AutotuneOptions>();
    autotune::AutotuneRequest &o = options->request;
    constexpr int kMost = std::numeric_limits<int>::max();
    constexpr double kNoEnd = std::numeric_limits<double>::infinity();
    addText(app, "--out", o.outDir, "the run folder (rerun the same command to resume)")->required();
    addRepeated(app, "--app", o.apps, "a built-in pipeline (repeatable)");
    addInteger(app, "--random", o.randomPipelines, "this many seeded random pipelines", 0, 10000);
    addInteger(app, "--random-stages", o.randomStages, "--random: their stage count", 1, 50);
    CLI::Option *generator = addText(app, "--generator", options->generator, "a shared library of Halide generators");
    CLI::Option *name = addText(app, "--name", options->name, "--generator: the generator's name");
    CLI::Option *param =
        addRepeated(app, "--param", options->generatorParams, "--generator: a generator parameter k=v (repeatable)");
    generator->needs(name);
    name->needs(generator);
    param->needs(generator);
    addText(app, "--weights", o.weights,
            "the starting weights: a path or a shipped name (default: the shipped baseline)");
    addText(app, "--target", o.target, "where schedules are measured")->required()->check(oneOf({"cuda", "opencl"}));
    addText(app, "--profile", o.profile, "the GPU the search sizes schedules for (default: local for cuda, else v100)");
    addInteger(app, "--batches", o.batches, "search-measure-retrain rounds", 1, 9999);
    addInteger(app, "--batch-size", o.batchSize, "schedules per pipeline and batch", 1, 9999);
    addInteger(app, "--jobs", o.jobs, "parallel compilations (0: one per hardware thread)", 0, kMost);
    CLI::Option *retrain = addFlag(app, "--retrain", options->retrain, "retrain after each batch (the default)");
    retrain->excludes(addFlag(app, "--no-retrain", options->noRetrain, "measure only; keep the weights"));
    addInteger(app, "--epochs", o.epochs, "training epochs per retrain", 1, kMost);
    addNumber(app, "--learning-rate", o.learningRate, "ADAM's learning rate", 0, kNoEnd, true);
    addInteger(app, "--min-batch", o.minBatch, "the fewest schedules a training batch holds", 1, kMost);
    addInteger(app, "--seed", o.seed, "the seed of the dropout and of the random pipelines");
    addInteger(app, "--first-beam", o.firstBeamSize, "the beam size of the first schedule of each pipeline", 1, 100000);
    addInteger(app, "--dropout", o.otherDropout, "the other schedules: percentage of children kept per decision", 1,
               100);
    addFlag(app, "--no-randomize-tilings", options->noRandomizeTilings, "take tiling candidates in order");
    addFlag(app, "--no-freeze", options->noFreeze, "no HL_FREEZE_INLINE_COMPUTE_ROOT pre-pass");
    addInteger(app, "--reps", o.reps, "timed runs per schedule", 1, kMost);
    addInteger(app, "--warmup", o.warmup, "untimed runs before them", 0, kMost);
    addNumber(app, "--scale", o.scale, "output extents: the estimates times this", 0, kNoEnd, true);
    addNumber(app, "--compile-timeout", o.compileTimeoutSeconds, "seconds a compilation may take", 0, kNoEnd, true);
    addNumber(app, "--bench-timeout", o.benchTimeoutSeconds, "seconds a measurement may take", 0, kNoEnd, true);
    addText(app, "--cache", o.cacheDir, "the compiled-library cache folder");
    addJsonFlag(app, options->json);
    addRepeated(app, "--inject-fault", options->injectFaults, "test only: PIPELINE:BATCH:INDEX=crash|hang|wrong-output")
        ->check(CLI::Validator(
            [](std::string &f) -> std::string {
                return f.find('=') != std::string::npos
                           ? ""
                           : "expected PIPELINE:BATCH:INDEX=crash|hang|wrong-output, found '" + f + "'";
            },
            "PIPELINE:BATCH:INDEX=FAULT"));
    SlurmOptions &slurm = options->slurmOptions;
    addFlag(app, "--slurm", options->slurm, "submit the run as Slurm job arrays (docs/slurm.md)");
    addInteger(app, "--tasks", slurm.tasks, "--slurm: array tasks per batch", 1, 10000);
    addText(app, "--partition", slurm.partition, "--slurm: the partition");
    addInteger(app, "--gpus-per-task", slurm.gpusPerTask, "--slurm: GPUs per task (0: none)", 0, kMost);
    addInteger(app, "--cpus-per-task", slurm.cpusPerTask, "--slurm: CPUs per task (0: Slurm's default)", 0, kMost);
    addText(app, "--account", slurm.account, "--slurm: the account");
    addText(app, "--time", slurm.time, "--slurm: each task's time limit, HH:MM:SS");
    addRepeated(app, "--sbatch-arg", slurm.sbatchArgs, "--slurm: an argument for sbatch, as it is (repeatable)");
    addInteger(app, "--slurm-retries", slurm.retries, "--slurm: resubmissions of a failed task", 0, kMost);
    // What the Slurm scripts run (core/autotune/slurm.cpp): an array task and the merge job.
    addText(app, "--shard", options->shard, "Slurm task: K/T, this task's share of the batch")
        ->check(CLI::Validator(
            [](std::string &text) -> std::string {
                int k = 0, t = 0;
                return parseShard(text, k, t) ? "" : "expected K/T with 0 <= K < T, found '" + text + "'";
            },
            "K/T"));
    CLI::Option *shard = app.get_option("--shard");
    addInteger(app, "--batch", options->batch, "Slurm task: the batch", 0, kMost)->needs(shard);
    addText(app, "--prior", o.priorFolder, "Slurm task: the run folder of the batches before")->needs(shard);
    addInteger(app, "--slurm-merge", options->mergeBatch, "Slurm merge job: the batch to merge", 0, kMost);
    addInteger(app, "--slurm-attempt", options->attempt, "Slurm merge job: the attempt being merged", 0, kMost);
    return [options](const std::vector<std::string> &) { return runAutotuneCommand(*options); };
}

const CommandRegistration registration{Command{
    "", "autotune", kSynopsis,
    "Halide's autotune loop: search with dropout, compile, measure on the local device, write .sample files, retrain "
    "(resumable)",
    defineAutotune}};

} // namespace

} // namespace beamscope::cli
