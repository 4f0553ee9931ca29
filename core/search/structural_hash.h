#pragma once
// The hash behind Anderson2021's coarse-to-fine beam search (LoopNest::
// structural_hash, State::structural_hash): a state's loop-nest structure down
// to a granularity. Halide walks its loop tree spending two units of depth per
// loop level: at an even depth it hashes which Funcs are stored, computed and
// inlined at that level; one unit more adds whether each child loop's extents
// are > 1; two more adds the exact extents and descends one level.
//
// Beamscope's states have three loop levels (root, a kernel's block, a GPU
// thread), so granularity g reads:
//   g < 0  the number of Funcs scheduled only
//   g >= 0 which Funcs are compute_root (the children of the root)
//   g >= 1 per root stage: which loops have more than one block, the vector loop
//   g >= 2 exact block counts; per root stage, which Funcs it computes per block
//          (and whether they are also realized at root)
//   g >= 3 per root / block-level stage: which loops have more than one thread
//   g >= 4 exact thread counts; which Funcs are computed per thread or inlined
//   g >= 5 which loops have serial tiles > 1
//   g >= 6 exact serial tiles and unrolling (the whole state)
// Like Halide's, the hash always starts from the number of decisions made, so
// states at different depths never collide by construction.

#include "core/search/state.h"

#include <cstdint>

namespace beamscope::search {

// The granularity at which the hash tells every two different states apart.
constexpr int kExactGranularity = 6;

// Hash of the state made of the first `prefix` scheduled Funcs of `state`
// (its ancestor at that depth; -1: the whole state).
uint64_t coarseToFineHash(const State &state, int granularity, int prefix = -1);

} // namespace beamscope::search
