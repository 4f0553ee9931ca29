#pragma once
// The children of a state: every legal way to schedule the next Func
// (inline, compute_root with a GPU tiling, compute at the block level of its
// consumer in shared memory, compute at the thread level in registers),
// as SearchSpace.cpp's generate_children does for Anderson2021.

#include "core/search/autoschedule_params.h"
#include "core/search/structural_hash.h"
#include "core/search/state.h"
#include "core/util/json.h"

#include <random>
#include <string>
#include <vector>

namespace beamscope::search {

struct Decision {
    int node = -1;
    ComputeLocation location = ComputeLocation::Root;
    int consumer = -1;
    std::string text; // "blur_x: root, threads 32x8, serial 1x2 (unrolled)"

    Json toJson(const SearchDag &dag, const FuncSchedule &f) const;
};

struct Child {
    State state;
    Decision decision;
};

// How one pass generates children.
struct GenerateOptions {
    // Tiling candidates kept per block-level location (evenly spread), without randomizeTilings;
    // compute_root Funcs then take Halide's own tilings (halide_root_tilings.h), all of them.
    size_t maxTilings = 96;
    size_t maxRootTilings = 0; // Halide's compute_root tilings kept (AutoscheduleParams::maxRootTilings), 0: all
    int pass = 0; // the coarse-to-fine pass, -1 the pre-pass (randomizeTilings groups tilings by its hash granularity)
    bool prePass = false; // freeze_inline_compute_root's pre-pass: inline and compute_root only
    // A decision fixed for this Func (continue-from / partial schedule, frozen
    // stage): when set it is the only child offered, as long as it is legal.
    const FuncSchedule *fixed = nullptr;
    bool fixedIsStrict = true; // an illegal fixed decision leaves no child (else: generate normally)
};

// rng: used for dropout and, with randomizeTilings, to sample tilings.
//
// Search space options follow Halide's SearchSpaceOptions: compute_root is
// allowed when its flag or the block or thread flag is set (Funcs computed
// inside a kernel need compute_root consumers); outputs are always compute_root.
// disableSubtiling (HL_NO_SUBTILING) is Mullapudi et al.'s space: a Func is
// computed at root or inside its consumer's block loop, never further in
// (no thread level), and a Func computed inside a block is not tiled into
// serial sub-tiles; compute_root Funcs are still tiled into blocks, threads
// and serial loops. Without randomizeTilings a compute_root Func gets exactly
// Halide's phase-1 tilings in Halide's order (halideRootTilings).
// randomizeTilings (HL_RANDOMIZE_TILINGS) groups the
// tilings of a location by the pass's structural hash and keeps a random
// floor(log2(N)) of a group of N (all of a group of one).
std::vector<Child> generateChildren(const State &parent, const AutoscheduleParams &params,
                                    const GenerateOptions &options, std::mt19937_64 &rng);

std::string describe(const SearchDag &dag, const FuncSchedule &f);

} // namespace beamscope::search
