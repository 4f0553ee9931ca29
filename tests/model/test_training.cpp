// Training of the Anderson2021 cost model: loss, hand-written gradients, ADAM.

#include "core/model/training.h"
#include "core/samples/sample.h"
#include "tests/model/model_test_support.h"
#include "tests/support/npy.h"
#include "tests/support/test_data.h"

#include "core/util/json.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace beamscope;
using namespace beamscope::model;
using namespace beamscope::model::test;

namespace {

double relativeError(double got, double want)
{
    if (got == want)
        return 0;
    return std::abs(got - want) / std::max(std::abs(want), 1e-30);
}

double maxAbs(const std::vector<float> &v)
{
    double m = 0;
    for (float x : v)
        m = std::max(m, double(std::abs(x)));
    return m;
}

// Golden names of the six weight buffers, in .weights order.
const char *const kGoldenNames[weights::kTensorCount] = {"head1_filter", "head1_bias", "head2_filter",
                                                         "head2_bias",   "filter1",    "bias1"};

// A small synthetic batch of one pipeline whose true runtimes are a
// different function of the features than the model's prediction.
struct SyntheticBatch {
    int stages = 3, batch = 16, cores = 32;
    std::vector<float> pf, sf, runtimes;
    TrainingBatch view() const
    {
        TrainingBatch b;
        b.numStages = stages;
        b.batchSize = batch;
        b.pipelineFeatures = pf;
        b.scheduleFeatures = sf;
        b.trueRuntimes = runtimes;
        b.numCores = cores;
        return b;
    }
};
SyntheticBatch syntheticBatch(const weights::Weights &w, uint64_t seed)
{
    SyntheticBatch s;
    Lcg rng(seed);
    s.pf = randomPipelineFeatures(rng, s.stages);
    s.sf = randomScheduleFeatures(rng, s.batch, s.stages);
    const auto ref = referenceModel(w, s.pf, s.sf, s.stages, s.stages, s.batch, s.cores);
    for (int n = 0; n < s.batch; ++n)
        s.runtimes.push_back(static_cast<float>(ref.prediction[static_cast<size_t>(n)] * (0.5 + rng.uniform())));
    return s;
}

} // namespace

class TestModelTraining : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void goldenTrainingCases();
    void goldenRetrainOutputs();
    void gradientsMatchFiniteDifferences();
    void lossDecreasesAndIsDeterministic();
    void firstAdamStepIsSignedLearningRate();
    void adamPowIsHalidesPolynomial();
    void rejectsBadBatches();
};

