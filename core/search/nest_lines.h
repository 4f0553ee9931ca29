#pragma once
// The loop nest a trace keeps for a beam state (State::dump's text), read into
// typed lines: what each line is (a realization, a loop, the stage's body, an
// inlined or unscheduled Func), its loop kind and its memory. The explorer
// draws these (colours, legend) and never matches text itself. Halide-free.

#include <string>
#include <string_view>
#include <vector>

namespace beamscope::search {

struct NestLine {
    enum class Kind { Realize, Loop, Body, Inline, Unscheduled, Other };
    enum class LoopKind { None, GpuBlock, GpuThread, Serial, Unrolled, Vectorized };
    enum class Memory { None, Global, Shared, Register };

    Kind kind = Kind::Other;
    int indent = 0;                 // leading spaces
    std::string text;               // the line as written, without its indent
    std::string func;               // Realize, Body: "<func>_s<stage>"; Inline, Unscheduled: the Func
    LoopKind loop = LoopKind::None; // Loop only
    Memory memory = Memory::None;   // Realize only
};

// Every line of the text, in order; a line of no known form is Kind::Other.
std::vector<NestLine> readNestLines(std::string_view dump);

} // namespace beamscope::search
