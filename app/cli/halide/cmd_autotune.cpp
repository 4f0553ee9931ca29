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

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <filesystem>
#include <map>
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

// "K/T" of --shard.
bool parseShard(const std::string &text, int &index, int &count)
{
    const size_t slash = text.find('/');
    if (slash == std::string::npos)
        return false;
    try {
        index = std::stoi(text.substr(0, slash));
        count = std::stoi(text.substr(slash + 1));
    } catch (const std::exception &) {
        return false;
    }
    return count >= 1 && index >= 0 && index < count;
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
    if (r.status != samples::Status::Ok && !r.message.empty())
        line += ": " + r.message.substr(0, 300);
    return line;
}

Json recordsJson(const std::vector<samples::ScheduleRecord> &records)
{
    Json a = Json::array();
    for (const auto &r : records)
        a.push(r.toJson());
    return a;
}

int runAutotuneCommand(const std::vector<std::string> &rawArgs)
{
    Arguments args(rawArgs, {"json", "retrain", "no-retrain", "no-randomize-tilings", "no-freeze", "slurm"},
                   {"out", "app", "random", "random-stages", "generator", "name", "param", "weights", "target",
                    "profile", "batches", "batch-size", "jobs", "epochs", "learning-rate", "min-batch", "seed",
                    "first-beam", "dropout", "reps", "warmup", "scale", "compile-timeout", "bench-timeout", "cache",
                    "inject-fault", "tasks", "partition", "gpus-per-task", "cpus-per-task", "account", "time",
                    "sbatch-arg", "slurm-retries", "shard", "batch", "prior", "slurm-merge", "slurm-attempt"});
    auto usage = [](const std::string &why) { return usageError("", "autotune", why); };
    if (!args.ok())
        return usage(args.error());
    if (!args.positional().empty())
        return usage("unexpected argument '" + args.positional().front() + "'");
    const auto out = args.value("out");
    if (!out)
        return usage("--out DIR is required");
    const auto targetName = args.value("target");
    if (!targetName)
        return usage("--target cuda|opencl is required");
    const std::optional<bench::TargetKind> target = bench::parseTargetKind(*targetName);
    if (!target || *target == bench::TargetKind::Host)
        return usage("--target: expected cuda or opencl, found '" + *targetName + "'");
    if (args.flag("retrain") && args.flag("no-retrain"))
        return usage("--retrain and --no-retrain exclude each other");

    autotune::AutotuneRequest o;
    o.outDir = *out;
    o.target = *targetName;
    o.profile = args.value("profile").value_or("");
    o.weights = args.value("weights").value_or("");
    o.batches = static_cast<int>(args.integer("batches", 1));
    o.batchSize = static_cast<int>(args.integer("batch-size", 80));
    o.jobs = static_cast<int>(args.integer("jobs", 0));
    o.retrain = !args.flag("no-retrain");
    o.epochs = static_cast<int>(args.integer("epochs", 200));
    o.learningRate = static_cast<float>(args.number("learning-rate", 0.001));
    o.minBatch = static_cast<int>(args.integer("min-batch", 9));
    o.seed = static_cast<uint64_t>(args.integer("seed", 0));
    o.firstBeamSize = static_cast<int>(args.integer("first-beam", 32));
    o.otherDropout = static_cast<int>(args.integer("dropout", 1));
    o.randomizeTilings = !args.flag("no-randomize-tilings");
    o.freezeInlineComputeRoot = !args.flag("no-freeze");
    o.reps = static_cast<int>(args.integer("reps", 10));
    o.warmup = static_cast<int>(args.integer("warmup", 1));
    o.scale = args.number("scale", 1.0);
    o.compileTimeoutSeconds = args.number("compile-timeout", 600);
    o.benchTimeoutSeconds = args.number("bench-timeout", 10);
    o.cacheDir = args.value("cache").value_or("");
    const long long randomCount = args.integer("random", 0);
    const long long randomStages = args.integer("random-stages", 4);
    if (!args.ok())
        return usage(args.error());
    if (o.batches < 1 || o.batches > 9999 || o.batchSize < 1 || o.batchSize > 9999)
        return usage("--batches and --batch-size: expected 1..9999");
    if (o.jobs < 0 || o.epochs < 1 || !(o.learningRate > 0) || o.minBatch < 1)
        return usage("--jobs >= 0, --epochs >= 1, --learning-rate > 0 and --min-batch >= 1 expected");
    if (o.firstBeamSize < 1 || o.firstBeamSize > 100000 || o.otherDropout < 1 || o.otherDropout > 100)
        return usage("--first-beam: expected 1..100000; --dropout: expected a percentage 1..100 of children kept");
    if (o.reps < 1 || o.warmup < 0 || !(o.scale > 0) || !(o.compileTimeoutSeconds > 0) || !(o.benchTimeoutSeconds > 0))
        return usage("--reps >= 1, --warmup >= 0, --scale, --compile-timeout and --bench-timeout > 0 expected");
    if (randomCount < 0 || randomCount > 10000 || randomStages < 1 || randomStages > 50)
        return usage("--random: expected 0..10000 pipelines; --random-stages: expected 1..50");
    o.randomPipelines = static_cast<int>(randomCount);
    o.randomStages = static_cast<int>(randomStages);
    for (const std::string &f : args.values("inject-fault")) {
        const size_t eq = f.find('=');
        if (eq == std::string::npos)
            return usage("--inject-fault: expected PIPELINE:BATCH:INDEX=crash|hang|wrong-output, found '" + f + "'");
        o.injectFaults[f.substr(0, eq)] = f.substr(eq + 1);
    }
    o.apps = args.values("app");
    if (auto lib = args.value("generator")) {
        const auto gen = args.value("name");
        if (!gen)
            return usage("--generator needs --name GEN");
        o.generatorLibrary = *lib;
        o.generatorName = *gen;
        try {
            o.generatorParams = pipelines::parseGeneratorParams(args.values("param"));
        } catch (const std::exception &e) {
            return fail(e.what());
        }
    }
    if (o.apps.empty() && o.randomPipelines == 0 && o.generatorLibrary.empty())
        return usage("name the pipelines: --app A (repeatable), --random N, or --generator LIB.so --name G");

    // Slurm: an array task (--shard), the merge job (--slurm-merge), or the submission (--slurm).
    if (auto shard = args.value("shard")) {
        if (!parseShard(*shard, o.shardIndex, o.shardCount))
            return usage("--shard: expected K/T with 0 <= K < T, found '" + *shard + "'");
        o.onlyBatch = static_cast<int>(args.integer("batch", 0));
        o.priorFolder = args.value("prior").value_or("");
        o.retrain = false;
        // Compile on the CPUs Slurm gave the task, not on every core of the node.
        if (o.jobs == 0)
            if (const char *cpus = std::getenv("SLURM_CPUS_PER_TASK"))
                o.jobs = std::max(1, std::atoi(cpus));
    }
    const long long mergeBatch = args.integer("slurm-merge", -1);
    const long long attempt = args.integer("slurm-attempt", 0);
    SlurmOptions slurm;
    slurm.tasks = static_cast<int>(args.integer("tasks", 2));
    slurm.gpusPerTask = static_cast<int>(args.integer("gpus-per-task", 0));
    slurm.cpusPerTask = static_cast<int>(args.integer("cpus-per-task", 0));
    slurm.retries = static_cast<int>(args.integer("slurm-retries", 2));
    slurm.partition = args.value("partition").value_or("");
    slurm.account = args.value("account").value_or("");
    slurm.time = args.value("time").value_or("");
    slurm.sbatchArgs = args.values("sbatch-arg");
    if (!args.ok())
        return usage(args.error());
    if (slurm.tasks < 1 || slurm.tasks > 10000 || slurm.gpusPerTask < 0 || slurm.cpusPerTask < 0 || slurm.retries < 0)
        return usage("--tasks 1..10000, --gpus-per-task, --cpus-per-task and --slurm-retries >= 0 expected");
    if (args.flag("slurm")) {
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
        if (args.flag("json"))
            std::cout << sub->toJson().dump(2) << "\n";
        return kSuccess;
    }

    const bool json = args.flag("json");
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
        const autotune::MergeOutcome m =
            autotune::mergeSlurmBatch(o, static_cast<int>(mergeBatch), static_cast<int>(attempt), &progress, events);
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
    if (!result.note.empty())
        std::cerr << "autotune: " << result.note << "\n";
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

const CommandRegistration registration{Command{
    "", "autotune", kSynopsis,
    "Halide's autotune loop: search with dropout, compile, measure on the local device, write .sample files, retrain "
    "(resumable)",
    runAutotuneCommand}};

} // namespace

} // namespace beamscope::cli
