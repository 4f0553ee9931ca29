#pragma once
// The pipeline a command works on, from its command line: a built-in one
// (--app NAME) or a generator from a shared library (--generator LIB.so
// --name GEN [--param k=v]...). One place for autoschedule, state and features.

#include "app/cli/arguments.h"
#include "core/pipelines/pipeline.h"

#include <optional>
#include <string>

namespace beamscope::cli {

// The options are --app, --generator, --name and --param (valued, --param repeatable).
// A usage problem (both or neither of --app and --generator, --generator
// without --name), or "" when the options are well formed.
std::string pipelineChoiceProblem(const Arguments &args);

// Builds a built-in pipeline by name (what --app takes). Throws
// std::invalid_argument for an unknown name, listing where the names are.
pipelines::PipelineInstance buildBuiltinPipeline(const std::string &name);

// Builds the chosen pipeline. Throws pipelines::GeneratorError (library,
// generator or parameter), std::invalid_argument (unknown --app), or Halide's
// errors; each message names what is wrong.
pipelines::PipelineInstance buildChosenPipeline(const Arguments &args);

} // namespace beamscope::cli
