#pragma once
// A searched state as C++ schedule source a user can paste into a generator,
// laid out as Halide's autoschedulers print it: the Funcs fetched with
// pipeline.get_func(N) (outputs first), the Vars, then one block per Func
// stage (updates before the pure definition), each with its predicted cost.
// The text assumes what Halide's .schedule.h wrapper provides: `pipeline`, and
// using-declarations of Func, MemoryType, RVar, TailStrategy and Var.

#include "core/schedule/schedule_plan.h"

#include <Halide.h>

#include <map>
#include <string>
#include <vector>

namespace beamscope::schedule {

struct EmitOptions {
    std::string pipeline;                           // named in the heading comment
    const std::vector<float> *stageCosts = nullptr; // cost-model order (SearchResult::stageCosts)
    double totalCost = -1;                          // < 0: not printed
};

// Index of every Func in Pipeline::get_func's order (Halide's topological order).
std::map<std::string, int> pipelineFuncIndices(const std::vector<Halide::Func> &outputs);

std::string emitSource(const search::State &state, const std::vector<Halide::Func> &outputs,
                       const EmitOptions &options = {});
// The same from a plan and precomputed indices (what the tests pin down).
std::string emitSource(const search::State &state, const SchedulePlan &plan,
                       const std::map<std::string, int> &funcIndices, const EmitOptions &options);

} // namespace beamscope::schedule
