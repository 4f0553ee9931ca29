// beamscope-cli features: the PipelineFeatures v3 of every stage of a built-in
// pipeline or a generator, in the cost model's stage order.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/halide/pipeline_choice.h"
#include "core/dag/function_dag.h"
#include "core/pipelines/generator_library.h"
#include "core/pipelines/pipeline.h"
#include "core/util/json.h"

#include <iomanip>
#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

const char *const kSynopsis = "(--app NAME | --generator LIB.so --name GEN [--param k=v]...) [--json]";

void printText(const std::string &pipeline, const dag::FunctionDAG &dag)
{
    // The layout of shared/golden/pipelines/*/pipeline_features.txt, so the two diff cleanly.
    std::cout << "# PipelineFeatures v3 of " << pipeline << ", stages in cost-model order\n";
    const auto stages = dag.costModelStages();
    for (size_t i = 0; i < stages.size(); i++) {
        const dag::Stage &s = dag.stage(stages[i]);
        std::cout << "\nstage " << i << " " << s.node->name << " definition " << s.index << "\n";
        std::cout << "types_in_use";
        for (int t : s.features.typesInUse)
            std::cout << " " << t;
        std::cout << "\n" << std::left << std::setw(20) << "row" << std::right;
        for (int t = 0; t < dag::kScalarTypeCount; t++)
            std::cout << std::setw(8) << dag::scalarTypeName(t);
        std::cout << "\n";
        for (int r = 0; r < dag::kFeatureRows; r++) {
            std::cout << std::left << std::setw(20) << dag::featureRowName(r) << std::right;
            for (int v : s.features.matrix[static_cast<size_t>(r)])
                std::cout << std::setw(8) << v;
            std::cout << "\n";
        }
    }
}

Json toJson(const std::string &pipeline, const dag::FunctionDAG &dag)
{
    Json stages = Json::array();
    for (const auto &ref : dag.costModelStages()) {
        const dag::Stage &s = dag.stage(ref);
        Json st = Json::object();
        st["name"] = s.name;
        st["func"] = s.node->name;
        Json rows = Json::array();
        for (const auto &row : s.features.matrix) {
            Json r = Json::array();
            for (int v : row)
                r.push(v);
            rows.push(r);
        }
        st["features"] = rows;
        Json types = Json::array();
        for (int t : s.features.typesInUse)
            types.push(t);
        st["types_in_use"] = types;
        stages.push(st);
    }
    Json j = Json::object();
    j["pipeline"] = pipeline;
    j["stages"] = stages;
    return j;
}

struct FeaturesOptions {
    PipelineOptions pipeline;
    bool json = false;
};

int runFeatures(const FeaturesOptions &options)
{
    if (const std::string problem = pipelineChoiceProblem(options.pipeline); !problem.empty())
        return usageError("", "features", problem);

    try {
        const pipelines::PipelineInstance instance = buildChosenPipeline(options.pipeline);
        const dag::FunctionDAG dag(instance.outputs);
        if (options.json)
            std::cout << toJson(instance.name, dag).dump(2) << "\n";
        else
            printText(instance.name, dag);
        return kSuccess;
    } catch (const pipelines::GeneratorError &e) {
        std::cerr << "beamscope-cli features: " << e.what() << "\n";
    } catch (const dag::DagError &e) {
        std::cerr << "beamscope-cli features: " << e.what() << "\n";
    } catch (const Halide::Error &e) {
        std::cerr << "beamscope-cli features: Halide: " << e.what() << "\n";
    } catch (const std::invalid_argument &e) {
        std::cerr << "beamscope-cli features: " << e.what() << "\n";
    }
    return kFailure;
}

CommandRun defineFeatures(CLI::App &app)
{
    auto o = std::make_shared<FeaturesOptions>();
    addPipelineOptions(app, o->pipeline);
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runFeatures(*o); };
}

const CommandRegistration registration({"", "features", kSynopsis,
                                        "PipelineFeatures v3 (40 x 7 per stage) of a built-in pipeline or a generator",
                                        defineFeatures});

} // namespace

} // namespace beamscope::cli
