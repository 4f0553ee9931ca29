#pragma once
// A state rebuilt from its decisions as a search trace records them (each
// node's "detail": func, location, consumer, per-stage threads / serial /
// vector loop / unrolled; stored_at_root for block-level Funcs also realized
// at root, as Halide's search holds them), root first. The decisions must follow the
// pipeline's schedule order (a prefix of SearchDag::scheduleOrder()), so a
// partial state is rebuilt as well as a complete one.

#include "core/search/state.h"
#include "core/util/json.h"

#include <string>
#include <vector>

namespace beamscope::search {

// Throws std::invalid_argument naming the decision (1-based) and the field at
// fault, what was expected and what was found. The i-th decision is matched to
// the i-th Func of the schedule order (node index), never by name lookup; its
// name must agree modulo Halide's per-process uniquifiers ("$N" suffix, the
// number of lambda_N), so a trace replays on a pipeline rebuilt in the same
// process. pipeline only names the pipeline in errors.
// A Func name without Halide's per-process uniquifiers: "repeat_edge$1" ->
// "repeat_edge", "lambda_12" -> "lambda_*".
std::string canonicalFuncName(const std::string &name);

State stateFromDecisions(const SearchDag &dag, const std::vector<Json> &decisions, const std::string &pipeline);

} // namespace beamscope::search
