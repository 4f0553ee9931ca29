#pragma once
// The lines two texts share and where they differ, as a unified diff reads:
// every line once, marked kept, removed (only in the first text) or added
// (only in the second), in an order that keeps both texts' order. Longest
// common subsequence, so two loop nests that differ in one tiling show that
// tiling's lines and nothing else.

#include <string>
#include <vector>

namespace beamscope {

struct DiffLine {
    enum class Kind { Kept, Removed, Added };
    Kind kind = Kind::Kept;
    std::string text;
};

// Texts are split at '\n' (a trailing newline adds no empty line). Quadratic
// in the line counts: meant for loop nests (hundreds of lines), not logs.
std::vector<DiffLine> diffLines(const std::string &before, const std::string &after);

} // namespace beamscope
