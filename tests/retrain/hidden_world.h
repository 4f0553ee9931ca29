#pragma once
// A synthetic measurement campaign whose "true" runtimes come from a hidden
// cost model: random plausible features, runtime = the hidden weights'
// prediction. A model trained on part of it should rank the rest better.

#include "core/model/cost_model.h"
#include "core/samples/dataset.h"
#include "core/samples/sample.h"
#include "tests/samples/synthetic_samples.h"
#include "tests/support/test_data.h"

#include <cmath>
#include <filesystem>
#include <random>
#include <string>

namespace beamscope::test {

struct HiddenWorld {
    int pipelines = 6;
    int schedulesPerPipeline = 24;
    int stages = 2;
    uint32_t seed = 1;
    int numCores = 80;
};

// Writes <root>/app<k>/p<id>_s<j>.sample for pipeline k (id 100 + k); returns
// how many samples were written.
inline int writeHiddenWorld(const std::filesystem::path &root, const weights::Weights &hidden, const HiddenWorld &world)
{
    const model::CostModel costModel(hidden);
    std::mt19937 rng(world.seed);
    int written = 0;
    for (int k = 0; k < world.pipelines; ++k) {
        const int32_t id = 100 + k;
        const auto pf = syntheticPipelineFeatures(world.stages, world.seed * 1000u + static_cast<uint32_t>(k));
        const auto dir = root / ("app" + std::to_string(k));
        std::filesystem::create_directories(dir);
        for (int j = 0, attempts = 0; j < world.schedulesPerPipeline && attempts < 100 * world.schedulesPerPipeline;
             ++attempts) {
            const auto sf = syntheticScheduleFeatures(world.stages, rng);
            const auto eval = costModel.evaluate(pf, sf, world.stages, 1, world.numCores);
            const float runtime = eval.predictions[0];
            if (!(runtime > 1e-6f) || !std::isfinite(runtime) || runtime > 1e4f)
                continue; // not a usable "measurement"
            const auto sample = assembleSample(pf, sf, world.stages, runtime, id, j);
            const auto bytes = samples::serializeSample(sample);
            writeFile(dir / ("p" + std::to_string(id) + "_s" + std::to_string(j) + ".sample"),
                      std::string(bytes.begin(), bytes.end()));
            ++j;
            ++written;
        }
    }
    return written;
}

} // namespace beamscope::test
