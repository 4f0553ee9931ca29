#pragma once
// The children of a state: every legal way to schedule the next Func
// (inline, compute_root with a GPU tiling, compute at the block level of its
// consumer in shared memory, compute at the thread level in registers),
// as SearchSpace.cpp's generate_children does for Anderson2021.

#include "core/search/autoschedule_params.h"
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

// maxTilings: tiling candidates kept per location (pass-dependent);
// rng: used for dropout and, with randomizeTilings, to sample tilings.
std::vector<Child> generateChildren(const State &parent, const AutoscheduleParams &params, size_t maxTilings,
                                    std::mt19937_64 &rng);

std::string describe(const SearchDag &dag, const FuncSchedule &f);

} // namespace beamscope::search
