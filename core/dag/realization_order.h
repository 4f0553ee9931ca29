#pragma once
// The order in which the Funcs of a pipeline are realized (producers before
// consumers), as Halide 15 and later compute it. The FunctionDAG's node order,
// and so the cost model's stage axis, the search's decision order and every
// featurization, follows it.
//
// Halide 14's own topological_order visits each Func's callees sorted by full
// name. Later Halides (whose autoscheduler wrote the golden outputs) sort them
// by name prefix, that is the name without a "$..." suffix and without
// trailing digits, then by the order in which a walk from the outputs first
// meets them, then by full name: so that names a process numbered differently
// (f27 against f3, lambda_0 against lambda_12) do not reorder a pipeline.
// Pipelines of distinct names order the same either way; camera_pipe's
// demosaic Funcs (f2 .. f28) do not.

#include <Halide.h>

#include <map>
#include <string>
#include <vector>

namespace beamscope::dag {

std::vector<std::string> realizationOrder(const std::vector<Halide::Internal::Function> &outputs,
                                          const std::map<std::string, Halide::Internal::Function> &env);

} // namespace beamscope::dag
