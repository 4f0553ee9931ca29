#include "core/samples/retrain.h"

#include "core/model/cost_model.h"
#include "core/samples/checkpoint.h"
#include "core/util/atomic_file.h"
#include "core/util/json.h"
#include "core/weights/shipped_weights.h"

#include <algorithm>
#include <set>

namespace beamscope::samples {

namespace fs = std::filesystem;

std::optional<weights::Weights> loadStartingWeights(const fs::path &path, std::string &error)
{
    auto loaded = weights::loadWeights(path);
    if (!loaded.ok()) {
        const auto *first = loaded.firstError();
        error = first ? first->format() : path.string() + ": cannot load weights";
        return std::nullopt;
    }
    if (const auto why = model::checkWeights(*loaded.weights); !why.empty()) {
        error = path.string() + ": " + why;
        return std::nullopt;
    }
    return std::move(*loaded.weights);
}

std::string RetrainPlan::describe() const
{
    return "training set: " + std::to_string(split.training.size()) + " pipelines, " +
           std::to_string(trainingSchedules) +
           " schedules; validation set: " + std::to_string(split.validation.size()) + " pipelines, " +
           std::to_string(validationSchedules) + " schedules" +
           (split.swapped ? " (swapped: every pipeline hashed to validation)" : "");
}

PlanResult planRetrain(const Dataset &dataset, const RetrainSettings &settings)
{
    PlanResult result;
    const auto refuse = [&](std::string option, std::string message) {
        result.refusal = RetrainRefusal{std::move(option), std::move(message)};
        return result;
    };
    if (settings.output.empty())
        return refuse("out", "no output file chosen");
    const fs::path checkpoint = checkpointPathFor(settings.output);
    std::error_code ec;
    if (fs::exists(settings.output, ec) && !settings.replace)
        return refuse("force", settings.output.string() + ": already exists (replace it, or choose another output)");
    // A checkpoint of an earlier run is never dropped without being asked:
    // resume continues it, replacing starts over.
    if (fs::exists(checkpoint, ec) && !settings.training.resume && !settings.replace)
        return refuse("resume",
                      checkpoint.string() +
                          ": a checkpoint of an earlier run exists: resume continues it, replacing starts over");
    if (dataset.pipelines.empty())
        return refuse("samples", "no usable sample in " + std::to_string(dataset.filesRead) + " file(s) read");

    RetrainPlan plan;
    plan.settings = settings;
    plan.checkpoint = checkpoint;
    plan.resumes = settings.training.resume && fs::exists(checkpoint, ec);
    if (settings.holdOut) {
        const auto apps = dataset.apps();
        if (std::find(apps.begin(), apps.end(), *settings.holdOut) == apps.end()) {
            std::string known;
            for (const auto &app : apps)
                known += (known.empty() ? "" : ", ") + app;
            return refuse("hold-out", *settings.holdOut + ": no sample of that app (apps: " +
                                          (known.empty() ? "none; see docs/samples.md for the layout" : known) + ")");
        }
        plan.split = holdOutApp(dataset, *settings.holdOut);
    } else {
        plan.split = splitLikeHalide(dataset, settings.splitMode);
    }
    if (makeBatches(plan.split.training, settings.training.batches).empty())
        return refuse("min-batch", noTrainingBatchMessage(plan.split.training, settings.training.batches));
    for (const auto &p : plan.split.training)
        plan.trainingSchedules += p.schedules.size();
    for (const auto &p : plan.split.validation)
        plan.validationSchedules += p.schedules.size();
    result.plan = std::move(plan);
    return result;
}

std::string noTrainingBatchMessage(const std::vector<PipelineSet> &training, const BatchOptions &batches)
{
    size_t largest = 0;
    for (const auto &p : training)
        largest = std::max(largest, p.schedules.size());
    return "no training batch: " + std::to_string(training.size()) + " training pipeline(s), the largest with " +
           std::to_string(largest) + " distinct schedule(s); batches need at least " + std::to_string(batches.minSize) +
           " (Halide trains only on more than 8)";
}

WriteResult saveTrainedWeights(weights::Weights trained, const fs::path &path, Overwrite overwrite)
{
    trained.pipelineFeaturesVersion = weights::kAnderson2021PipelineVersion;
    trained.scheduleFeaturesVersion = weights::kAnderson2021ScheduleVersion;
    return weights::saveWeightsFile(trained, path, overwrite);
}

namespace {
// Beside the output, which apps trained it: scoring it later on one of them is flagged in-sample
// (weights::TrainingSet). A record that cannot be written costs only that flag, never the run.
void writeTrainingRecord(const RetrainPlan &plan, const fs::path &output)
{
    std::set<std::string> apps;
    for (const PipelineSet &p : plan.split.training)
        if (!p.app.empty())
            apps.insert(p.app);
    Json record = Json::object();
    Json list = Json::array();
    for (const std::string &app : apps)
        list.push(app);
    record["trained_on_apps"] = list;
    record["training_pipelines"] = static_cast<uint64_t>(plan.split.training.size());
    // By content too: samples of these pipelines are in-sample whatever folder they sit in
    // (weights::TrainingSet::containsPipeline), a flat folder with no app names included.
    Json hashes = Json::array();
    for (const PipelineSet &p : plan.split.training)
        hashes.push(p.pipelineHash);
    record["training_pipeline_hashes"] = hashes;
    if (plan.settings.holdOut)
        record["held_out_app"] = *plan.settings.holdOut;
    const std::string text = record.dump(2) + "\n";
    writeFileAtomically(weights::trainingRecordPath(output), std::span<const char>(text.data(), text.size()),
                        Overwrite::Replace);
}
} // namespace

RetrainResult runRetrainPlan(const RetrainPlan &plan, const weights::Weights &initial, Progress *progress)
{
    RetrainResult result;
    const RetrainSettings &s = plan.settings;
    std::error_code ec;
    if (!plan.resumes)
        fs::remove(plan.checkpoint, ec); // a fresh start (asked for by replacing) must not pick up an older run
    // The output's folder (e.g. the library's "trained" folder on first use) also holds the checkpoint.
    if (const fs::path folder = s.output.parent_path(); !folder.empty() && !fs::is_directory(folder, ec)) {
        fs::create_directories(folder, ec);
        if (ec) {
            result.error = folder.string() + ": cannot create: " + ec.message();
            return result;
        }
    }
    TrainingOptions options = s.training;
    options.checkpointPath = plan.checkpoint;
    options.resume = plan.resumes;
    TrainingRun run = trainModel(initial, plan.split.training, plan.split.validation, options, progress);
    result.history = std::move(run.history);
    result.epochsCompleted = run.epochsCompleted;
    result.resumedEpochs = run.resumedEpochs;
    if (!run.ok()) {
        result.error = run.error;
        return result;
    }
    if (run.cancelled) {
        result.cancelled = true;
        return result;
    }
    const WriteResult written =
        saveTrainedWeights(run.state.weights, s.output, s.replace ? Overwrite::Replace : Overwrite::Refuse);
    if (!written.ok) {
        result.error = written.error;
        return result;
    }
    fs::remove(plan.checkpoint, ec); // the output now holds what the checkpoint protected
    writeTrainingRecord(plan, s.output);
    result.trained = std::move(run.state.weights);
    result.ok = true;
    return result;
}

} // namespace beamscope::samples
