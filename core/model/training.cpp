#include "core/model/training.h"

#include "core/model/cost_formula.h"
#include "core/model/fast_math.h"
#include "core/model/network_kernel.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace beamscope::model {

using weights::TensorIndex;

namespace {

// Halide's reverse mode differentiates max(a, b) as 1 for a when a >= b, and
// min(a, b) as 1 for a when a <= b; these conventions decide the ties.
inline double leakyGradient(float e) { return (e >= 0.0f ? 1.0 : 0.0) + (e <= 0.0f ? 1e-10 : 0.0); }

// Everything the backward pass needs of one (schedule, stage).
struct StageActivations {
    float normalized[kScheduleFeatureCount];
    float head2Relu[kHead2Channels]; // its sign is head2's pre-activation sign
    float conv1[kConv1Channels];
    float relu1[kConv1Channels];
    TermCoefficients terms;
};

void checkBatch(const weights::Weights &w, const TrainingBatch &b)
{
    if (std::string why = checkWeights(w); !why.empty())
        throw ModelError(why);
    if (b.numStages <= 0 || b.batchSize <= 0)
        throw ModelError("training batch: expected at least 1 stage and 1 schedule, found " +
                         std::to_string(b.numStages) + " stages and " + std::to_string(b.batchSize) + " schedules");
    const size_t pf = static_cast<size_t>(b.numStages) * kPipelineFeaturesPerStage;
    const size_t sf = static_cast<size_t>(b.batchSize) * b.numStages * kScheduleFeatureCount;
    if (b.pipelineFeatures.size() < pf)
        throw ModelError("training batch: pipeline features: expected " + std::to_string(pf) + " values, found " +
                         std::to_string(b.pipelineFeatures.size()));
    if (b.scheduleFeatures.size() < sf)
        throw ModelError("training batch: schedule features: expected " + std::to_string(sf) + " values, found " +
                         std::to_string(b.scheduleFeatures.size()));
    if (b.trueRuntimes.size() < static_cast<size_t>(b.batchSize))
        throw ModelError("training batch: true runtimes: expected " + std::to_string(b.batchSize) + " values, found " +
                         std::to_string(b.trueRuntimes.size()));
    if (b.numCores <= 0)
        throw ModelError("training batch: num_cores: expected > 0, found " + std::to_string(b.numCores));
}

int referenceIndex(const TrainingBatch &b)
{
    if (b.reference >= 0)
        return std::clamp(b.reference, 0, b.batchSize - 1);
    int fastest = 0;
    for (int n = 1; n < b.batchSize; ++n)
        if (b.trueRuntimes[static_cast<size_t>(n)] < b.trueRuntimes[static_cast<size_t>(fastest)])
            fastest = n;
    return fastest;
}

struct Forward {
    PipelineEmbedding pipeline;         // head1 and conv1's pipeline half per stage
    std::vector<StageActivations> acts; // [B][S]
    std::vector<float> predictions;     // [B]
    std::vector<float> costPerStage;    // [B][S]
    float loss = 0;
    std::vector<double> dLossdPrediction; // [B]
};

// The forward pass is the inference model's (same embedding, same term sums)
// with the portable kernel: plain float multiply-adds in Halide's order match
// Halide's train_cost_model (a different schedule from its inference model)
// best. With the FMA kernel the golden training checks degrade (per-stage cost
// over 2e-5 relative, retrained conv_relu weights 7e-6 of the tensor max
// instead of 5e-7), so the kernel is fixed here whatever the CPU, which also
// makes training bit-reproducible across machines.
Forward forward(const weights::Weights &w, const TrainingBatch &b)
{
    const int S = b.numStages, B = b.batchSize;
    const CostModel model(w);
    Forward fw;
    fw.pipeline = model.embedPipeline(b.pipelineFeatures, S);

    // The kernel's weight views, laid out as CostModel lays them out.
    std::vector<float> head2Filter(static_cast<size_t>(KernelWeights::kPaddedFeatures) * kHead2Channels, 0.0f);
    const auto &h2f = w.tensor(TensorIndex::Head2Filter).data;
    std::copy(h2f.begin(), h2f.end(), head2Filter.begin());
    const auto &f1 = w.tensor(TensorIndex::Conv1Filter).data;
    const std::vector<float> conv1Filter(f1.begin() + kHead1Channels * kConv1Channels, f1.end());
    const KernelWeights kw{head2Filter.data(), w.tensor(TensorIndex::Head2Bias).data.data(), conv1Filter.data()};
    const NetworkKernel kernel = &networkKernelPortable;

    fw.predictions.assign(static_cast<size_t>(B), 0.0f);
    fw.costPerStage.assign(static_cast<size_t>(B) * S, 0.0f);
    fw.acts.resize(static_cast<size_t>(B) * S);
    const size_t items = fw.acts.size();
    for (size_t first = 0; first < items; first += kKernelItems) {
        KernelItems group;
        group.count = static_cast<int>(std::min<size_t>(kKernelItems, items - first));
        for (int i = 0; i < group.count; ++i) {
            const size_t flat = first + static_cast<size_t>(i);
            StageActivations &a = fw.acts[flat];
            group.features[i] = b.scheduleFeatures.data() + flat * kScheduleFeatureCount;
            group.stage1[i] = fw.pipeline.conv1Stage1.data() + (flat % static_cast<size_t>(S)) * kConv1Channels;
            group.conv1[i] = a.conv1;
            group.relu1[i] = a.relu1;
            group.normalized[i] = a.normalized;
            group.head2[i] = a.head2Relu;
        }
        kernel(kw, group);
        for (int i = 0; i < group.count; ++i)
            computeTermCoefficients(group.features[i], b.numCores, fw.acts[first + static_cast<size_t>(i)].terms);
    }

    std::vector<double> regulariser(static_cast<size_t>(B), 0.0);
    for (int n = 0; n < B; ++n) {
        float prediction = 0.0f;
        for (int s = 0; s < S; ++s) {
            const StageActivations &a = fw.acts[static_cast<size_t>(n) * S + s];
            const float cost = sumTerms(a.terms, a.relu1, nullptr) * kCostUnit;
            fw.costPerStage[static_cast<size_t>(n) * S + s] = cost;
            prediction += cost;
            for (float c : a.conv1)
                regulariser[static_cast<size_t>(n)] -= std::min(c, 0.0f);
        }
        fw.predictions[static_cast<size_t>(n)] = prediction;
    }

    // Loss: L2 on throughput relative to the reference schedule.
    const int ref = referenceIndex(b);
    const double scale = 1.0 / static_cast<double>(b.trueRuntimes[static_cast<size_t>(ref)]);
    double loss = 0;
    fw.dLossdPrediction.assign(static_cast<size_t>(B), 0.0);
    for (int n = 0; n < B; ++n) {
        const double p1 = fw.predictions[static_cast<size_t>(n)] * scale;
        const double r1 = b.trueRuntimes[static_cast<size_t>(n)] * scale;
        const double clamped = std::max(p1, 1e-10);
        const double diff = 1.0 / clamped - 1.0 / r1;
        loss += diff * diff + 1e-5 * regulariser[static_cast<size_t>(n)];
        if (p1 >= 1e-10)
            fw.dLossdPrediction[static_cast<size_t>(n)] = 2.0 * diff * (-1.0 / (p1 * p1)) * scale;
    }
    fw.loss = static_cast<float>(loss);
    return fw;
}

} // namespace

