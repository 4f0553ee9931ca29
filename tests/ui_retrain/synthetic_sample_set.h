#pragma once
// A small measurement campaign for the GUI tests, made here so no test needs
// measured data: made-up pipelines (one app folder each, the hold-one-out layout
// of docs/samples.md) whose "measured" runtimes are what a hidden weights
// file predicts. A model that ranks the schedules exactly like the hidden one
// therefore scores Spearman = Kendall = 1.

#include "core/model/cost_model.h"
#include "core/samples/sample.h"
#include "core/weights/weights.h"
#include "tests/samples/synthetic_samples.h"

#include <QString>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace beamscope::test {

struct SyntheticSetShape {
    std::vector<std::string> apps{"blur", "conv", "hist", "matmul"}; // one pipeline per app
    int schedulesPerPipeline = 20;
    int stages = 2;
    uint32_t seed = 11;
    int numCores = 80;
};

inline void writeBytes(const std::filesystem::path &path, const std::vector<char> &bytes)
{
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Writes <root>/<app>/p<id>_s<j>.sample (pipeline id 200 + k for app k);
// returns the number of files written. Count-like features: small op counts
// for the pipeline, log-uniform magnitudes (some zero) for the schedules.
inline int writeSyntheticSampleSet(const std::filesystem::path &root, const weights::Weights &hidden,
                                   const SyntheticSetShape &shape = {})
{
    const model::CostModel costModel(hidden);
    std::mt19937 rng(shape.seed);
    int written = 0;
    for (size_t k = 0; k < shape.apps.size(); ++k) {
        const int32_t id = 200 + static_cast<int32_t>(k);
        std::vector<float> pf(static_cast<size_t>(shape.stages) * samples::kPipelineFeatureCount);
        std::bernoulli_distribution used(0.3);
        std::uniform_int_distribution<int> ops(1, 6);
        for (auto &v : pf)
            v = used(rng) ? static_cast<float>(ops(rng)) : 0.0f;
        for (int j = 0, attempts = 0; j < shape.schedulesPerPipeline && attempts < 1000; ++attempts) {
            const std::vector<float> sf = syntheticScheduleFeatures(shape.stages, rng);
            const auto eval = costModel.evaluate(pf, sf, shape.stages, 1, shape.numCores);
            const float runtime = eval.predictions[0];
            if (!(runtime > 1e-6f) || !std::isfinite(runtime) || runtime > 1e4f)
                continue; // not something a benchmark would have measured
            writeBytes(root / shape.apps[k] / ("p" + std::to_string(id) + "_s" + std::to_string(j) + ".sample"),
                       samples::serializeSample(assembleSample(pf, sf, shape.stages, runtime, id, j)));
            ++j;
            ++written;
        }
    }
    return written;
}

// Two files the dataset must skip, each with its reason: a runtime over Halide's
// 100 s limit and a truncated file.
inline void writeImplausibleSamples(const std::filesystem::path &folder)
{
    std::vector<float> pf(samples::kPipelineFeatureCount, 1.0f), sf(samples::kScheduleFeatureCount, 2.0f);
    writeBytes(folder / "too_slow.sample", samples::serializeSample(assembleSample(pf, sf, 1, 250000.0f, 900, 1)));
    auto bytes = samples::serializeSample(assembleSample(pf, sf, 1, 1.0f, 901, 1));
    bytes.resize(bytes.size() - 7);
    writeBytes(folder / "truncated.sample", bytes);
}

} // namespace beamscope::test
