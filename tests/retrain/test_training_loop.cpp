// The training loop: it learns (validation loss down, ranking up on schedules
// whose runtimes come from a hidden model), it is deterministic for a seed,
// a cancel keeps a checkpoint that resumes to the same result, and
// checkpoints reject damage and mismatched settings with a clear error.

#include "core/samples/checkpoint.h"
#include "core/samples/retrain.h"
#include "core/samples/training_loop.h"
#include "core/util/progress.h"
#include "core/weights/shipped_weights.h"
#include "tests/retrain/hidden_world.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

using namespace beamscope;
using namespace beamscope::samples;
namespace fs = std::filesystem;

namespace {

// Cancels after a fixed number of batch reports.
class CancelAfter : public Progress {
public:
    explicit CancelAfter(int reports) : m_left(reports) {}
    void report(double, std::string_view) override { --m_left; }
    bool cancelled() const override { return m_left <= 0; }
    int reports = 0;

private:
    int m_left;
};

bool sameWeights(const weights::Weights &a, const weights::Weights &b)
{
    for (int i = 0; i < weights::kTensorCount; ++i) {
        const auto &x = a.tensors[static_cast<size_t>(i)].data, &y = b.tensors[static_cast<size_t>(i)].data;
        if (x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) != 0)
            return false;
    }
    return true;
}

struct World {
    QTemporaryDir tmp;
    Dataset dataset;
    Split split;
};

// Six apps of one pipeline each; app0 and app1 are held out for validation.
void makeWorld(World &w, const test::HiddenWorld &shape)
{
    const fs::path root = fs::path(w.tmp.path().toStdString()) / "samples";
    test::writeHiddenWorld(root, randomWeights(1234), shape);
    auto loaded = loadSamples({root});
    QVERIFY(loaded.ok());
    w.dataset = std::move(loaded.dataset);
    QVERIFY(w.dataset.skipped.empty());
    for (const auto &p : w.dataset.pipelines)
        (p.app == "app0" || p.app == "app1" ? w.split.validation : w.split.training).push_back(p);
}

} // namespace

class TrainingLoopTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The plan the CLI and the Retrain workspace share refuses before any
    // epoch: an output that exists, an earlier run's checkpoint, a held-out
    // app without samples, a training set without a batch; and a run writes
    // the output with the feature versions and drops the checkpoint.
    void planRefusesBeforeTrainingAndRunWritesTheOutput()
    {
        World w;
        makeWorld(w, {6, 20, 2, 9, 80});
        const fs::path out = fs::path(w.tmp.path().toStdString()) / "trained" / "out.weights";
        RetrainSettings settings;
        settings.training.epochs = 2;
        settings.training.learningRate = 1e-3f;
        settings.holdOut = "app0"; // 5 training pipelines: 5 batches per epoch
        settings.output = out;

        RetrainSettings unknownApp = settings;
        unknownApp.holdOut = "no_such_app";
        PlanResult r = planRetrain(w.dataset, unknownApp);
        QVERIFY(r.refusal && !r.plan);
        QCOMPARE(r.refusal->option, std::string("hold-out"));
        QVERIFY2(r.refusal->message.find("app0") != std::string::npos, r.refusal->message.c_str()); // lists the apps

        RetrainSettings tooSmall = settings;
        tooSmall.training.batches.minSize = 64;
        r = planRetrain(w.dataset, tooSmall);
        QVERIFY(r.refusal);
        QCOMPARE(r.refusal->option, std::string("min-batch"));

        r = planRetrain(w.dataset, settings);
        QVERIFY(r.plan && !r.refusal);
        QVERIFY(!r.plan->resumes);
        QCOMPARE(r.plan->checkpoint, checkpointPathFor(out));
        const RetrainResult run = runRetrainPlan(*r.plan, randomWeights(5), nullptr);
        QVERIFY2(run.ok, run.error.c_str());
        QCOMPARE(run.epochsCompleted, 2);
        QVERIFY(fs::exists(out));
        QVERIFY(!fs::exists(checkpointPathFor(out)));
        auto written = weights::loadWeights(out);
        QVERIFY(written.ok());
        QCOMPARE(written.weights->scheduleFeaturesVersion, weights::kAnderson2021ScheduleVersion);
        // The training record names its pipelines by content: each training pipeline is in-sample even
        // with no app name (a flat folder of the same files, E1); a held-out one is not.
        for (const PipelineSet &p : r.plan->split.training)
            QVERIFY(weights::trainedOnPipeline(out, "", p.pipelineHash));
        for (const PipelineSet &p : r.plan->split.validation)
            QVERIFY(!weights::trainedOnPipeline(out, "", p.pipelineHash));

        // The output exists now: refused unless replacing.
        r = planRetrain(w.dataset, settings);
        QVERIFY(r.refusal);
        QCOMPARE(r.refusal->option, std::string("force"));
        fs::remove(out);

        // A checkpoint left by a cancelled run: refused unless resuming or starting over.
        CancelAfter cancel(7); // during epoch 2, after epoch 1's 5 batches
        const RetrainResult stopped = runRetrainPlan(*planRetrain(w.dataset, settings).plan, randomWeights(5), &cancel);
        QVERIFY(stopped.cancelled);
        QCOMPARE(stopped.epochsCompleted, 1);
        QVERIFY(!fs::exists(out));
        QVERIFY(fs::exists(checkpointPathFor(out)));
        r = planRetrain(w.dataset, settings);
        QVERIFY(r.refusal);
        QCOMPARE(r.refusal->option, std::string("resume"));
        RetrainSettings resume = settings;
        resume.training.resume = true;
        r = planRetrain(w.dataset, resume);
        QVERIFY(r.plan && r.plan->resumes);
        RetrainSettings over = settings;
        over.replace = true;
        r = planRetrain(w.dataset, over);
        QVERIFY(r.plan && !r.plan->resumes);
    }

    void learnsTheHiddenModel()
    {
        World w;
        makeWorld(w, {8, 40, 2, 3, 80});
        QCOMPARE(w.split.training.size(), size_t{6});
        TrainingOptions options;
        options.epochs = 30;
        options.learningRate = 1e-3f;
        options.seed = 7;
        int reported = 0;
        options.onEpoch = [&](const EpochRecord &e) { QCOMPARE(e.epoch, reported++); };
        const auto run = trainModel(randomWeights(99), w.split.training, w.split.validation, options);
        QCOMPARE(reported, 31); // epoch 0 (the starting weights) and 30 trained
        QVERIFY2(run.ok(), run.error.c_str());
        QCOMPARE(run.epochsCompleted, 30);
        QCOMPARE(run.history.size(), size_t{31});
        const auto &before = run.history.front();
        const auto &after = run.history.back();
        qInfo("validation loss %g -> %g, Spearman %.3f -> %.3f, Kendall %.3f -> %.3f, pairwise %.3f -> %.3f",
              before.validationLoss, after.validationLoss, before.validation.spearman, after.validation.spearman,
              before.validation.kendall, after.validation.kendall, before.validation.pairwiseAccuracy,
              after.validation.pairwiseAccuracy);
        QCOMPARE(after.trainingBatches, size_t{6});
        QCOMPARE(after.validationBatches, size_t{2});
        QVERIFY(after.validationLoss < before.validationLoss);
        QVERIFY(after.validation.spearman > before.validation.spearman);
        QVERIFY(after.validation.pairwiseAccuracy > before.validation.pairwiseAccuracy);
        QVERIFY(after.trainingLoss < run.history[1].trainingLoss);
        QCOMPARE(run.state.timestep, int64_t{30 * 6});
    }

    void deterministicForASeed()
    {
        World w;
        makeWorld(w, {5, 20, 1, 5, 80});
        TrainingOptions options;
        options.epochs = 3;
        options.learningRate = 1e-3f;
        options.seed = 11;
        const auto a = trainModel(randomWeights(3), w.split.training, w.split.validation, options);
        const auto b = trainModel(randomWeights(3), w.split.training, w.split.validation, options);
        QVERIFY(a.ok() && b.ok());
        QVERIFY(sameWeights(a.state.weights, b.state.weights));
        options.seed = 12; // another batch order gives other weights
        const auto c = trainModel(randomWeights(3), w.split.training, w.split.validation, options);
        QVERIFY(!sameWeights(a.state.weights, c.state.weights));
    }

    void cancelKeepsACheckpointThatResumes()
    {
        World w;
        makeWorld(w, {6, 20, 2, 9, 80}); // 4 training batches per epoch
        QCOMPARE(makeBatches(w.split.training).size(), size_t{4});
        TrainingOptions options;
        options.epochs = 4;
        options.learningRate = 1e-3f;
        options.seed = 5;
        const auto uninterrupted = trainModel(randomWeights(8), w.split.training, w.split.validation, options);
        QVERIFY(uninterrupted.ok());

        options.checkpointPath = fs::path(w.tmp.path().toStdString()) / "out.weights.checkpoint";
        CancelAfter cancel(10); // during epoch 3 (after 2 × 4 batches + 2)
        const auto cancelled = trainModel(randomWeights(8), w.split.training, w.split.validation, options, &cancel);
        QVERIFY(cancelled.ok());
        QVERIFY(cancelled.cancelled);
        QCOMPARE(cancelled.epochsCompleted, 2);
        QCOMPARE(cancelled.state.timestep, int64_t{8}); // the partial epoch is not kept
        const auto saved = readCheckpoint(options.checkpointPath);
        QVERIFY2(saved.checkpoint, saved.error.c_str());
        QCOMPARE(saved.checkpoint->epochsCompleted, 2);
        QVERIFY(sameWeights(saved.checkpoint->state.weights, cancelled.state.weights));
        QCOMPARE(saved.checkpoint->history.size(), size_t{3});

        options.resume = true;
        std::vector<int> reported;
        options.onEpoch = [&](const EpochRecord &e) { reported.push_back(e.epoch); };
        const auto resumed = trainModel(randomWeights(8), w.split.training, w.split.validation, options);
        QVERIFY2(resumed.ok(), resumed.error.c_str());
        QCOMPARE(resumed.resumedEpochs, 2);
        QCOMPARE(resumed.epochsCompleted, 4);
        QCOMPARE(reported, (std::vector<int>{3, 4})); // only the epochs this run trained
        // Same result as never stopping: ADAM state and batch order were restored.
        QVERIFY(sameWeights(resumed.state.weights, uninterrupted.state.weights));
        QCOMPARE(resumed.history.size(), uninterrupted.history.size());
        QCOMPARE(resumed.history.back().validationLoss, uninterrupted.history.back().validationLoss);

        // Resuming with another seed is refused, naming the field.
        options.seed = 6;
        const auto mismatch = trainModel(randomWeights(8), w.split.training, w.split.validation, options);
        QVERIFY(!mismatch.ok());
        QVERIFY2(mismatch.error.find("seed") != std::string::npos, mismatch.error.c_str());
        // ... and so is another dataset.
        options.seed = 5;
        auto fewer = w.split.training;
        fewer.pop_back();
        const auto otherData = trainModel(randomWeights(8), fewer, w.split.validation, options);
        QVERIFY(!otherData.ok());
        QVERIFY2(otherData.error.find("dataset") != std::string::npos, otherData.error.c_str());
    }

    void checkpointRoundTripAndDamage()
    {
        Checkpoint c;
        c.epochsCompleted = 3;
        c.seed = 42;
        c.learningRate = 0.001f;
        c.numCores = 80;
        c.maxBatch = 64;
        c.minBatch = 9;
        c.datasetFingerprint = 0x1234567890abcdefull;
        c.state = model::TrainingState::start(randomWeights(1));
        c.state.timestep = 17;
        c.state.m[2][5] = 0.25f;
        c.state.v[4][1] = 0.5f;
        for (int e = 0; e <= 3; ++e) {
            EpochRecord r;
            r.epoch = e;
            r.trainingLoss = 1.0 / (e + 1);
            r.validationLoss = std::numeric_limits<double>::quiet_NaN();
            r.trainingBatches = 4;
            c.history.push_back(r);
        }
        const auto bytes = serializeCheckpoint(c);
        const auto back = parseCheckpoint(bytes, "x.checkpoint");
        QVERIFY2(back.checkpoint, back.error.c_str());
        QCOMPARE(back.checkpoint->epochsCompleted, 3);
        QCOMPARE(back.checkpoint->state.timestep, int64_t{17});
        QCOMPARE(back.checkpoint->state.m[2][5], 0.25f);
        QCOMPARE(back.checkpoint->state.v[4][1], 0.5f);
        QVERIFY(sameWeights(back.checkpoint->state.weights, c.state.weights));
        QCOMPARE(back.checkpoint->history.size(), size_t{4});
        QVERIFY(std::isnan(back.checkpoint->history[2].validationLoss));
        QCOMPARE(back.checkpoint->datasetFingerprint, c.datasetFingerprint);
        QCOMPARE(serializeCheckpoint(*back.checkpoint), bytes);

        auto damaged = bytes;
        damaged[200] ^= 1;
        const auto bad = parseCheckpoint(damaged, "x.checkpoint");
        QVERIFY(!bad.checkpoint);
        QVERIFY2(bad.error.find("x.checkpoint") != std::string::npos && bad.error.find("checksum") != std::string::npos,
                 bad.error.c_str());
        const auto cut = parseCheckpoint(std::span<const char>(bytes).first(bytes.size() / 2), "x.checkpoint");
        QVERIFY(!cut.checkpoint);
        // A history count the file cannot hold is refused before reading on
        // (epochs completed 2^32 - 1 as well, which once wrapped the limit to 0).
        auto huge = std::vector<char>(bytes.begin(), bytes.end() - 8);
        for (size_t k = 0; k < 4; k++)
            huge.at(12 + k) = huge.at(52 + k) = static_cast<char>(0xff); // epochs completed, history count
        uint64_t sum = 0xcbf29ce484222325ull;
        for (char ch : huge)
            sum = (sum ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
        huge.insert(huge.end(), reinterpret_cast<const char *>(&sum), reinterpret_cast<const char *>(&sum) + 8);
        const auto tooMany = parseCheckpoint(huge, "x.checkpoint");
        QVERIFY(!tooMany.checkpoint);
        QVERIFY2(tooMany.error.find("x.checkpoint: offset 56: history count: expected at most ") == 0 &&
                     tooMany.error.find("(what the file holds), found 4294967295") != std::string::npos,
                 tooMany.error.c_str());
        const std::vector<char> other(100, 'x');
        const auto foreign = parseCheckpoint(other, "x.checkpoint");
        QVERIFY(!foreign.checkpoint);
        QVERIFY2(foreign.error.find("signature") != std::string::npos, foreign.error.c_str());
    }

    void randomInitIsHalides()
    {
        // Halide: std::mt19937(seed), value = rng()/rng.max() - 0.5, buffers in file order.
        const auto w = randomWeights(5);
        std::mt19937 rng(5);
        const float first = static_cast<float>(rng()) / static_cast<float>(std::mt19937::max()) - 0.5f;
        QCOMPARE(w.tensors[0].data[0], first);
        QVERIFY(model::checkWeights(w).empty());
        QVERIFY(!sameWeights(w, randomWeights(6)));
    }

    void nonFiniteLossStopsWithTheFile()
    {
        World w;
        makeWorld(w, {3, 12, 1, 6, 80});
        QCOMPARE(w.split.training.size(), size_t{1});
        // A stage that is not inlined, with zero global loads at a global load
        // efficiency of 0: the cost formula computes 0 × (1/0) = NaN.
        auto &bad = w.split.training[0].schedules[3];
        bad.features[18] = 0; // inlined_calls
        bad.features[59] = 0; // num_global_mem_loads_per_block
        bad.features[65] = 0; // global_mem_load_efficiency
        TrainingOptions options;
        options.epochs = 2;
        options.checkpointPath = fs::path(w.tmp.path().toStdString()) / "nan.checkpoint";
        const auto initial = randomWeights(4);
        const auto run = trainModel(initial, w.split.training, w.split.validation, options);
        QVERIFY(!run.ok());
        QVERIFY2(run.error.find("not finite") != std::string::npos, run.error.c_str());
        QVERIFY2(run.error.find(bad.file.string()) != std::string::npos, run.error.c_str());
        QCOMPARE(run.epochsCompleted, 0);
        QVERIFY(sameWeights(run.state.weights, initial)); // no NaN got in
        QVERIFY(!fs::exists(options.checkpointPath));
    }

    void noTrainingBatchesLeavesWeightsAlone()
    {
        World w;
        makeWorld(w, {3, 8, 1, 4, 80}); // 8 schedules per pipeline: below Halide's minimum
        TrainingOptions options;
        options.epochs = 2;
        const auto initial = randomWeights(2);
        const auto run = trainModel(initial, w.split.training, w.split.validation, options);
        QVERIFY(run.ok());
        QCOMPARE(run.history.back().trainingBatches, size_t{0});
        QVERIFY(sameWeights(run.state.weights, initial));
    }
};

QTEST_GUILESS_MAIN(TrainingLoopTest)
#include "test_training_loop.moc"