// Tolerances (the golden README's, for a float32 re-implementation):
// loss 1e-5 relative; predictions and per-stage costs 2e-5 relative (as in
// inference: float rounding order, see test_inference.cpp); weights, m, v and
// gradients 1e-5 x (max |value| in that buffer) absolute — Halide sums the
// gradients in float in its own order, we sum in double, and tiny elements
// of a buffer carry that buffer's absolute rounding error.
void TestModelTraining::goldenTrainingCases()
{
    BEAMSCOPE_REQUIRE_DATA(dir, "tests/fixtures/halide/cost_model/training");
    BEAMSCOPE_REQUIRE_DATA(weightsDir, "weights/anderson2021");
    int cases = 0;
    double worstLoss = 0, worstPrediction = 0, worstBuffer[4] = {0, 0, 0, 0};
    for (const auto &entry : std::filesystem::directory_iterator(dir)) {
        if (!entry.is_directory())
            continue;
        ++cases;
        const auto caseDir = entry.path();
        const auto parsed = parseJson(beamscope::test::readFile(caseDir / "case.json"));
        QVERIFY(parsed.value.has_value());
        const Json &j = *parsed.value;
        const int S = int(j.find("num_stages")->toInt()), B = int(j.find("batch_size")->toInt());
        SyntheticBatch data;
        data.stages = S;
        data.batch = B;
        data.cores = int(j.find("num_cores")->toInt());
        data.pf = pipelineFromHalide(beamscope::test::readNpy(caseDir / "pipeline_features.npy").data, S);
        data.sf = scheduleFromHalide(beamscope::test::readNpy(caseDir / "schedule_features.npy").data, B, S);
        data.runtimes = beamscope::test::readNpy(caseDir / "true_runtime.npy").data;
        TrainingBatch batch = data.view();
        batch.reference = -1; // the fastest, which is what the golden case used:
        const int fastest = int(std::min_element(data.runtimes.begin(), data.runtimes.end()) - data.runtimes.begin());
        QCOMPARE(fastest, int(j.find("reference")->toInt()));

        TrainingState state = TrainingState::start(loadWeightsOrThrow(weightsDir / j.find("weights")->toString()));
        for (const Json &step : j.find("steps")->items()) {
            const int k = int(step.find("step")->toInt());
            QCOMPARE(state.timestep, int64_t(step.find("timestep")->toInt()));
            const auto stepDir = caseDir / ("step_" + std::to_string(k));
            const StepResult r = trainStep(state, batch, float(step.find("learning_rate")->toNumber()));

            const float goldenLoss = beamscope::test::readNpy(stepDir / "loss.npy").data.at(0);
            worstLoss = std::max(worstLoss, relativeError(r.pass.loss, goldenLoss));
            QVERIFY2(relativeError(r.pass.loss, goldenLoss) <= 1e-5,
                     qPrintable(QStringLiteral("%1 step %2: loss %3, golden %4")
                                    .arg(caseDir.filename().c_str())
                                    .arg(k)
                                    .arg(double(r.pass.loss), 0, 'g', 9)
                                    .arg(double(goldenLoss), 0, 'g', 9)));
            const auto prediction = beamscope::test::readNpy(stepDir / "prediction.npy").data;
            for (int n = 0; n < B; ++n) {
                const double err = relativeError(r.pass.predictions[size_t(n)], prediction[size_t(n)]);
                worstPrediction = std::max(worstPrediction, err);
                QVERIFY2(err <= 2e-5, qPrintable(QString::number(err)));
            }
            const auto cps = beamscope::test::readNpy(stepDir / "cost_per_stage.npy").data;
            for (int n = 0; n < B; ++n)
                for (int s = 0; s < S; ++s)
                    QVERIFY(relativeError(r.pass.costPerStage[size_t(n * S + s)], cps[size_t(n + B * s)]) <= 2e-5);

            for (int t = 0; t < weights::kTensorCount; ++t) {
                const auto golden =
                    beamscope::test::readNpy(stepDir / (std::string("updated_") + kGoldenNames[t] + ".npy")).data;
                const size_t count = state.weights.tensors[size_t(t)].data.size();
                QCOMPARE(golden.size(), count * 4);
                const std::vector<float> *ours[4] = {&state.weights.tensors[size_t(t)].data, &state.m[size_t(t)],
                                                     &state.v[size_t(t)], &r.pass.gradients[size_t(t)]};
                for (int slice = 0; slice < 4; ++slice) {
                    const std::vector<float> want(golden.begin() + long(count * slice),
                                                  golden.begin() + long(count * (slice + 1)));
                    const double scale = std::max(maxAbs(want), 1e-30);
                    for (size_t i = 0; i < count; ++i) {
                        const double err = std::abs(double((*ours[slice])[i]) - want[i]) / scale;
                        worstBuffer[slice] = std::max(worstBuffer[slice], err);
                        if (err > 1e-5)
                            QFAIL(qPrintable(QStringLiteral("%1 step %2 %3 slice %4 element %5: %6 vs golden %7 "
                                                            "(error %8 of the buffer's max)")
                                                 .arg(caseDir.filename().c_str())
                                                 .arg(k)
                                                 .arg(kGoldenNames[t])
                                                 .arg(slice)
                                                 .arg(i)
                                                 .arg(double((*ours[slice])[i]), 0, 'g', 9)
                                                 .arg(double(want[i]), 0, 'g', 9)
                                                 .arg(err)));
                    }
                }
            }
        }
    }
    QCOMPARE(cases, 4);
    qInfo("golden training: worst loss rel %.3g, prediction rel %.3g; weights %.3g, m %.3g, v %.3g, gradient %.3g "
          "(absolute, relative to each buffer's max)",
          worstLoss, worstPrediction, worstBuffer[0], worstBuffer[1], worstBuffer[2], worstBuffer[3]);
}

