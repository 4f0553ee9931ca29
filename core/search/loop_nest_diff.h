#pragma once
// Two loop-nest dumps of one pipeline (Halide's, say, and a Beamscope state's
// printed in Halide's form by State::halideLoopNestTree) compared Func by Func:
// where each Func is computed and stored and how each of its stages' loops is
// split. Two searches decide the Funcs in one order (SearchDag::scheduleOrder),
// so the first Func placed differently is the step where two beam-1 searches
// part. It reads the dumps' text, not states, so it also compares a dump whose
// placements Beamscope's states cannot hold (a block-level Func inside a Func
// that is not compute_root, a Func in a second serial loop).

#include "core/search/loop_nest_text.h"
#include "core/search/search_dag.h"

#include <map>
#include <string>

namespace beamscope::search {

// Every Func's placement in one dump, in words: "inline", or per stage where its loops sit
// ("root", "<consumer>.s<stage> gpu_block", ...) and their sizes, then where it is stored.
struct FuncPlacements {
    std::map<int, std::string> byNode; // Funcs the dump schedules
    std::string error;                 // a name the pipeline has no single Func for
};
FuncPlacements funcPlacements(const SearchDag &dag, const LoopNestText &dump);

struct FuncPlacementDifference {
    int node = -1;             // -1 when the dumps place every Func alike
    std::string func;          // its name, without Halide's "$N" numbering
    std::string first, second; // its placement in each dump ("undecided" where one has none)
    std::string error;         // a dump that could not be read (then node is -1)
};
FuncPlacementDifference firstDifferingFunc(const SearchDag &dag, const LoopNestText &first, const LoopNestText &second);

} // namespace beamscope::search
