// beamscope-cli retrain: train the cost model on measured .sample files, like
// Halide's anderson2021_retrain_cost_model but seeded, resumable and with a
// validation report; --hold-one-out trains one weights file per app. Wiring
// only: the loop lives in core/samples/training_loop.h.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/stderr_progress.h"
#include "core/samples/hold_one_out_slurm.h"
#include "core/samples/retrain.h"

#include <algorithm>
#include "app/cli/text_table.h"
#include "core/model/cost_model.h"
#include "core/samples/dataset.h"
#include "core/samples/prediction.h"
#include "core/samples/training_loop.h"
#include "core/util/atomic_file.h"
#include "core/util/json.h"
#include "core/util/progress.h"
#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

namespace beamscope::cli {

namespace {

using namespace beamscope::samples;
namespace fs = std::filesystem;

constexpr const char *kSynopsis =
    "--samples DIR... (--initial W | --init random --seed S) (--out W2 | --hold-one-out --out-dir D) "
    "[--epochs N] [--learning-rate R] [--hold-out APP] [--seed S] [--loss-csv FILE] [--num-cores N] "
    "[--min-batch N] [--partition-schedules] [--resume] [--force] [--json] [--only-app APP] "
    "[--slurm [--partition P] [--account A] [--time T] [--gpus-per-task N] [--cpus-per-task N] [--sbatch-arg X]...]";

Json summaryJson(const RankSummary &s)
{
    Json j = Json::object();
    j["pipelines"] = static_cast<uint64_t>(s.pipelines);
    j["spearman"] = s.spearman;
    j["kendall"] = s.kendall;
    j["pairwise_accuracy"] = s.pairwiseAccuracy;
    return j;
}

Json historyJson(const std::vector<EpochRecord> &history)
{
    Json list = Json::array();
    for (const auto &e : history) {
        Json j = Json::object();
        j["epoch"] = e.epoch;
        j["training_loss"] = e.trainingLoss;
        j["validation_loss"] = e.validationLoss;
        j["training_batches"] = static_cast<uint64_t>(e.trainingBatches);
        j["validation_batches"] = static_cast<uint64_t>(e.validationBatches);
        j["validation"] = summaryJson(e.validation);
        list.push(std::move(j));
    }
    return list;
}

std::string lossCsv(const std::vector<EpochRecord> &history)
{
    std::ostringstream out;
    out << "epoch,training_loss,validation_loss,training_batches,validation_batches,validation_spearman,"
           "validation_kendall,validation_pairwise_accuracy\n";
    auto field = [](double v) { return v != v ? std::string() : formatNumber(v, "%.9g"); };
    for (const auto &e : history)
        out << e.epoch << "," << field(e.trainingLoss) << "," << field(e.validationLoss) << "," << e.trainingBatches
            << "," << e.validationBatches << "," << field(e.validation.spearman) << "," << field(e.validation.kendall)
            << "," << field(e.validation.pairwiseAccuracy) << "\n";
    return out.str();
}

// The command line, as parsed (defineRetrain binds the options to it).
struct Settings {
    SampleRoots samples;
    std::vector<fs::path> roots; // samples.paths(), once parsed
    std::optional<std::string> initialPath;
    std::optional<std::string> init; // "random"
    bool randomInit = false;
    TrainingOptions training;
    bool force = false;
    bool json = false;
    bool partitionSchedules = false;
    std::optional<std::string> holdOut;
    std::optional<std::string> lossCsv;
    std::optional<std::string> onlyApp; // --hold-one-out: train this app's file only (a Slurm task)
    bool holdOneOut = false;
    std::optional<std::string> out, outDir;
    bool slurm = false;
    SlurmOptions slurmOptions;
};

// Reads --initial, or makes Halide-style random weights for --init random.
std::optional<weights::Weights> initialWeights(const Settings &s)
{
    if (s.randomInit)
        return randomWeights(s.training.seed);
    std::string error;
    auto loaded = loadStartingWeights(*s.initialPath, error);
    if (!loaded)
        std::cerr << "beamscope-cli: " << error << "\n";
    return loaded;
}

// The CLI's word for each setting a plan refuses on.
std::string optionHint(const std::string &option)
{
    if (option == "force")
        return " (--force replaces it)";
    if (option == "resume")
        return " (--resume continues it, --force starts over)";
    return {};
}

void printEpoch(const EpochRecord &e)
{
    std::cerr << "epoch " << e.epoch << ": training loss " << formatNumber(e.trainingLoss) << ", validation loss "
              << formatNumber(e.validationLoss) << ", validation Spearman "
              << formatNumber(e.validation.spearman, "%.4f") << ", Kendall "
              << formatNumber(e.validation.kendall, "%.4f") << ", pairwise "
              << formatNumber(e.validation.pairwiseAccuracy, "%.4f") << "\n";
}

int runSingle(const Settings &s, const Dataset &dataset, const weights::Weights &initial, const fs::path &out)
{
    RetrainSettings settings;
    settings.training = s.training;
    settings.training.onEpoch = printEpoch;
    settings.holdOut = s.holdOut;
    settings.splitMode = s.partitionSchedules ? SplitMode::BySchedule : SplitMode::ByPipeline;
    settings.output = out;
    settings.replace = s.force;
    const PlanResult planned = planRetrain(dataset, settings);
    if (planned.refusal) {
        std::cerr << "beamscope-cli: " << (planned.refusal->option == "hold-out" ? "--hold-out " : "")
                  << planned.refusal->message << optionHint(planned.refusal->option) << "\n";
        return kFailure;
    }
    const RetrainPlan &plan = *planned.plan;
    std::error_code ec;
    if (s.training.resume && !plan.resumes)
        std::cerr << "note: no checkpoint at " << plan.checkpoint.string() << ", starting from epoch 1\n";
    std::cerr << plan.describe() << "\n";
    if (plan.resumes)
        std::cerr << "resuming from " << plan.checkpoint.string() << "\n";
    StderrProgress progress("retrain ");
    const RetrainResult run = runRetrainPlan(plan, initial, &progress);
    if (!run.error.empty()) {
        std::cerr << "beamscope-cli: " << run.error << "\n";
        return kFailure;
    }
    if (run.resumedEpochs > 0)
        std::cerr << "resumed after epoch " << run.resumedEpochs << " from " << plan.checkpoint.string() << "\n";
    if (run.cancelled) {
        std::cerr << "beamscope-cli: cancelled after epoch " << run.epochsCompleted << " of " << s.training.epochs
                  << "; "
                  << (run.epochsCompleted > 0 ? plan.checkpoint.string() + " keeps it; rerun with --resume"
                                              : "nothing to keep")
                  << "\n";
        return kFailure;
    }
    if (s.lossCsv) {
        const auto text = lossCsv(run.history);
        if (auto w = writeFileAtomically(*s.lossCsv, text, s.force ? Overwrite::Replace : Overwrite::Refuse); !w.ok) {
            std::cerr << "beamscope-cli: " << w.error << "\n";
            return kFailure;
        }
    }

    if (s.json) {
        Json doc = Json::object();
        doc["out"] = out.string();
        doc["initial"] = s.randomInit ? Json("random") : Json(*s.initialPath);
        doc["seed"] = static_cast<uint64_t>(s.training.seed);
        doc["epochs"] = s.training.epochs;
        doc["learning_rate"] = s.training.learningRate;
        doc["num_cores"] = s.training.numCores;
        doc["hold_out"] = s.holdOut ? Json(*s.holdOut) : Json();
        doc["training_pipelines"] = static_cast<uint64_t>(plan.split.training.size());
        doc["validation_pipelines"] = static_cast<uint64_t>(plan.split.validation.size());
        doc["history"] = historyJson(run.history);
        std::cout << doc.dump(2) << "\n";
    } else {
        std::cout << "wrote " << out.string() << " after " << run.epochsCompleted << " epoch(s)\n";
    }
    return kSuccess;
}

int runHoldOneOut(const Settings &s, const Dataset &dataset, const weights::Weights &initial, const fs::path &outDir)
{
    auto apps = dataset.apps();
    if (s.onlyApp) {
        if (std::find(apps.begin(), apps.end(), *s.onlyApp) == apps.end()) {
            std::cerr << "beamscope-cli: --only-app " << *s.onlyApp << ": no sample names that app\n";
            return kFailure;
        }
        apps = {*s.onlyApp};
    }
    if (apps.empty()) {
        std::cerr << "beamscope-cli: --hold-one-out: no sample names an app (put samples in <root>/<app>/ or map "
                     "pipeline ids in <root>/apps.tsv; see docs/samples.md)\n";
        return kFailure;
    }
    std::error_code ec;
    fs::create_directories(outDir, ec);
    if (ec) {
        std::cerr << "beamscope-cli: " << outDir.string() << ": cannot create: " << ec.message() << "\n";
        return kFailure;
    }
    // Refuse before training anything rather than after the first app.
    if (!s.force && !s.training.resume)
        for (const auto &app : apps)
            for (const auto &path : {outDir / (app + ".weights"), checkpointPathFor(outDir / (app + ".weights"))})
                if (fs::exists(path, ec)) {
                    std::cerr << "beamscope-cli: " << path.string()
                              << ": already exists (--resume continues, --force starts over)\n";
                    return kFailure;
                }

    Json appsJson = Json::array();
    std::vector<std::vector<std::string>> rows{
        {"app", "pipelines", "schedules", "spearman", "", "kendall", "", "pairwise_acc", "", "val_loss", ""},
        {"", "", "", "before", "after", "before", "after", "before", "after", "before", "after"}};
    int failures = 0;
    for (const auto &app : apps) {
        const auto split = holdOutApp(dataset, app);
        const fs::path out = outDir / (app + ".weights");
        size_t heldSchedules = 0;
        for (const auto &p : split.validation)
            heldSchedules += p.schedules.size();
        Json item = Json::object();
        item["app"] = app;
        item["weights"] = out.string();
        item["pipelines"] = static_cast<uint64_t>(split.validation.size());
        item["schedules"] = static_cast<uint64_t>(heldSchedules);
        if (makeBatches(split.training, s.training.batches).empty()) {
            const auto why = noTrainingBatchMessage(split.training, s.training.batches);
            std::cerr << "hold-one-out " << app << ": skipped: " << why << "\n";
            item["error"] = why;
            appsJson.push(std::move(item));
            ++failures;
            continue;
        }
        std::cerr << "hold-one-out " << app << ": training on " << split.training.size() << " pipelines, holding out "
                  << split.validation.size() << "\n";
        const EpochRecord before = evaluateWeights(initial, split.training, split.validation, s.training);
        std::optional<weights::Weights> trained;
        std::vector<EpochRecord> history;
        if (s.training.resume && fs::exists(out, ec)) {
            // Finished in an earlier run: evaluate what it wrote.
            std::string error;
            trained = loadStartingWeights(out, error);
            if (!trained) {
                std::cerr << "beamscope-cli: " << error << "\n";
                return kFailure;
            }
        } else {
            TrainingOptions options = s.training;
            options.checkpointPath = checkpointPathFor(out);
            options.onEpoch = printEpoch;
            if (!s.training.resume)
                fs::remove(options.checkpointPath, ec);
            StderrProgress progress("hold-one-out " + app + " ");
            auto run = trainModel(initial, split.training, split.validation, options, &progress);
            if (!run.ok()) {
                std::cerr << "beamscope-cli: " << run.error << "\n";
                return kFailure;
            }
            if (run.cancelled) {
                std::cerr << "beamscope-cli: cancelled during app " << app << "; rerun with --resume\n";
                return kFailure;
            }
            if (auto w = saveTrainedWeights(run.state.weights, out, Overwrite::Replace); !w.ok) {
                std::cerr << "beamscope-cli: " << w.error << "\n";
                return kFailure;
            }
            fs::remove(options.checkpointPath, ec);
            trained = std::move(run.state.weights);
            history = std::move(run.history);
        }
        const EpochRecord after = evaluateWeights(*trained, split.training, split.validation, s.training);
        item["before"] = summaryJson(before.validation);
        item["after"] = summaryJson(after.validation);
        item["validation_loss_before"] = before.validationLoss;
        item["validation_loss_after"] = after.validationLoss;
        item["history"] = historyJson(history);
        appsJson.push(std::move(item));
        rows.push_back({app, std::to_string(split.validation.size()), std::to_string(heldSchedules),
                        formatNumber(before.validation.spearman, "%.4f"),
                        formatNumber(after.validation.spearman, "%.4f"),
                        formatNumber(before.validation.kendall, "%.4f"), formatNumber(after.validation.kendall, "%.4f"),
                        formatNumber(before.validation.pairwiseAccuracy, "%.4f"),
                        formatNumber(after.validation.pairwiseAccuracy, "%.4f"),
                        formatNumber(before.validationLoss, "%.4g"), formatNumber(after.validationLoss, "%.4g")});
    }

    Json doc = Json::object();
    doc["initial"] = s.randomInit ? Json("random") : Json(*s.initialPath);
    doc["seed"] = static_cast<uint64_t>(s.training.seed);
    doc["epochs"] = s.training.epochs;
    doc["learning_rate"] = s.training.learningRate;
    doc["num_cores"] = s.training.numCores;
    doc["min_batch"] = static_cast<uint64_t>(s.training.batches.minSize);
    doc["apps"] = std::move(appsJson);
    const std::string text = doc.dump(2) + "\n";
    if (auto w = writeFileAtomically(outDir / "holdout.json", text, Overwrite::Replace); !w.ok) {
        std::cerr << "beamscope-cli: " << w.error << "\n";
        return kFailure;
    }
    if (s.json)
        std::cout << text;
    else
        printTable(std::cout, rows);
    return failures == 0 ? kSuccess : kFailure;
}

int runRetrain(Settings &s, const std::vector<std::string> &args)
{
    s.roots = s.samples.paths();
    s.randomInit = s.init.has_value();
    if (!s.initialPath && !s.randomInit)
        return usageError("", "retrain",
                          "starting weights are required: --initial W, or --init random --seed S "
                          "(weights are never made up silently)");
    if (s.initialPath) { // a path, or a shipped file's name
        std::string error;
        const fs::path initial = weights::resolveWeightsArgument(s.initialPath, std::nullopt, error);
        if (initial.empty()) {
            std::cerr << "beamscope-cli: --initial " << error << "\n";
            return kFailure;
        }
        s.initialPath = initial.string();
    }
    const bool holdOneOut = s.holdOneOut;
    const auto &out = s.out;
    const auto &outDir = s.outDir;
    if (holdOneOut ? !outDir : !out)
        return usageError("", "retrain",
                          holdOneOut ? "--hold-one-out needs --out-dir D"
                                     : "--out W2 is required (or --hold-one-out --out-dir D)");

    const auto initial = initialWeights(s);
    if (!initial)
        return kFailure;
    StderrProgress loading("loading ");
    const auto loaded = loadSamples(s.roots, &loading);
    if (!loaded.ok()) {
        for (const auto &e : loaded.errors)
            std::cerr << "beamscope-cli: " << e << "\n";
        return kFailure;
    }
    for (const auto &skip : loaded.dataset.skipped)
        std::cerr << "skipped " << skip.file.string() << ": " << skip.reason << "\n";
    for (const auto &warning : loaded.dataset.warnings)
        std::cerr << "warning: " << warning.file.string() << ": " << warning.message << "\n";
    if (loaded.dataset.pipelines.empty()) {
        std::cerr << "beamscope-cli: no usable sample in " << loaded.dataset.filesRead << " file(s) read\n";
        return kFailure;
    }

    if (s.slurm) {
        const SlurmOptions &slurm = s.slurmOptions;
        // The tasks read the samples from where this command did.
        std::vector<std::string> forwarded =
            withoutOptions(args, {"slurm", "hold-one-out", "resume", "force", "json"},
                           {"out-dir", "partition", "account", "time", "gpus-per-task", "cpus-per-task", "sbatch-arg",
                            "only-app", "samples", "initial"});
        for (const fs::path &root : s.roots)
            forwarded.insert(forwarded.begin(), {"--samples", fs::absolute(root).string()});
        if (s.initialPath)
            forwarded.insert(forwarded.begin(), {"--initial", fs::absolute(*s.initialPath).string()});
        std::error_code ec;
        const fs::path self = fs::read_symlink("/proc/self/exe", ec);
        std::string error;
        const auto sub = submitHoldOneOut(loaded.dataset.apps(), ec ? "beamscope-cli" : self.string(), forwarded,
                                          *outDir, slurm, error);
        if (!sub) {
            std::cerr << "beamscope-cli retrain: " << error << "\n";
            return kFailure;
        }
        std::cerr << "retrain: submitted " << sub->apps.size() << " hold-one-out tasks as array job " << sub->arrayJob
                  << "; the quality table (job " << sub->assembleJob << ") goes to "
                  << (fs::absolute(*outDir) / "hold-one-out.txt").string() << "\n";
        return kSuccess;
    }

    InterruptScope interrupt;
    return holdOneOut ? runHoldOneOut(s, loaded.dataset, *initial, *outDir)
                      : runSingle(s, loaded.dataset, *initial, *out);
}

CommandRun defineRetrain(CLI::App &app)
{
    auto s = std::make_shared<Settings>();
    addSampleRoots(app, s->samples);
    CLI::Option *initial =
        addText(app, "--initial", s->initialPath, "the weights training starts from: a path or a shipped file's name");
    CLI::Option *init = addText(app, "--init", s->init, "random: start from Halide-style random weights (needs --seed)")
                            ->check(oneOf({"random"}));
    initial->excludes(init);
    CLI::Option *out = addText(app, "--out", s->out, "the trained weights file to write");
    CLI::Option *holdOneOut = addFlag(app, "--hold-one-out", s->holdOneOut,
                                      "train one weights file per app, each without that app's samples");
    CLI::Option *outDir = addText(app, "--out-dir", s->outDir, "--hold-one-out: the folder of <app>.weights files");
    outDir->needs(holdOneOut);
    out->excludes(holdOneOut);
    addInteger(app, "--epochs", s->training.epochs, "passes over the training set", 1, 1000000);
    addNumber(app, "--learning-rate", s->training.learningRate, "ADAM's learning rate", 0, 1, true);
    CLI::Option *holdOut = addText(app, "--hold-out", s->holdOut, "validate on this app's samples, train on the rest");
    CLI::Option *seed = addInteger(app, "--seed", s->training.seed, "the seed of batching, dropout and --init random");
    init->needs(seed);
    CLI::Option *csv = addText(app, "--loss-csv", s->lossCsv, "write each epoch's losses to this CSV file");
    holdOneOut->excludes(holdOut)->excludes(csv);
    addInteger(app, "--num-cores", s->training.numCores, "the parallelism the cost model assumes", 1, 1000000);
    addInteger(app, "--min-batch", s->training.batches.minSize, "the fewest schedules a training batch holds",
               size_t{1}, size_t{64});
    addFlag(app, "--partition-schedules", s->partitionSchedules,
            "split schedules, not pipelines, between training and validation");
    addFlag(app, "--resume", s->training.resume, "continue from the checkpoint an interrupted run left");
    addFlag(app, "--force", s->force, "replace outputs and checkpoints that exist");
    addJsonFlag(app, s->json);
    addText(app, "--only-app", s->onlyApp, "--hold-one-out: train this app's file only (what a Slurm task does)")
        ->needs(holdOneOut);
    CLI::Option *slurm =
        addFlag(app, "--slurm", s->slurm, "submit --hold-one-out as a Slurm job array, one task per app");
    slurm->needs(holdOneOut);
    SlurmOptions &so = s->slurmOptions;
    addText(app, "--partition", so.partition, "--slurm: the partition");
    addText(app, "--account", so.account, "--slurm: the account");
    addText(app, "--time", so.time, "--slurm: each task's time limit");
    addInteger(app, "--gpus-per-task", so.gpusPerTask, "--slurm: GPUs per task (0: none)", 0,
               std::numeric_limits<int>::max());
    addInteger(app, "--cpus-per-task", so.cpusPerTask, "--slurm: CPUs per task (0: Slurm's default)", 0,
               std::numeric_limits<int>::max());
    addRepeated(app, "--sbatch-arg", so.sbatchArgs, "--slurm: an argument for sbatch, as it is (repeatable)");
    return [s](const std::vector<std::string> &args) { return runRetrain(*s, args); };
}

const CommandRegistration registration{Command{
    "", "retrain", kSynopsis,
    "train the cost model on .sample files (seeded, checkpointed, resumable); --hold-one-out: one weights file per app",
    defineRetrain}};

} // namespace

} // namespace beamscope::cli
