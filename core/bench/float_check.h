#pragma once
// How an output computed on a GPU device is compared with the host reference.
//
// Halide compiles float code with fast-math freedom (contraction into FMAs,
// reassociation) unless the target has strict_float, so the host reference and
// a device build legitimately round differently; a float that is then truncated
// to an integer (hist's luma index, local_laplacian's 16-bit output) differs by
// one unit wherever it lies near a boundary, and hist's histogram moves the
// error further. Measured on PoCL: the host compute_root reference with and
// without strict_float differs in 4,498 of 61,440 hist values and 189 of
// 61,440 local_laplacian values; the apps' own OpenCL schedules compiled with
// strict_float match a strict_float reference exactly (hist) or but for 16
// values (local_laplacian).
//
// Those 16 come from the device's math library: OpenCL lets exp, log, pow,
// sin, ... be up to 3-4 ulp from the correctly rounded value (sqrt 3 ulp) and
// PoCL's exp differs from glibc's expf by one ulp in 194 of local_laplacian's
// 2,048 remap-table inputs; with exp replaced by Halide's fast_exp (plain
// arithmetic) the same comparison is exact. So a strict_float comparison is
// exact for every pipeline but those that call such functions, and only for
// those is a tolerance accepted (withinMathLibraryTolerance).

#include "core/bench/measurement.h"

#include <Halide.h>

#include <string>
#include <vector>

namespace beamscope::bench {

// The math-library functions (exp, log, pow, trigonometric, hyperbolic, sqrt)
// the pipeline's Funcs call, by Halide name without the type suffix, sorted,
// and Halide's approximate reciprocals (fast_inverse, fast_inverse_sqrt).
// These are the calls whose device results OpenCL does not require to be
// correctly rounded.
std::vector<std::string> inexactMathCalls(const std::vector<Halide::Func> &outputs);

// The largest share of values allowed to differ, and by how much, when a
// pipeline calls the math library: a one-ulp difference only moves an integer
// output across a rounding boundary where the exact value lies within about
// an ulp of it, which is rare (local_laplacian: 16 of 61,440 = 0.03%); many
// more differing values, or any by more than one unit, point at the schedule.
constexpr double kMathToleranceShare = 0.01;
constexpr double kMathToleranceUnits = 1.0;

// True when m failed only by wrong output, every output is an integer type,
// `mathCalls` is non-empty and the differences stay within the tolerance above.
bool withinMathLibraryTolerance(const Measurement &m, const std::vector<std::string> &mathCalls);

// True when `mathCalls` holds one of Halide's approximate reciprocals. The host
// and an OpenCL device implement them with different instructions and
// precision, and a pipeline that divides by them again (bgu's 4x4 solves)
// magnifies that to whole units, so such a run cannot be compared with the
// host reference, only run to its end.
bool callsApproximateReciprocal(const std::vector<std::string> &mathCalls);

} // namespace beamscope::bench
