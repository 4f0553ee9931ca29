#pragma once
// The pipeline a command works on, from its command line: a built-in one
// (--app NAME) or a generator from a shared library (--generator LIB.so
// --name GEN [--param k=v]...). One place for autoschedule, state and features.

#include "app/cli/arguments.h"
#include "core/pipelines/pipeline.h"

#include <optional>
#include <string>
#include <vector>

namespace beamscope::cli {

struct PipelineOptions {
    std::optional<std::string> app, generator, name;
    std::vector<std::string> params; // "k=v", in order
};

struct PipelineOptionHandles {
    CLI::Option *app, *generator;
};

// Declares --app, --generator, --name and --param (repeatable): --app
// excludes the other three, --generator needs --name, and --name and --param
// need --generator. Returns --app and --generator, for the commands that
// declare more about them.
PipelineOptionHandles addPipelineOptions(CLI::App &app, PipelineOptions &options);

// "give exactly one of --app NAME or --generator LIB.so" when neither is
// given; "" when the options name a pipeline.
std::string pipelineChoiceProblem(const PipelineOptions &options);

// Builds a built-in pipeline by name (what --app takes). Throws
// std::invalid_argument for an unknown name, listing where the names are.
pipelines::PipelineInstance buildBuiltinPipeline(const std::string &name);

// Builds the chosen pipeline. Throws pipelines::GeneratorError (library,
// generator or parameter), std::invalid_argument (unknown --app), or Halide's
// errors; each message names what is wrong.
pipelines::PipelineInstance buildChosenPipeline(const PipelineOptions &options);

} // namespace beamscope::cli
