#pragma once
// The 'c' marks of a state's loop-nest dump (State::halideLoopNestTree): which extents Halide's
// bounds make compile-time constants (dag/constant_extents.h) at each loop of the state's nest.
//
// Halide asks each loop L for the bounds of a Func g there (LoopNest::get_bounds): the region
// g's consumers need, counting only the consumers L's stage reads (itself included), each through
// its own loops at L. L's stage's own loops at L are "Own(L)": at a root Func's block and thread
// loops its root loop flags, or constant where the loop is pure (Halide's parallelize_in_tiles);
// at a block-level Func's thread loop its flags at the block, or constant where pure; at any
// serial loop, constant. A dump line then prints:
//   realize of g at L                      g's region computed at L
//   gpu_thread of a root Func              its root loops, or constant where pure
//   gpu_thread of a Func at a block        its loops at that block
//   gpu_serial of a root or block Func     its thread line's flags, or constant where pure
//   gpu_serial of a Func at a thread loop  its loops at the loop it is computed in
//   gpu_simd                               constant

#include "core/dag/constant_extents.h"
#include "core/search/state.h"

#include <map>
#include <tuple>

namespace beamscope::search {

class DumpConstancy {
public:
    explicit DumpConstancy(const State &state) : m_state(state), m_dag(state.dag()) {}

    dag::ExtentFlags realizedAt(int node, const LoopLevel &at);
    dag::ExtentFlags threadLoop(const FuncSchedule &f, int stage);
    dag::ExtentFlags serialLoop(const FuncSchedule &f, int stage);

private:
    struct Bounds {
        dag::ExtentFlags computed;
        std::vector<dag::ExtentFlags> loops; // per stage
    };
    const Bounds &boundsAt(int node, const LoopLevel &at);
    dag::ExtentFlags own(const LoopLevel &at);
    dag::ExtentFlags orPure(dag::ExtentFlags flags, int node, int stage) const;

    const State &m_state;
    const SearchDag &m_dag;
    std::map<std::tuple<int, int, int, int>, Bounds> m_memo; // (node, loop's node, stage, level)
};

} // namespace beamscope::search
