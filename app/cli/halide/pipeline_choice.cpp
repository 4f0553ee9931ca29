#include "app/cli/halide/pipeline_choice.h"

#include "core/pipelines/generator_library.h"

#include <map>
#include <stdexcept>

namespace beamscope::cli {

std::string pipelineChoiceProblem(const Arguments &args)
{
    const bool app = args.value("app").has_value(), library = args.value("generator").has_value();
    if (app == library)
        return "give exactly one of --app NAME or --generator LIB.so";
    if (library && !args.value("name"))
        return "--generator needs --name GEN";
    if (app && (args.value("name") || !args.values("param").empty()))
        return "--name and --param go with --generator";
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

pipelines::PipelineInstance buildChosenPipeline(const Arguments &args)
{
    if (const auto app = args.value("app"))
        return buildBuiltinPipeline(*app);
    return pipelines::buildGenerator(*args.value("generator"), *args.value("name"),
                                     pipelines::parseGeneratorParams(args.values("param")));
}

} // namespace beamscope::cli
