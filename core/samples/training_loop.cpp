#include "core/samples/training_loop.h"

#include "core/samples/prediction.h"
#include "core/util/progress.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

namespace beamscope::samples {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A batch with its schedule features gathered the way the model wants them.
struct PreparedBatch {
    const PipelineSet *pipeline = nullptr;
    size_t first = 0; // index of the batch's first schedule in the pipeline
    int size = 0;
    std::vector<float> scheduleFeatures; // [size][S][73]
    std::vector<float> runtimes;         // [size] best runtime, ms

    model::TrainingBatch view(int numCores) const
    {
        model::TrainingBatch batch;
        batch.numStages = pipeline->stageCount;
        batch.batchSize = size;
        batch.pipelineFeatures = pipeline->pipelineFeatures;
        batch.scheduleFeatures = scheduleFeatures;
        batch.trueRuntimes = runtimes;
        batch.numCores = numCores;
        return batch;
    }
};

std::vector<PreparedBatch> prepareBatches(const std::vector<PipelineSet> &set, const BatchOptions &options)
{
    std::vector<PreparedBatch> prepared;
    for (const auto &b : makeBatches(set, options)) {
        PreparedBatch p;
        p.pipeline = &set[b.pipeline];
        p.first = b.first;
        p.size = static_cast<int>(b.size);
        for (size_t i = b.first; i < b.first + b.size; ++i) {
            const auto &schedule = p.pipeline->schedules[i];
            p.scheduleFeatures.insert(p.scheduleFeatures.end(), schedule.features.begin(), schedule.features.end());
            p.runtimes.push_back(schedule.bestRuntimeMs());
        }
        prepared.push_back(std::move(p));
    }
    return prepared;
}

double meanLoss(const weights::Weights &w, const std::vector<PreparedBatch> &batches, int numCores)
{
    if (batches.empty())
        return kNaN;
    double sum = 0;
    for (const auto &b : batches)
        sum += model::computeLoss(w, b.view(numCores));
    return sum / static_cast<double>(batches.size());
}

RankSummary validationRanks(const weights::Weights &w, const std::vector<PipelineSet> &validation, int numCores)
{
    if (validation.empty()) {
        RankSummary none;
        none.spearman = none.kendall = none.pairwiseAccuracy = kNaN;
        return none;
    }
    const model::CostModel costModel(w);
    return rankSummary(costModel, validation, numCores);
}

// The checkpoint must come from the same run set-up: anything else would
// silently train a different experiment.
std::string checkResumable(const Checkpoint &c, const TrainingOptions &o, uint64_t fingerprint,
                           const std::filesystem::path &path)
{
    std::ostringstream why;
    auto mismatch = [&](const char *field, const std::string &saved, const std::string &now) {
        why << path.string() << ": " << field << ": the checkpoint was made with " << saved << ", this run uses " << now
            << " (resume with the same settings, or start over without --resume)";
    };
    if (c.datasetFingerprint != fingerprint)
        mismatch("dataset", "other samples or another split", "these samples");
    else if (c.seed != o.seed)
        mismatch("seed", std::to_string(c.seed), std::to_string(o.seed));
    else if (c.learningRate != o.learningRate)
        mismatch("learning rate", std::to_string(c.learningRate), std::to_string(o.learningRate));
    else if (c.numCores != o.numCores)
        mismatch("num_cores", std::to_string(c.numCores), std::to_string(o.numCores));
    else if (c.maxBatch != o.batches.maxSize || c.minBatch != o.batches.minSize)
        mismatch("batch sizes", std::to_string(c.minBatch) + ".." + std::to_string(c.maxBatch),
                 std::to_string(o.batches.minSize) + ".." + std::to_string(o.batches.maxSize));
    return why.str();
}

std::string nonFiniteLossMessage(const PreparedBatch &batch, const model::LossAndGradients &pass, int epoch)
{
    std::ostringstream why;
    why << "epoch " << epoch << ": the loss of a batch of pipeline " << batch.pipeline->pipelineId << " (" << batch.size
        << " schedules from " << batch.pipeline->schedules[batch.first].file.string() << ") is not finite ("
        << pass.loss << ")";
    for (size_t i = 0; i < pass.predictions.size(); ++i)
        if (!std::isfinite(pass.predictions[i])) {
            why << "; the model predicts " << pass.predictions[i] << " for "
                << batch.pipeline->schedules[batch.first + i].file.string();
            break;
        }
    why << "; nothing was written past the last completed epoch (beamscope-cli predict lists every prediction)";
    return why.str();
}

} // namespace

EpochRecord evaluateWeights(const weights::Weights &w, const std::vector<PipelineSet> &training,
                            const std::vector<PipelineSet> &validation, const TrainingOptions &options)
{
    const auto trainingBatches = prepareBatches(training, options.batches);
    const auto validationBatches = prepareBatches(validation, options.batches);
    EpochRecord record;
    record.epoch = 0;
    record.trainingBatches = trainingBatches.size();
    record.validationBatches = validationBatches.size();
    record.trainingLoss = meanLoss(w, trainingBatches, options.numCores);
    record.validationLoss = meanLoss(w, validationBatches, options.numCores);
    record.validation = validationRanks(w, validation, options.numCores);
    return record;
}