TrainingState TrainingState::start(weights::Weights initial)
{
    if (std::string why = checkWeights(initial); !why.empty())
        throw ModelError(why);
    TrainingState state;
    for (int i = 0; i < weights::kTensorCount; ++i) {
        const size_t count = initial.tensors[static_cast<size_t>(i)].data.size();
        state.m[static_cast<size_t>(i)].assign(count, 0.0f);
        state.v[static_cast<size_t>(i)].assign(count, 0.0f);
    }
    state.weights = std::move(initial);
    return state;
}

float computeLoss(const weights::Weights &w, const TrainingBatch &batch)
{
    checkBatch(w, batch);
    return forward(w, batch).loss;
}

LossAndGradients computeLossAndGradients(const weights::Weights &w, const TrainingBatch &b)
{
    checkBatch(w, b);
    Forward fw = forward(w, b);
    const int S = b.numStages, B = b.batchSize;
    const auto &h1f = w.tensor(TensorIndex::Head1Filter).data;
    const auto &f1 = w.tensor(TensorIndex::Conv1Filter).data;

    // Gradients accumulate in double: their sums run over the whole batch.
    std::vector<double> gH1f(h1f.size(), 0.0), gH1b(kHead1Channels, 0.0),
        gH2f(static_cast<size_t>(kHead2Channels) * kScheduleFeatureCount, 0.0), gH2b(kHead2Channels, 0.0),
        gF1(f1.size(), 0.0), gB1(kConv1Channels, 0.0);
    std::vector<double> gStage1(static_cast<size_t>(S) * kConv1Channels, 0.0);

    for (int n = 0; n < B; ++n) {
        const double dCost = fw.dLossdPrediction[static_cast<size_t>(n)] * static_cast<double>(kCostUnit);
        for (int s = 0; s < S; ++s) {
            const StageActivations &a = fw.acts[static_cast<size_t>(n) * S + s];
            double gRelu1[kConv1Channels] = {};
            for (int t = 0; t < kCostTermCount; ++t)
                gRelu1[a.terms.channel[static_cast<size_t>(t)]] +=
                    static_cast<double>(a.terms.coefficient[static_cast<size_t>(t)]) * dCost;
            double gConv1[kConv1Channels];
            for (int j = 0; j < kConv1Channels; ++j) {
                gConv1[j] = gRelu1[j] * leakyGradient(a.conv1[j]);
                if (a.conv1[j] <= 0.0f) // regulariser 1e-5 * -min(conv1, 0)
                    gConv1[j] -= 1e-5;
                gB1[static_cast<size_t>(j)] += gConv1[j];
                gStage1[static_cast<size_t>(s) * kConv1Channels + j] += gConv1[j];
            }
            double gHead2[kHead2Channels];
            for (int k = 0; k < kHead2Channels; ++k) {
                double gRelu = 0;
                const size_t column = static_cast<size_t>(kConv1Channels) * (kHead1Channels + k);
                for (int j = 0; j < kConv1Channels; ++j) {
                    gF1[column + j] += gConv1[j] * a.head2Relu[k];
                    gRelu += gConv1[j] * f1[column + j];
                }
                // The leaky relu keeps the sign, so the activation tells the branch.
                gHead2[k] = gRelu * leakyGradient(a.head2Relu[k]);
                gH2b[static_cast<size_t>(k)] += gHead2[k];
            }
            for (int c = 0; c < kScheduleFeatureCount; ++c) {
                const double x = a.normalized[c];
                if (x == 0.0)
                    continue;
                double *row = gH2f.data() + static_cast<size_t>(kHead2Channels) * c;
                for (int k = 0; k < kHead2Channels; ++k)
                    row[k] += gHead2[k] * x;
            }
        }
    }

    // The pipeline half: conv1_stage1 depends on head1 and filter1[:, 0:8].
    for (int s = 0; s < S; ++s) {
        const double *gSt = gStage1.data() + static_cast<size_t>(s) * kConv1Channels;
        const float *h = fw.pipeline.head1.data() + static_cast<size_t>(s) * kHead1Channels;
        const float *p = b.pipelineFeatures.data() + static_cast<size_t>(s) * kPipelineFeaturesPerStage;
        for (int i = 0; i < kHead1Channels; ++i) {
            double gHead1 = 0;
            for (int j = 0; j < kConv1Channels; ++j) {
                gF1[static_cast<size_t>(j + kConv1Channels * i)] += gSt[j] * h[i];
                gHead1 += gSt[j] * f1[static_cast<size_t>(j + kConv1Channels * i)];
            }
            gH1b[static_cast<size_t>(i)] += gHead1;
            for (int y = 0; y < kPipelineFeatureTypes; ++y)
                for (int x = 0; x < kPipelineFeatureRows; ++x) {
                    const float feature = p[x * kPipelineFeatureTypes + y];
                    if (feature == 0.0f)
                        continue;
                    const size_t idx = static_cast<size_t>(i + kHead1Channels * (x + kPipelineFeatureRows * y));
                    // d sigmoid(w)/dw = e / (1 + e)^2 with e = exp(-w), Halide's exp.
                    const double e = halideExp(-h1f[idx]);
                    gH1f[idx] += gHead1 * feature * (e / ((1.0 + e) * (1.0 + e)));
                }
        }
    }

    LossAndGradients out;
    out.loss = fw.loss;
    out.predictions = std::move(fw.predictions);
    out.costPerStage = std::move(fw.costPerStage);
    auto toFloat = [](const std::vector<double> &g) { return std::vector<float>(g.begin(), g.end()); };
    out.gradients[TensorIndex::Head1Filter] = toFloat(gH1f);
    out.gradients[TensorIndex::Head1Bias] = toFloat(gH1b);
    out.gradients[TensorIndex::Head2Filter] = toFloat(gH2f);
    out.gradients[TensorIndex::Head2Bias] = toFloat(gH2b);
    out.gradients[TensorIndex::Conv1Filter] = toFloat(gF1);
    out.gradients[TensorIndex::Conv1Bias] = toFloat(gB1);
    return out;
}