// What anderson2021_retrain_cost_model wrote after 3 epochs (timesteps 0..2,
// lr 0.001, num_cores 32) on the 12 samples of one pipeline, from baseline.
void TestModelTraining::goldenRetrainOutputs()
{
    BEAMSCOPE_REQUIRE_DATA(samplesDir, "tests/fixtures/halide/samples/retrain_set");
    BEAMSCOPE_REQUIRE_DATA(outputs, "tests/fixtures/halide/samples/retrain_outputs");
    BEAMSCOPE_REQUIRE_DATA(baseline, "weights/anderson2021/baseline.weights");
    for (const std::string pipeline : {"box_blur", "conv_relu"}) {
        std::vector<std::filesystem::path> files;
        for (const auto &entry : std::filesystem::directory_iterator(samplesDir))
            if (entry.path().extension() == ".sample" && entry.path().filename().string().starts_with(pipeline + "_"))
                files.push_back(entry.path());
        std::sort(files.begin(), files.end()); // Halide read them in sorted-name order
        QCOMPARE(files.size(), size_t(12));
        // Halide's trainer: pipeline features from the first file, schedules in
        // schedule-hash order (a std::map keyed by the hash).
        std::map<uint64_t, samples::Sample> bySchedule;
        std::vector<float> pf;
        for (const auto &file : files) {
            auto read = samples::readSample(file);
            QVERIFY2(read.ok(), read.error.c_str());
            if (pf.empty())
                for (int s = 0; s < read.sample->stageCount(); ++s)
                    for (int x = 0; x < 40; ++x)
                        for (int y = 0; y < 7; ++y)
                            pf.push_back(read.sample->pipelineFeature(s, x, y));
            bySchedule.emplace(samples::scheduleHash(*read.sample), *read.sample);
        }
        SyntheticBatch data;
        data.stages = bySchedule.begin()->second.stageCount();
        data.batch = int(bySchedule.size());
        data.cores = 32; // the retrain tool ignores --num_cores
        data.pf = pf;
        for (const auto &[hash, sample] : bySchedule) {
            for (int s = 0; s < data.stages; ++s) {
                const auto f = sample.scheduleFeatures(s);
                data.sf.insert(data.sf.end(), f.begin(), f.end());
            }
            data.runtimes.push_back(sample.runtimeMs);
        }
        TrainingState state = TrainingState::start(loadWeightsOrThrow(baseline));
        for (int epoch = 0; epoch < 3; ++epoch)
            trainStep(state, data.view(), 0.001f);
        const weights::Weights want =
            loadWeightsOrThrow(outputs / ("retrained_" + pipeline + "_3epochs_lr0.001.weights"));
        double worst = 0;
        for (int t = 0; t < weights::kTensorCount; ++t) {
            const auto &a = state.weights.tensors[size_t(t)].data;
            const auto &b = want.tensors[size_t(t)].data;
            QCOMPARE(a.size(), b.size());
            const double scale = maxAbs(b);
            for (size_t i = 0; i < a.size(); ++i)
                worst = std::max(worst, std::abs(double(a[i]) - b[i]) / scale);
        }
        qInfo("retrain %s: worst weight difference %.3g of the tensor's max", pipeline.c_str(), worst);
        QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
    }
}

void TestModelTraining::gradientsMatchFiniteDifferences()
{
    weights::Weights w = randomWeights(101);
    const SyntheticBatch data = syntheticBatch(w, 102);
    TrainingBatch batch = data.view();
    const LossAndGradients g = computeLossAndGradients(w, batch);
    const int ref = int(std::min_element(data.runtimes.begin(), data.runtimes.end()) - data.runtimes.begin());
    const double loss0 = referenceLoss(w, data.pf, data.sf, data.stages, data.batch, data.cores, data.runtimes, ref);
    QVERIFY(relativeError(g.loss, loss0) < 1e-4);
    QVERIFY(loss0 > 0);

    Lcg pick(103);
    int checked = 0;
    for (int t = 0; t < weights::kTensorCount; ++t) {
        const auto &grad = g.gradients[size_t(t)];
        const double scale = maxAbs(grad);
        QVERIFY2(scale > 0, weights::tensorSpecs(weights::Network::Anderson2021)[size_t(t)].name);
        // The largest gradient element plus random ones.
        std::vector<size_t> indices{size_t(
            std::max_element(grad.begin(), grad.end(), [](float a, float b) { return std::abs(a) < std::abs(b); }) -
            grad.begin())};
        for (int k = 0; k < 6; ++k)
            indices.push_back(size_t(pick.uniform() * double(grad.size())));
        for (size_t i : indices) {
            float &value = w.tensors[size_t(t)].data[i];
            const float original = value;
            const float h = std::max(1e-3f, std::abs(original) * 1e-3f);
            value = original + h;
            const float up = value;
            const double lossUp =
                referenceLoss(w, data.pf, data.sf, data.stages, data.batch, data.cores, data.runtimes, ref);
            value = original - h;
            const float down = value;
            const double lossDown =
                referenceLoss(w, data.pf, data.sf, data.stages, data.batch, data.cores, data.runtimes, ref);
            value = original;
            const double fd = (lossUp - lossDown) / (double(up) - double(down));
            // Central differences are exact to O(h^2) away from relu kinks; the
            // bound is relative to the largest gradient of the tensor.
            QVERIFY2(std::abs(fd - grad[i]) <= 2e-3 * scale + 1e-9,
                     qPrintable(QStringLiteral("tensor %1 element %2: gradient %3, finite difference %4 (max %5)")
                                    .arg(t)
                                    .arg(i)
                                    .arg(double(grad[i]))
                                    .arg(fd)
                                    .arg(scale)));
            ++checked;
        }
    }
    QCOMPARE(checked, 6 * 7);
}

