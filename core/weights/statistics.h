#pragma once
// Per-tensor statistics and the difference between two weights files.

#include "core/weights/weights.h"

#include <cstdint>
#include <vector>

namespace beamscope::weights {

struct TensorStats {
    size_t count = 0;
    double min = 0, max = 0, mean = 0, stddev = 0, l2norm = 0; // over finite values
    size_t nanCount = 0, infCount = 0, zeroCount = 0;
};
TensorStats computeStats(const Tensor &tensor);

struct ElementChange {
    size_t flatIndex = 0;
    std::vector<uint32_t> index; // dimension 0 first
    float a = 0, b = 0;
    double absDiff = 0;
};

struct TensorDiff {
    std::string name;
    std::vector<uint32_t> shape;
    double maxAbsDiff = 0;
    double relativeL2 = 0;              // ||a - b|| / ||a|| (0 when both are 0; inf when only a is 0)
    double cosineSimilarity = 1;        // a.b / (|a||b|) (1 when both are 0)
    size_t changedCount = 0;            // elements whose bits differ
    std::vector<ElementChange> largest; // largest |a - b| first
    std::vector<float> difference;      // b - a, same layout as the tensors (for heatmaps)
};

struct WeightsDiff {
    bool comparable = true; // false when the networks (shapes) differ
    std::string reason;     // why not comparable
    std::vector<TensorDiff> tensors;
};

WeightsDiff diffWeights(const Weights &a, const Weights &b, size_t largestCount = 10);

} // namespace beamscope::weights