float adamPow(float base, float exponent) { return halidePow(base, exponent); }

StepResult trainStep(TrainingState &state, const TrainingBatch &batch, float learningRate)
{
    StepResult result;
    result.pass = computeLossAndGradients(state.weights, batch);
    const float t1 = static_cast<float>(state.timestep + 1);
    const float firstCorrection = 1.0f / (1.0f - adamPow(0.9f, t1));
    const float secondCorrection = 1.0f / (1.0f - adamPow(0.999f, t1));
    for (int i = 0; i < weights::kTensorCount; ++i) {
        auto &w = state.weights.tensors[static_cast<size_t>(i)].data;
        auto &m = state.m[static_cast<size_t>(i)];
        auto &v = state.v[static_cast<size_t>(i)];
        const auto &g = result.pass.gradients[static_cast<size_t>(i)];
        for (size_t k = 0; k < w.size(); ++k) {
            m[k] = 0.9f * m[k] + 0.1f * g[k];
            v[k] = 0.999f * v[k] + 0.001f * (g[k] * g[k]);
            float step = learningRate * m[k] * firstCorrection;
            step /= std::sqrt(v[k] * secondCorrection) + 1e-5f;
            w[k] -= step;
        }
    }
    ++state.timestep;
    return result;
}

} // namespace beamscope::model
