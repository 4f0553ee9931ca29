#include "core/model/cost_model.h"

#include "core/model/cost_formula.h"
#include "core/model/fast_math.h"
#include "core/model/network_kernel.h"
#include "core/util/parallel_for.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace beamscope::model {

using weights::TensorIndex;

std::string checkWeights(const weights::Weights &w)
{
    const auto &head2 = w.tensor(TensorIndex::Head2Filter);
    if (head2.shape.size() == 2 && head2.shape[0] == 24 && head2.shape[1] == 39)
        return "this is the CPU (Adams2019) network (head2_filter 24 x 39); the GPU cost model needs "
               "Anderson2021 weights (head2_filter 24 x 73)";
    if (w.network != weights::Network::Anderson2021)
        return "this is the CPU (Adams2019) network; the GPU cost model needs Anderson2021 weights";
    const auto &specs = weights::tensorSpecs(weights::Network::Anderson2021);
    for (int i = 0; i < weights::kTensorCount; ++i) {
        const auto &t = w.tensors[static_cast<size_t>(i)];
        const auto &spec = specs[static_cast<size_t>(i)];
        size_t expected = 1;
        for (uint32_t e : spec.shape)
            expected *= e;
        if (t.shape != spec.shape || t.data.size() != expected) {
            std::string shape;
            for (uint32_t e : t.shape)
                shape += (shape.empty() ? "" : " x ") + std::to_string(e);
            std::string want;
            for (uint32_t e : spec.shape)
                want += (want.empty() ? "" : " x ") + std::to_string(e);
            return std::string(spec.name) + ": expected shape " + want + " (" + std::to_string(expected) +
                   " values), found " + (shape.empty() ? "none" : shape) + " (" + std::to_string(t.data.size()) +
                   " values)";
        }
    }
    return {};
}

CostModel::CostModel(weights::Weights w) : m_weights(std::move(w))
{
    if (std::string why = checkWeights(m_weights); !why.empty())
        throw ModelError(why);

    const auto &head1 = m_weights.tensor(TensorIndex::Head1Filter).data;
    m_squashedHead1.resize(head1.size());
    for (size_t i = 0; i < head1.size(); ++i)
        m_squashedHead1[i] = halideSigmoid(head1[i]);

    // head2_filter (24, 73) with dimension 0 fastest is already [feature][channel].
    const auto &head2 = m_weights.tensor(TensorIndex::Head2Filter).data;
    m_head2FilterT.assign(static_cast<size_t>(KernelWeights::kPaddedFeatures) * kHead2Channels, 0.0f);
    std::copy(head2.begin(), head2.end(), m_head2FilterT.begin());

    // filter1 (32, 32): [input][output]; inputs 8..31 are the head2 channels.
    const auto &conv1 = m_weights.tensor(TensorIndex::Conv1Filter).data;
    m_conv1FilterT.assign(conv1.begin() + kHead1Channels * kConv1Channels, conv1.end());
}

PipelineEmbedding CostModel::embedPipeline(std::span<const float> pipelineFeatures, int numStages) const
{
    if (numStages <= 0)
        throw ModelError("pipeline features: expected at least 1 stage, found " + std::to_string(numStages));
    const size_t expected = static_cast<size_t>(numStages) * kPipelineFeaturesPerStage;
    if (pipelineFeatures.size() < expected)
        throw ModelError("pipeline features: expected " + std::to_string(expected) + " values (" +
                         std::to_string(numStages) + " stages x 40 x 7), found " +
                         std::to_string(pipelineFeatures.size()));

    const auto &head1Bias = m_weights.tensor(TensorIndex::Head1Bias).data;
    const auto &bias1 = m_weights.tensor(TensorIndex::Conv1Bias).data;
    const auto &filter1 = m_weights.tensor(TensorIndex::Conv1Filter).data;

    PipelineEmbedding e;
    e.numStages = numStages;
    e.head1.resize(static_cast<size_t>(numStages) * kHead1Channels);
    e.conv1Stage1.resize(static_cast<size_t>(numStages) * kConv1Channels);
    for (int s = 0; s < numStages; ++s) {
        const float *p = pipelineFeatures.data() + static_cast<size_t>(s) * kPipelineFeaturesPerStage;
        float *h = e.head1.data() + static_cast<size_t>(s) * kHead1Channels;
        for (int c = 0; c < kHead1Channels; ++c) {
            // Plain float multiply-add in Halide's reduction order (feature row
            // x innermost, scalar type y outer) matches the golden outputs
            // best: FMA or double accumulation here both move results away.
            float sum = head1Bias[static_cast<size_t>(c)];
            // Zero features (most of them) add exactly nothing: the squashed
            // filter is finite, so skipping them changes no bits.
            for (int y = 0; y < kPipelineFeatureTypes; ++y)
                for (int x = 0; x < kPipelineFeatureRows; ++x)
                    if (const float feature = p[x * kPipelineFeatureTypes + y]; feature != 0.0f)
                        sum +=
                            m_squashedHead1[static_cast<size_t>(c + kHead1Channels * (x + kPipelineFeatureRows * y))] *
                            feature;
            h[c] = sum;
        }
        float *out = e.conv1Stage1.data() + static_cast<size_t>(s) * kConv1Channels;
        for (int j = 0; j < kConv1Channels; ++j) {
            float sum = bias1[static_cast<size_t>(j)];
            for (int i = 0; i < kHead1Channels; ++i)
                sum += filter1[static_cast<size_t>(j + kConv1Channels * i)] * h[i];
            out[j] = sum;
        }
    }
    return e;
}

