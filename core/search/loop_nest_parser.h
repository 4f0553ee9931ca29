#pragma once
// Reads the loop-nest dump of Halide's Anderson2021 autoscheduler
// (LoopNest::dump, as printed after "** Optimal schedule:" in an
// HL_DEBUG_AUTOSCHEDULE log, or given as a partial_schedule_path file) into a
// Beamscope State on the same pipeline.
//
// The dump's forms (Halide v19):
//    gpu_none                                  the root
//   realize: prod [1024, 1024] with 2 stages   a Func stored at this level (extents, 'c' = constant)
//   output 16 256 (0, 0) t gpu_block           a loop of one stage: its Func, one size per stage loop
//                                              (innermost loop first; 'v' = vectorized, 'c' = constant
//                                              extent), (vectorized loop index, vector dim), 't' tileable,
//                                              '*' innermost, then the GPU label
//    inlined: blur_x 3                         a Func inlined here, with its call count
// Each level of nesting adds one leading space. Comment lines ('#') and blank
// lines are skipped, as Halide's LoopNestParser does.
//
// Mapping onto Beamscope's three-level states (state.h):
//   a stage chain gpu_block > gpu_thread > gpu_serial > gpu_simd at root   -> Root
//   a Func whose loops sit directly in a root stage's gpu_block loop       -> BlockLevel of that stage
//     (storedAtRoot when the Func is also realized at root, as Halide v19 does; shared memory otherwise)
//   a Func whose loops sit directly in a root stage's gpu_thread loop      -> ThreadLevel
//   a Func whose loops sit in the gpu_serial loop right inside that thread loop
//                                                                          -> ThreadLevel, insideSerialLoop
//   a Func whose loops sit directly in a block-level Func's gpu_thread loop -> ThreadLevel of that Func
//     (and in the gpu_serial loop right inside it: insideSerialLoop)
//   a Func whose loops sit in a thread-level Func's outer gpu_serial loop  -> ThreadLevel of that Func,
//                                                                             insideSerialLoop
//   "inlined:"                                                             -> Inlined
// Per stage loop: threads = product of its gpu_thread sizes, serial = product of its gpu_serial and
// gpu_simd sizes; the vectorized loop index becomes StageTiling::vectorLoop; serial loops are
// unrolled when their product is 2..16 (the search's rule, which is also Halide's
// unrolled_loop_extent on every golden schedule).
// Anything else (partially scheduled stages, a Func computed in a deeper serial loop or the innermost
// loop, a block-level Func inside a Func that is not compute_root, more than one block level) is
// refused with an error naming it.

#include "core/search/loop_nest_text.h"
#include "core/search/state.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace beamscope::search {

struct LoopNestParseResult {
    std::optional<State> state;
    // When !state: "line N: expected ..., found ..." (N counts lines of the text given,
    // so a whole log's line numbers are the file's).
    std::string error;
    // Differences that do not stop parsing, e.g. a realize: extent in the dump that differs
    // from the region Beamscope derives for the same schedule.
    std::vector<std::string> notes;
};

// findLoopNest (the dump inside a whole log) is in loop_nest_text.h.

// Parses a dump (or a whole log, see findLoopNest). The state holds the Funcs the dump
// schedules; they must be a prefix of dag.scheduleOrder() (a complete state when the dump
// schedules every Func).
LoopNestParseResult parseLoopNestDump(const SearchDag &dag, std::string_view text);

// The same, for callers that want only the state: on failure returns nothing and sets *error.
std::optional<State> parseLoopNest(const SearchDag &dag, std::string_view text, std::string *error);

} // namespace beamscope::search
