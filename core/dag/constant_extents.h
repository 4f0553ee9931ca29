#pragma once
// Which extents are compile-time constants, as Halide's FunctionDAG tracks them
// (Span::constant_extent) and its loop-nest dumps mark them ('c'). Only the dumps show the mark,
// but Halide's recorded search trees match states by the hash of their dump, so Beamscope's dumps
// must carry it byte for byte.
//
// Halide's rules (FunctionDAG::Edge::expand_footprint, BoundInfo, Node::required_to_computed,
// Node::loop_nest_for_region, Span::union_with):
//   * an output's extent is constant when it comes from Func::bound(), not from an estimate;
//   * an edge's bound is constant when it is a number, or "v", "v * k", "v + k" or "v * k1 + k2"
//     of a consumer loop v that is itself constant (and it read no parameter's estimate); any
//     other form (a division, a min, a sum of two loops) is not; min and max together;
//   * a region required by several consumers is constant where every one of them is (the empty
//     region starts constant);
//   * the region computed keeps the required region's flag where it equals it, else is not;
//   * a loop over a computed dimension keeps that dimension's flag, a loop with numeric bounds (a
//     reduction domain) is constant, any other is not.
// State::halideLoopNestTree applies them inside kernels, where the consumer loops are the GPU
// loops a Func sits in.

#include "core/dag/function_dag.h"

#include <vector>

namespace beamscope::dag {

using ExtentFlags = std::vector<bool>;

class ExtentConstancy {
public:
    explicit ExtentConstancy(const FunctionDAG &dag);

    // The producer region an edge needs, per dimension, given the consumer stage's loop flags.
    ExtentFlags footprint(int edge, const ExtentFlags &consumerLoops) const;
    ExtentFlags computed(int node, const ExtentFlags &required) const;
    ExtentFlags loops(int node, int stage, const ExtentFlags &computed) const;

    // Every Func computed at root over the output estimates: its region computed and its loops.
    const ExtentFlags &rootComputed(int node) const { return m_rootComputed[static_cast<size_t>(node)]; }
    const ExtentFlags &rootLoops(int node, int stage) const
    {
        return m_rootLoops[static_cast<size_t>(node)][static_cast<size_t>(stage)];
    }

private:
    std::vector<std::vector<std::pair<int, int>>> m_edgeBounds; // [edge][dim]: min's and max's source loop
    std::vector<std::vector<bool>> m_computedEqualsRequired;    // [node][dim]
    std::vector<std::vector<std::vector<int>>> m_loopSource;    // [node][stage][loop]: computed dim
    std::vector<ExtentFlags> m_rootComputed;                    // [node]
    std::vector<std::vector<ExtentFlags>> m_rootLoops;          // [node][stage]
};

} // namespace beamscope::dag
