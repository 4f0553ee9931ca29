#pragma once
// The text layer of the loop-nest dump reader (loop_nest_parser.h describes the
// dump): finding the dump in a log, reading each line into an entry, and
// nesting the entries by their indentation. Plain C++ with no Halide and no
// pipeline, so that the fuzzer (tests/fuzz) reaches it in the Halide-free build;
// loop_nest_parser.cpp maps the entries onto a pipeline's Funcs.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace beamscope::search {

// One loop size or realize extent: "16", "64c" (constant), "1vc" (vectorized, constant).
struct LoopSize {
    int64_t value = 0;
    bool vectorized = false;
    bool constant = false;
};

enum class NestLineKind { Root, Realize, Inlined, Loop };

struct NestEntry {
    NestLineKind kind = NestLineKind::Loop;
    int line = 0;   // in the text given to parseLoopNestText
    int indent = 0; // leading spaces
    std::string func;
    // Loop
    std::vector<LoopSize> sizes; // at least 1 each
    int vectorLoop = -1, vectorDim = -1;
    bool innermost = false;
    bool tileable = false; // printed " t"
    std::string label;     // "" for an innermost loop printed without one
    // Realize
    std::vector<LoopSize> extents;
    int stages = 0;
    // Inlined
    int64_t calls = 0;
    // Tree
    int parent = -1;
    std::vector<int> children; // all entries nested here, in print order
};

struct LoopNestText {
    // entries[0] is the root line; parent/children are filled in.
    std::vector<NestEntry> entries;
    // "line N: expected ..., found ..." when the text is not a loop nest (entries then empty).
    std::string error;
    bool ok() const { return error.empty(); }
};

// The dump inside a whole log: the lines after the last "** Optimal schedule:" up to the first
// line that is not part of a loop nest. Text without that marker is returned whole.
// firstLine receives the 1-based line number (in text) of the returned view's first line.
std::string_view findLoopNest(std::string_view text, int *firstLine = nullptr);

// Reads the dump in text (or in a whole log, see findLoopNest): comment ('#') and
// blank lines skipped, one entry per other line, nested by indentation.
LoopNestText parseLoopNestText(std::string_view text);

// Nests entries given in print order with their indents set (parent, children), as
// parseLoopNestText does; returns "" or what is wrong, naming the entry's line.
std::string linkLoopNestEntries(std::vector<NestEntry> &entries);

// The text parseLoopNestText reads back into the same entries: Halide's dump form, one line per
// entry ("p", which the reader skips, is not printed).
std::string printLoopNestText(const LoopNestText &nest);

} // namespace beamscope::search
