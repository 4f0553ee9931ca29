#pragma once
// Anderson2021's coarse-to-fine hash (State::structural_hash, LoopNest::structural_hash) on
// Halide's own loop-nest tree, for the search that takes Halide's steps (beam_search.h). The
// tree is the state's dump in Halide's form (State::halideLoopNestTree: the entries
// parseLoopNestText reads from State::halideLoopNest), which is Halide's dump byte for byte, so
// two states collide exactly when Halide's would: the hash starts from the
// number of decisions made, and each level of the tree spends two units of depth:
//   depth >= 0  the Funcs realized at this level, the stages computed here, the Funcs inlined here
//   depth >= 1  per child loop which sizes are > 1 (exact sizes from depth 2), and this level's
//               vectorized loop and vector dimension
//   depth >= 2  the same for every child, at depth - 2
// Only equality matters to the search (penalties count states per hash, blessing keeps a set), so
// Funcs are identified by name and stages by their index, not by Halide's numeric ids.

#include "core/search/loop_nest_text.h"

#include <cstdint>

namespace beamscope::search {

// The hash of a state that has made `decisionsMade` of Halide's decisions (two per DAG node), from
// its dump's tree (State::halideLoopNestTree, built once, hashed at any depth).
uint64_t halideStructuralHash(const LoopNestText &nest, int decisionsMade, int depth);

} // namespace beamscope::search
