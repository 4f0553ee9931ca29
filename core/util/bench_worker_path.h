#pragma once
// Where the bench worker program is: $BEAMSCOPE_BENCH_WORKER, else beside the
// running program (a build's app/, a test's folder), else installed
// (bin/../libexec/beamscope/), else its name for a PATH lookup. Halide-free,
// so the explorer's Device view can ask the worker about the OpenCL device too.

#include <filesystem>

namespace beamscope {

std::filesystem::path benchWorkerPath();

} // namespace beamscope