namespace {

struct EvalContext {
    KernelWeights weights;
    NetworkKernel kernel;
    const PipelineEmbedding *pipeline;
    const float *features;
    int stageExtent;
    int numCores;
    float *predictions;
    float *costPerStage;
};

void evaluateRange(const EvalContext &ctx, int begin, int end)
{
    const int stages = ctx.pipeline->numStages;
    alignas(32) float relu1[kKernelItems][kConv1Channels];
    TermCoefficients coefficients[kKernelItems];
    float totals[kKernelItems];
    int schedule[kKernelItems], stage[kKernelItems];
    // (schedule, stage) items in flat order, kKernelItems per kernel call;
    // (n, s) advance as counters (no divisions per item).
    int n = begin, s = 0;
    float prediction = 0.0f;
    while (n < end) {
        KernelItems items;
        while (items.count < kKernelItems && n < end) {
            const int i = items.count++;
            schedule[i] = n;
            stage[i] = s;
            items.features[i] = ctx.features + (static_cast<size_t>(n) * ctx.stageExtent + static_cast<size_t>(s)) *
                                                   kScheduleFeatureCount;
            items.stage1[i] = ctx.pipeline->conv1Stage1.data() + static_cast<size_t>(s) * kConv1Channels;
            items.relu1[i] = relu1[i];
            if (++s == stages) {
                s = 0;
                ++n;
            }
        }
        ctx.kernel(ctx.weights, items);
        for (int i = 0; i < items.count; ++i)
            computeTermCoefficients(items.features[i], ctx.numCores, coefficients[i]);
        sumTermsGroup(coefficients, relu1, items.count, totals);
        for (int i = 0; i < items.count; ++i) {
            const float cost = totals[i] * kCostUnit;
            if (ctx.costPerStage)
                ctx.costPerStage[static_cast<size_t>(schedule[i]) * stages + stage[i]] = cost;
            // Stages are summed in order, starting from 0 for each schedule.
            prediction = (stage[i] == 0 ? 0.0f : prediction) + cost;
            if (stage[i] == stages - 1)
                ctx.predictions[schedule[i]] = prediction;
        }
    }
}

} // namespace

