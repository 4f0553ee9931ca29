#pragma once
// Applies a searched state to real Halide Funcs: the calls schedule_plan.h
// lists, made on the Funcs of a pipeline found by name. The Funcs may belong
// to another build of the same pipeline than the one the state was searched
// on (each PipelineInstance build makes fresh Funcs with the same names).

#include "core/schedule/schedule_plan.h"

#include <Halide.h>

#include <map>
#include <string>
#include <vector>

namespace beamscope::schedule {

// Every Func the outputs call, transitively, outputs included, by name.
std::map<std::string, Halide::Func> funcsByName(const std::vector<Halide::Func> &outputs);

// Throws std::invalid_argument naming a planned Func that `funcs` lacks;
// Halide's own errors (an illegal schedule) propagate as Halide::Error.
void applyPlan(const SchedulePlan &plan, const std::map<std::string, Halide::Func> &funcs);
void applySchedule(const search::State &state, const std::vector<Halide::Func> &outputs);

} // namespace beamscope::schedule
