#pragma once
// Which extents of a Func computed at root are compile-time constants, as Halide's
// FunctionDAG tracks them (Span::constant_extent) and its loop-nest dumps mark them ('c'):
// a bound from Func::bound() (not an estimate) is constant; an edge's bound is constant when it is
// a number, or an affine function of a consumer loop that is itself constant, and it did not read
// a parameter's estimate (Edge::BoundInfo); the region computed keeps the required region's flag
// where it equals it and is not constant elsewhere; a loop over a computed dimension keeps that
// dimension's flag and a loop with numeric bounds (a reduction domain) is constant. A Func read
// by several consumers is constant where every one of them asks for a constant extent.
//
// Only the dumps show the mark, so that Beamscope's dumps of a state are Halide's byte for byte
// (the recorded search trees match states by the hash of their dump).

#include "core/dag/function_dag.h"

#include <vector>

namespace beamscope::dag {

struct RootConstantExtents {
    std::vector<std::vector<bool>> computed;           // [node][dimension] of the region computed at root
    std::vector<std::vector<std::vector<bool>>> loops; // [node][stage][loop] of its root loops
};

RootConstantExtents rootConstantExtents(const FunctionDAG &dag);

} // namespace beamscope::dag
