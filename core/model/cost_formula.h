#pragma once
// The hand-written half of the cost model (the formula after the network), in
// a form shared by inference, the breakdown and training: every term is
// coefficient(t) x relu1(channel(t)), where the coefficient depends only on
// the raw schedule features and num_cores. So the stage cost is linear in
// relu1, and its gradient with respect to relu1(channel(t)) is coefficient(t).

#include "core/model/cost_model.h"

#include <array>

namespace beamscope::model {

struct TermCoefficients {
    std::array<float, kCostTermCount> coefficient{};
    std::array<int, kCostTermCount> channel{};
    bool inlined = false;
    float numTasks = 1;
    float idleCoreWastage = 1;
    float idleLaneFactor = 1;
};

// features: the 73 raw schedule features of one stage.
void computeTermCoefficients(const float *features, int numCores, TermCoefficients &out);

// Sum of coefficient x relu1 in CostTerm order, float, left to right, in the
// network's units (before the 1e-9 unit change). terms (optional) receives
// each product.
float sumTerms(const TermCoefficients &c, const float *relu1, float *terms);

// sumTerms for up to 4 stages at once (interleaved so the four sums' additions
// overlap); each total is bit-identical to sumTerms on its own.
void sumTermsGroup(const TermCoefficients *coefficients, const float (*relu1)[kConv1Channels], int count,
                   float *totals);

// Halide's unit change from the network's units to seconds-like costs.
constexpr float kCostUnit = 1e-9f;

} // namespace beamscope::model
