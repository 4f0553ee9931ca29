#pragma once
// Deterministic synthetic samples for the samples and retrain tests: plausible
// (non-negative, count-like) features drawn from a seeded generator, so the
// tests control every value.

#include "core/samples/sample.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace beamscope::test {

// Pipeline features of a made-up pipeline: small op counts, [stage][40][7].
inline std::vector<float> syntheticPipelineFeatures(int stages, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> count(0, 6);
    std::bernoulli_distribution used(0.3);
    std::vector<float> out(static_cast<size_t>(stages) * samples::kPipelineFeatureCount, 0.0f);
    for (auto &value : out)
        value = used(rng) ? static_cast<float>(count(rng)) : 0.0f;
    return out;
}

// One schedule's features, [stage][73]: log-uniform magnitudes like real
// counts and byte sizes, some zero.
inline std::vector<float> syntheticScheduleFeatures(int stages, std::mt19937 &rng)
{
    std::uniform_real_distribution<float> magnitude(0.0f, 12.0f);
    std::bernoulli_distribution zero(0.15);
    std::vector<float> out(static_cast<size_t>(stages) * samples::kScheduleFeatureCount);
    for (auto &value : out)
        value = zero(rng) ? 0.0f : std::floor(std::exp(magnitude(rng)));
    return out;
}

inline samples::Sample assembleSample(const std::vector<float> &pipelineFeatures,
                                      const std::vector<float> &scheduleFeatures, int stages, float runtimeMs,
                                      int32_t pipelineId, int32_t scheduleId)
{
    using namespace samples;
    Sample sample;
    sample.runtimeMs = runtimeMs;
    sample.pipelineId = pipelineId;
    sample.scheduleId = scheduleId;
    for (int s = 0; s < stages; ++s) {
        auto sf = scheduleFeatures.begin() + static_cast<long>(s) * kScheduleFeatureCount;
        sample.stages.insert(sample.stages.end(), sf, sf + kScheduleFeatureCount);
        for (int t = 0; t < kTypesInUseCount; ++t)
            sample.stages.push_back(1.0f);
        auto pf = pipelineFeatures.begin() + static_cast<long>(s) * kPipelineFeatureCount;
        sample.stages.insert(sample.stages.end(), pf, pf + kPipelineFeatureCount);
    }
    return sample;
}

} // namespace beamscope::test
