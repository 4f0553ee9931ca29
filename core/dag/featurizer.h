#pragma once
// Counts a stage's PipelineFeatures the way Halide's learned autoschedulers do
// (after simplify + CSE of each value and each left-hand-side argument) and
// records the load Jacobian of every call to a producer.

#include "core/dag/function_dag.h"

namespace beamscope::dag {

// Fills dag.nodes[node].stages[stage].features and the load Jacobians of the
// stage's incoming edges.
void featurizeStage(FunctionDAG &dag, int node, int stage);

} // namespace beamscope::dag
