#pragma once
// Shared by the model tests: golden case loading (npy -> the model's row-major
// layouts), generated fixtures, and an independent double-precision reference
// of the whole model written straight from the formula (no shared code with
// core/model beyond the fast_log polynomial, whose exact constants are the
// definition of the model's input normalisation).

#include "core/model/cost_model.h"
#include "core/weights/weights.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace beamscope::model::test {

struct GoldenInference {
    std::string name;
    std::string weightsFile;
    int numStages = 0, stageExtent = 0, batchSize = 0, numCores = 0;
    std::vector<float> pipelineFeatures; // [E][40][7]
    std::vector<float> scheduleFeatures; // [B][E][73]
    std::vector<float> prediction;       // [B]
    std::vector<float> costPerStage;     // [B][S]
};
GoldenInference loadGoldenInference(const std::filesystem::path &caseDir);

// Converts Halide's (40, 7, S) / (B, 73, S) dimension-0-fastest buffers.
std::vector<float> pipelineFromHalide(const std::vector<float> &data, int stages);
std::vector<float> scheduleFromHalide(const std::vector<float> &data, int batch, int stages);

weights::Weights loadWeightsOrThrow(const std::filesystem::path &path);

// Deterministic pseudo-random fixtures (the golden README's 64-bit LCG).
class Lcg {
public:
    explicit Lcg(uint64_t seed) : m_state(seed) {}
    double uniform()
    {
        m_state = m_state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>((m_state >> 32) >> 8) / 16777216.0;
    }

private:
    uint64_t m_state;
};
// Weights with values of the magnitude of Halide's trained files.
weights::Weights randomWeights(uint64_t seed);
// Pipeline features: small non-negative integers, mostly zero.
std::vector<float> randomPipelineFeatures(Lcg &rng, int stages);
// Schedule features of realistic magnitude, with every branch of the formula
// reachable (inlined / not, inner_parallelism > 1 / not, efficiencies < 1).
std::vector<float> randomScheduleFeatures(Lcg &rng, int batch, int stages);

// Reference: the model in double precision, per schedule and stage.
struct ReferenceResult {
    std::vector<double> prediction;   // [B]
    std::vector<double> costPerStage; // [B][S]
    std::vector<double> regulariser;  // [B]: sum over stages and channels of -min(conv1, 0)
};
ReferenceResult referenceModel(const weights::Weights &w, const std::vector<float> &pipelineFeatures,
                               const std::vector<float> &scheduleFeatures, int stages, int stageExtent, int batch,
                               int numCores);

// Halide's training loss computed from the double reference (reference index
// given explicitly).
double referenceLoss(const weights::Weights &w, const std::vector<float> &pipelineFeatures,
                     const std::vector<float> &scheduleFeatures, int stages, int batch, int numCores,
                     const std::vector<float> &trueRuntimes, int reference);

} // namespace beamscope::model::test
