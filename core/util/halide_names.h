#pragma once
// Halide 14 makes every Func name unique within a process: a second build of a
// pipeline names its Funcs "blur_x$1", "output$1", ... The suffix says nothing
// about the pipeline, so names are compared, looked up and shown without it.
// Plain text helpers (no Halide), for the core, the explorer and the tests.

#include <cstdint>
#include <string>
#include <string_view>

namespace beamscope {

// The name without its uniquing suffix: "blur_x$2" -> "blur_x".
std::string baseFuncName(std::string_view name);

// The number of the uniquing suffix, which orders Funcs of one base name as they were made:
// "blur_x$2" -> 2, "blur_x" -> -1 (the first made).
int64_t uniqueSuffixNumber(std::string_view name);

// Text with every uniquing suffix removed (a '$' and digits right after an
// identifier character): "blur_x$1_s0 reads input$3" -> "blur_x_s0 reads input".
std::string withoutUniqueSuffixes(std::string_view text);

} // namespace beamscope
