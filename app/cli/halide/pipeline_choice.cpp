#include "app/cli/halide/pipeline_choice.h"

#include "core/pipelines/generator_library.h"

#include <map>
#include <stdexcept>

namespace beamscope::cli {

PipelineOptionHandles addPipelineOptions(CLI::App &app, PipelineOptions &options)
{
    CLI::Option *builtin = addText(app, "--app", options.app, "a built-in pipeline (see 'beamscope-cli apps')");
    CLI::Option *generator = addText(app, "--generator", options.generator, "a shared library of Halide generators");
    CLI::Option *name = addText(app, "--name", options.name, "--generator: the generator's name");
    CLI::Option *param =
        addRepeated(app, "--param", options.params, "--generator: a generator parameter k=v (repeatable)");
    builtin->excludes(generator)->excludes(name)->excludes(param);
    generator->needs(name);
    name->needs(generator);
    param->needs(generator);
    return {builtin, generator};
}

std::string pipelineChoiceProblem(const PipelineOptions &options)
{
    if (!options.app && !options.generator)
        return "give exactly one of --app NAME or --generator LIB.so";
    return {};
}

pipelines::PipelineInstance buildBuiltinPipeline(const std::string &name)
{
    const auto info = pipelines::findPipeline(name);
    if (!info)
        throw std::invalid_argument("--app: unknown pipeline '" + name +
                                    "' (expected a name from 'beamscope-cli apps' or random_<seed>_<stages>)");
    return info->build();
}

pipelines::PipelineInstance buildChosenPipeline(const PipelineOptions &options)
{
    if (options.app)
        return buildBuiltinPipeline(*options.app);
    return pipelines::buildGenerator(*options.generator, *options.name,
                                     pipelines::parseGeneratorParams(options.params));
}

} // namespace beamscope::cli