void TestModelTraining::lossDecreasesAndIsDeterministic()
{
    const weights::Weights w = randomWeights(201);
    const SyntheticBatch data = syntheticBatch(w, 202);
    TrainingState a = TrainingState::start(w), b = TrainingState::start(w);
    std::vector<float> losses;
    for (int step = 0; step < 40; ++step) {
        losses.push_back(trainStep(a, data.view(), 0.01f).pass.loss);
        trainStep(b, data.view(), 0.01f);
    }
    QCOMPARE(a.timestep, int64_t(40));
    const float final = computeLoss(a.weights, data.view());
    QVERIFY2(final < 0.5f * losses.front(),
             qPrintable(QStringLiteral("loss %1 -> %2").arg(double(losses.front())).arg(double(final))));
    for (int t = 0; t < weights::kTensorCount; ++t) {
        QVERIFY(a.weights.tensors[size_t(t)].data == b.weights.tensors[size_t(t)].data);
        QVERIFY(a.m[size_t(t)] == b.m[size_t(t)]);
        QVERIFY(a.v[size_t(t)] == b.v[size_t(t)]);
    }
    // The step's predictions are the inference model's (same weights).
    const CostModel model(a.weights);
    const auto e = model.evaluate(data.pf, data.sf, data.stages, data.batch, data.cores);
    const auto pass = computeLossAndGradients(a.weights, data.view());
    for (int n = 0; n < data.batch; ++n)
        QVERIFY(relativeError(pass.predictions[size_t(n)], e.predictions[size_t(n)]) < 2e-5);
}

void TestModelTraining::firstAdamStepIsSignedLearningRate()
{
    // At timestep 0, m = 0.1 g and v = 0.001 g^2, so the bias-corrected step
    // is lr * g / (|g| + 1e-5): lr times the gradient's sign for |g| >> 1e-5.
    const weights::Weights w = randomWeights(301);
    const SyntheticBatch data = syntheticBatch(w, 302);
    TrainingState state = TrainingState::start(w);
    const StepResult r = trainStep(state, data.view(), 0.002f);
    for (int t = 0; t < weights::kTensorCount; ++t)
        for (size_t i = 0; i < w.tensors[size_t(t)].data.size(); ++i) {
            const double g = r.pass.gradients[size_t(t)][i];
            const double step = double(w.tensors[size_t(t)].data[i]) - state.weights.tensors[size_t(t)].data[i];
            const double expected = 0.002 * g / (std::abs(g) + 1e-5);
            QVERIFY2(std::abs(step - expected) <= 1e-6 + 1e-3 * std::abs(expected),
                     qPrintable(QStringLiteral("%1 vs %2").arg(step).arg(expected)));
        }
}

void TestModelTraining::adamPowIsHalidesPolynomial()
{
    for (float base : {0.9f, 0.999f})
        for (int t = 1; t < 2000; t += 37) {
            const double want = std::pow(double(base), double(t));
            QVERIFY(relativeError(adamPow(base, float(t)), want) < 2e-5); // a polynomial, not libm
        }
}

void TestModelTraining::rejectsBadBatches()
{
    const weights::Weights w = randomWeights(401);
    SyntheticBatch data = syntheticBatch(w, 402);
    TrainingBatch b = data.view();
    b.trueRuntimes = std::span<const float>(data.runtimes).first(3);
    QVERIFY_THROWS_EXCEPTION(ModelError, computeLossAndGradients(w, b));
    b = data.view();
    b.numStages = 4;
    QVERIFY_THROWS_EXCEPTION(ModelError, computeLoss(w, b));
    QVERIFY_THROWS_EXCEPTION(ModelError, TrainingState::start(weights::zeroWeights(weights::Network::Adams2019)));
}

QTEST_GUILESS_MAIN(TestModelTraining)
#include "test_training.moc"
