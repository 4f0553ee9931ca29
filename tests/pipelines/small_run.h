#pragma once
// Runs a pipeline on small, deterministic inputs: input estimates are shrunk,
// the DAG says which region of every input the chosen output region needs,
// inputs are filled from their coordinates and scalar Params take their
// estimates. Used to compare a scheduled, host-compiled run with an
// unscheduled reference.

#include "core/pipelines/pipeline.h"

namespace beamscope::test {

// Shrinks every buffer input's estimates to at most `maxExtent` per dimension
// and binds inputs; returns the output region (at most `maxExtent` per dimension).
std::vector<int> prepareSmallRun(pipelines::PipelineInstance &p, int maxExtent);

// Every non-output Func computed at root and the output vectorized and
// parallel: a different CPU schedule that must compute the same values.
void computeEverythingAtRoot(pipelines::PipelineInstance &p);

// The reference schedule: Halide's default (everything inlined) except Funcs
// read at more than one call site and Funcs with update definitions, which are
// computed at root so that stencil pyramids and nested scans do not grow
// exponentially when inlined.
void rootFuncsReadManyTimes(pipelines::PipelineInstance &p);

Halide::Buffer<> realizeOnHost(pipelines::PipelineInstance &p, const std::vector<int> &extents);

// "" when equal within tolerance, otherwise the first difference.
std::string compareBuffers(const Halide::Buffer<> &a, const Halide::Buffer<> &b, double relativeTolerance);

} // namespace beamscope::test