void CostModel::evaluate(const PipelineEmbedding &pipeline, std::span<const float> scheduleFeatures, int batchSize,
                         int numCores, std::span<float> predictions, std::span<float> costPerStage, int stageExtent,
                         int threads) const
{
    const int stages = pipeline.numStages;
    if (stageExtent == 0)
        stageExtent = stages;
    if (stages <= 0 || stageExtent < stages)
        throw ModelError("schedule features: stage extent " + std::to_string(stageExtent) +
                         " is smaller than the pipeline's " + std::to_string(stages) + " stages");
    if (batchSize < 0)
        throw ModelError("batch size: expected >= 0, found " + std::to_string(batchSize));
    if (numCores <= 0)
        throw ModelError("num_cores: expected > 0, found " + std::to_string(numCores));
    const size_t expected = static_cast<size_t>(batchSize) * stageExtent * kScheduleFeatureCount;
    if (scheduleFeatures.size() < expected)
        throw ModelError("schedule features: expected " + std::to_string(expected) + " values (" +
                         std::to_string(batchSize) + " schedules x " + std::to_string(stageExtent) +
                         " stages x 73), found " + std::to_string(scheduleFeatures.size()));
    if (predictions.size() < static_cast<size_t>(batchSize))
        throw ModelError("predictions: expected room for " + std::to_string(batchSize) + " values, found " +
                         std::to_string(predictions.size()));
    if (!costPerStage.empty() && costPerStage.size() < static_cast<size_t>(batchSize) * stages)
        throw ModelError("cost per stage: expected room for " + std::to_string(batchSize * stages) + " values, found " +
                         std::to_string(costPerStage.size()));

    EvalContext ctx{
        {m_head2FilterT.data(), m_weights.tensor(TensorIndex::Head2Bias).data.data(), m_conv1FilterT.data()},
        selectNetworkKernel(),
        &pipeline,
        scheduleFeatures.data(),
        stageExtent,
        numCores,
        predictions.data(),
        costPerStage.empty() ? nullptr : costPerStage.data()};

    // Threads only pay off for batches worth more than their start-up time.
    const int useful = std::max(1, std::min(threads, batchSize * stages / 256));
    if (useful <= 1) {
        evaluateRange(ctx, 0, batchSize);
        return;
    }
    const int chunk = (batchSize + useful - 1) / useful;
    parallelFor(static_cast<size_t>(useful), useful, [&](size_t t) {
        const int begin = std::min(batchSize, static_cast<int>(t) * chunk);
        evaluateRange(ctx, begin, std::min(batchSize, begin + chunk));
    });
}

Evaluation CostModel::evaluate(std::span<const float> pipelineFeatures, std::span<const float> scheduleFeatures,
                               int numStages, int batchSize, int numCores, int stageExtent) const
{
    const PipelineEmbedding pipeline = embedPipeline(pipelineFeatures, numStages);
    Evaluation result;
    result.numStages = numStages;
    result.batchSize = batchSize;
    result.predictions.resize(static_cast<size_t>(std::max(0, batchSize)));
    result.costPerStage.resize(static_cast<size_t>(std::max(0, batchSize)) * numStages);
    evaluate(pipeline, scheduleFeatures, batchSize, numCores, result.predictions, result.costPerStage, stageExtent);
    return result;
}

std::vector<StageBreakdown> CostModel::breakdown(const PipelineEmbedding &pipeline,
                                                 std::span<const float> scheduleFeatures, int numCores) const
{
    const int stages = pipeline.numStages;
    const size_t expected = static_cast<size_t>(stages) * kScheduleFeatureCount;
    if (scheduleFeatures.size() < expected)
        throw ModelError("schedule features: expected " + std::to_string(expected) + " values (" +
                         std::to_string(stages) + " stages x 73), found " + std::to_string(scheduleFeatures.size()));
    if (numCores <= 0)
        throw ModelError("num_cores: expected > 0, found " + std::to_string(numCores));

    const KernelWeights kw{m_head2FilterT.data(), m_weights.tensor(TensorIndex::Head2Bias).data.data(),
                           m_conv1FilterT.data()};
    const NetworkKernel kernel = selectNetworkKernel();
    std::vector<StageBreakdown> result(static_cast<size_t>(stages));
    TermCoefficients coefficients;
    for (int s = 0; s < stages; ++s) {
        StageBreakdown &b = result[static_cast<size_t>(s)];
        const float *f = scheduleFeatures.data() + static_cast<size_t>(s) * kScheduleFeatureCount;
        KernelItems item;
        item.count = 1;
        item.features[0] = f;
        item.stage1[0] = pipeline.conv1Stage1.data() + static_cast<size_t>(s) * kConv1Channels;
        item.conv1[0] = b.conv1.data();
        item.relu1[0] = b.relu1.data();
        kernel(kw, item);
        computeTermCoefficients(f, numCores, coefficients);
        b.stageCost = sumTerms(coefficients, b.relu1.data(), b.terms.data()) * kCostUnit;
        b.inlined = coefficients.inlined;
        b.numTasks = coefficients.numTasks;
        b.idleCoreWastage = coefficients.idleCoreWastage;
        b.idleLaneFactor = coefficients.idleLaneFactor;
    }
    return result;
}

} // namespace beamscope::model