TrainingRun trainModel(const weights::Weights &initial, const std::vector<PipelineSet> &training,
                       const std::vector<PipelineSet> &validation, const TrainingOptions &options, Progress *progress)
{
    TrainingRun run;
    if (const auto why = model::checkWeights(initial); !why.empty()) {
        run.error = "initial weights: " + why;
        return run;
    }
    const auto trainingBatches = prepareBatches(training, options.batches);
    const auto validationBatches = prepareBatches(validation, options.batches);
    const uint64_t fingerprint = datasetFingerprint(training, validation);

    // Batch order: Halide shuffles the same vector again every epoch, so epoch
    // e's order depends on all earlier shuffles; a resume replays them.
    std::vector<size_t> order(trainingBatches.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::mt19937 rng(options.seed);

    std::error_code ec;
    if (options.resume && !options.checkpointPath.empty() && std::filesystem::exists(options.checkpointPath, ec)) {
        auto read = readCheckpoint(options.checkpointPath);
        if (!read.checkpoint) {
            run.error = read.error;
            return run;
        }
        if (auto why = checkResumable(*read.checkpoint, options, fingerprint, options.checkpointPath); !why.empty()) {
            run.error = why;
            return run;
        }
        if (const auto bad = model::checkWeights(read.checkpoint->state.weights); !bad.empty()) {
            run.error = options.checkpointPath.string() + ": weights: " + bad;
            return run;
        }
        run.state = std::move(read.checkpoint->state);
        run.history = std::move(read.checkpoint->history);
        run.epochsCompleted = run.resumedEpochs = read.checkpoint->epochsCompleted;
        for (int e = 0; e < run.epochsCompleted; ++e)
            std::shuffle(order.begin(), order.end(), rng);
    } else {
        run.state = model::TrainingState::start(initial);
        run.history.push_back(evaluateWeights(initial, training, validation, options));
        if (options.onEpoch)
            options.onEpoch(run.history.back());
    }

    const double totalSteps = static_cast<double>(std::max(1, options.epochs)) *
                              static_cast<double>(std::max<size_t>(1, trainingBatches.size()));
    for (int epoch = run.epochsCompleted + 1; epoch <= options.epochs; ++epoch) {
        // Work on a copy: a cancel mid-epoch leaves run.state at the last
        // completed epoch, the same state the checkpoint holds.
        model::TrainingState state = run.state;
        std::shuffle(order.begin(), order.end(), rng);
        double lossSum = 0;
        bool stopped = false;
        for (size_t k = 0; k < order.size(); ++k) {
            if (progress && progress->cancelled()) {
                stopped = true;
                break;
            }
            const PreparedBatch &batch = trainingBatches[order[k]];
            const auto step = model::trainStep(state, batch.view(options.numCores), options.learningRate);
            if (!std::isfinite(step.pass.loss)) {
                // One NaN would spread through every weight; Halide asserts here.
                // run.state (and the checkpoint) keep the last completed epoch.
                run.error = nonFiniteLossMessage(batch, step.pass, epoch);
                return run;
            }
            lossSum += step.pass.loss;
            if (progress) {
                std::ostringstream message;
                message << "epoch " << epoch << "/" << options.epochs << ", batch " << k + 1 << "/" << order.size()
                        << ", loss " << step.pass.loss;
                const double done =
                    static_cast<double>(epoch - 1) * static_cast<double>(order.size()) + static_cast<double>(k + 1);
                progress->report(std::min(1.0, done / totalSteps), message.str());
            }
        }
        if (!stopped && progress && progress->cancelled())
            stopped = true;
        if (stopped) {
            run.cancelled = true;
            return run;
        }
        EpochRecord record;
        record.epoch = epoch;
        record.trainingBatches = trainingBatches.size();
        record.validationBatches = validationBatches.size();
        record.trainingLoss = order.empty() ? kNaN : lossSum / static_cast<double>(order.size());
        record.validationLoss = meanLoss(state.weights, validationBatches, options.numCores);
        record.validation = validationRanks(state.weights, validation, options.numCores);
        run.state = std::move(state);
        run.history.push_back(record);
        run.epochsCompleted = epoch;

        if (!options.checkpointPath.empty()) {
            Checkpoint checkpoint;
            checkpoint.epochsCompleted = epoch;
            checkpoint.seed = options.seed;
            checkpoint.learningRate = options.learningRate;
            checkpoint.numCores = options.numCores;
            checkpoint.maxBatch = static_cast<uint32_t>(options.batches.maxSize);
            checkpoint.minBatch = static_cast<uint32_t>(options.batches.minSize);
            checkpoint.datasetFingerprint = fingerprint;
            checkpoint.history = run.history;
            checkpoint.state = run.state;
            if (auto written = writeCheckpoint(checkpoint, options.checkpointPath); !written.ok) {
                run.error = written.error;
                return run;
            }
        }
        if (options.onEpoch)
            options.onEpoch(record);
    }
    return run;
}

weights::Weights randomWeights(uint32_t seed)
{
    auto w = weights::zeroWeights(weights::Network::Anderson2021);
    std::mt19937 rng(seed);
    for (auto &tensor : w.tensors)
        for (auto &value : tensor.data)
            value = static_cast<float>(rng()) / static_cast<float>(std::mt19937::max()) - 0.5f;
    return w;
}

} // namespace beamscope::samples
