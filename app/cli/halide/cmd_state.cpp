// beamscope-cli state: reads a schedule Halide's Anderson2021 autoscheduler chose
// (its loop-nest dump, or a whole HL_DEBUG_AUTOSCHEDULE log) as a Beamscope state of a
// built-in pipeline or of a generator from a library, says which Funcs it leaves
// undecided, and prints the state's loop nest, the 73 schedule features of every
// stage and the cost model's prediction per stage and in total.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/halide/cost_model_loading.h"
#include "app/cli/halide/pipeline_choice.h"
#include "core/pipelines/generator_library.h"
#include "core/search/device_limits.h"
#include "core/dag/function_dag.h"
#include "core/gpu/device_facts.h"
#include "core/gpu/search_parameters.h"
#include "core/model/cost_formula.h"
#include "core/model/cost_model.h"
#include "core/pipelines/pipeline.h"
#include "core/search/autoschedule.h"
#include "core/search/featurizer.h"
#include "core/search/loop_nest_parser.h"
#include "core/util/json.h"
#include "core/weights/weights.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

namespace beamscope::cli {

namespace {

const char *const kSynopsis = "(--app NAME | --generator LIB.so --name GEN [--param k=v]...) --loop-nest FILE "
                              "[--weights W | --weights-dir DIR] [--profile v100|NAME] [--json]";

int fail(const std::string &message)
{
    std::cerr << "beamscope-cli state: " << message << "\n";
    return kFailure;
}

struct StateOptions {
    PipelineOptions pipeline;
    std::string loopNest;
    WeightsOptions weights;
    std::string profile = "v100";
    bool json = false;
};

int runState(const StateOptions &options)
{
    const std::string &nestPath = options.loopNest;
    if (const std::string problem = pipelineChoiceProblem(options.pipeline); !problem.empty())
        return usageError("", "state", problem);

    const std::string &profile = options.profile;
    const std::optional<gpu::DeviceFacts> facts = gpu::findProfile(profile);
    if (!facts) {
        std::string names;
        for (const std::string &n : gpu::profileNames())
            names += (names.empty() ? "" : ", ") + n;
        return fail("--profile: unknown profile '" + profile + "' (expected one of " + names + ")");
    }
    const search::FeatureParams params = search::featureParamsFor(*facts);

    // Weights are optional: without them the features are still printed.
    std::unique_ptr<model::CostModel> model;
    std::string weightsNote;
    {
        std::string why;
        const std::filesystem::path weightsPath =
            chooseWeights(options.weights.weights, options.weights.weightsDir, why);
        if (weightsPath.empty()) {
            if (options.weights.weights || options.weights.weightsDir)
                return fail(why);
            weightsNote = "no weights (" + why + "): predicted cost not computed";
        } else {
            model = model::loadCostModel(weightsPath, why);
            if (!model)
                return fail(why);
            weightsNote = weightsPath.string();
        }
    }

    std::ifstream in(nestPath, std::ios::binary);
    if (!in)
        return fail(nestPath + ": cannot read the file");
    std::ostringstream text;
    text << in.rdbuf();

    try {
        pipelines::PipelineInstance instance = buildChosenPipeline(options.pipeline);
        const dag::FunctionDAG dag(instance.outputs);
        const search::SearchDag sdag(dag);
        search::LoopNestParseResult parsed = search::parseLoopNestDump(sdag, text.str());
        if (!parsed.state)
            return fail(nestPath + ": " + parsed.error);
        const search::State &state = *parsed.state;
        const std::string legality = state.legalityProblem(1024, params.sharedMemoryLimitBytes, params.activeWarpLimit);
        const std::vector<search::ScheduleFeatures> features = search::computeFeatures(state, params);
        const int stages = static_cast<int>(features.size());

        std::vector<float> stageCosts;
        std::vector<model::StageBreakdown> terms; // the cost terms behind each stage's cost
        double total = 0;
        if (model && stages > 0) {
            std::vector<float> packed;
            for (const auto &f : features)
                for (double v : f.values)
                    packed.push_back(static_cast<float>(v));
            // A partial state is costed as the search ranks it: its scheduled stages, which come
            // first in the cost model's order, over their own pipeline features.
            const model::PipelineEmbedding embedding = model->embedPipeline(sdag.pipelineFeatures(), stages);
            float prediction = 0;
            stageCosts.resize(static_cast<size_t>(stages));
            model->evaluate(embedding, packed, 1, params.parallelism, std::span<float>(&prediction, 1), stageCosts);
            total = prediction;
            terms = model->breakdown(embedding, packed, params.parallelism);
        } else if (model) {
            weightsNote = "the dump decides no stage: nothing to cost";
        }
        auto stageName = [&](int slot) { return dag.stage(sdag.costStages()[static_cast<size_t>(slot)]).name; };
        // Funcs the dump does not decide (a partial schedule, or Funcs of another pipeline version).
        std::vector<std::string> undecided;
        for (int node : sdag.scheduleOrder())
            if (!state.scheduleOf(node))
                undecided.push_back(sdag.node(node).name);

        if (options.json) {
            Json j = Json::object();
            j["pipeline"] = instance.name;
            j["profile"] = facts->name;
            j["complete"] = state.complete();
            j["legality"] = legality;
            j["loop_nest"] = state.dump();
            j["halide_loop_nest"] = state.halideLoopNest();
            Json notes = Json::array();
            for (const std::string &n : parsed.notes)
                notes.push(Json(n));
            j["notes"] = notes;
            Json open = Json::array();
            for (const std::string &name : undecided)
                open.push(Json(name));
            j["undecided"] = open;
            Json st = Json::array();
            for (int s = 0; s < stages; s++) {
                Json o = Json::object();
                o["stage"] = stageName(s);
                Json f = Json::object();
                for (int i = 0; i < search::kScheduleFeatureCount; i++)
                    f[search::featureName(i)] = features[static_cast<size_t>(s)].values[static_cast<size_t>(i)];
                o["features"] = f;
                if (!stageCosts.empty()) {
                    o["cost"] = static_cast<double>(stageCosts[static_cast<size_t>(s)]);
                    Json t = Json::object();
                    for (int k = 0; k < model::kCostTermCount; k++)
                        t[model::costTermName(static_cast<model::CostTerm>(k))] = static_cast<double>(
                            terms[static_cast<size_t>(s)].terms[static_cast<size_t>(k)] * model::kCostUnit);
                    o["cost_terms"] = t;
                }
                st.push(o);
            }
            j["stages"] = st;
            if (!stageCosts.empty())
                j["predicted_cost"] = total;
            j["weights"] = weightsNote;
            std::cout << j.dump(2) << "\n";
            return kSuccess;
        }
        std::cout << "pipeline: " << instance.name << " (profile " << facts->name << ", num_cores "
                  << params.parallelism << ")\n"
                  << (state.complete() ? "complete state" : "partial state") << ", "
                  << (legality.empty() ? "legal" : "NOT legal: " + legality) << "\n";
        for (const std::string &n : parsed.notes)
            std::cout << "note: " << n << "\n";
        if (!undecided.empty()) {
            std::cout << "undecided (" << undecided.size() << " of " << sdag.scheduleOrder().size() << " Funcs):";
            for (const std::string &name : undecided)
                std::cout << " " << name;
            std::cout << "\n";
        }
        std::cout << "\nloop nest:\n"
                  << state.dump() << "\nin the form of Halide's LoopNest::dump:\n"
                  << state.halideLoopNest() << "\n";
        for (int s = 0; s < stages; s++) {
            std::cout << "stage " << s << " " << stageName(s);
            if (!stageCosts.empty())
                std::cout << "  cost " << std::setprecision(9) << stageCosts[static_cast<size_t>(s)];
            std::cout << "\n";
            for (int i = 0; i < search::kScheduleFeatureCount; i++)
                std::cout << "  " << std::left << std::setw(48) << search::featureName(i) << std::right
                          << std::setprecision(9) << features[static_cast<size_t>(s)].values[static_cast<size_t>(i)]
                          << "\n";
            if (!terms.empty()) {
                // The terms the stage's cost sums, largest first (zero ones left out).
                std::vector<std::pair<float, int>> order;
                for (int k = 0; k < model::kCostTermCount; k++)
                    if (const float v = terms[static_cast<size_t>(s)].terms[static_cast<size_t>(k)]; v != 0)
                        order.emplace_back(v * model::kCostUnit, k);
                std::sort(order.begin(), order.end(), std::greater<>());
                std::cout << "  cost terms:\n";
                for (const auto &[v, k] : order)
                    std::cout << "    " << std::left << std::setw(46)
                              << model::costTermName(static_cast<model::CostTerm>(k)) << std::right
                              << std::setprecision(9) << v << "\n";
            }
        }
        if (!stageCosts.empty())
            std::cout << "\npredicted cost"
                      << (state.complete() ? "" : " of the decided stages, as the search ranks it") << ": "
                      << std::setprecision(9) << total << " (weights " << weightsNote << ")\n";
        else
            std::cout << "\n" << weightsNote << "\n";
        return kSuccess;
    } catch (const pipelines::GeneratorError &e) {
        return fail(e.what());
    } catch (const dag::DagError &e) {
        return fail(e.what());
    } catch (const Halide::Error &e) {
        return fail(std::string("Halide: ") + e.what());
    } catch (const std::invalid_argument &e) {
        return fail(e.what());
    }
}

CommandRun defineState(CLI::App &app)
{
    auto o = std::make_shared<StateOptions>();
    addPipelineOptions(app, o->pipeline);
    addText(app, "--loop-nest", o->loopNest, "Halide's loop-nest dump, or a whole HL_DEBUG_AUTOSCHEDULE log")
        ->required();
    addWeightsOptions(app, o->weights);
    addText(app, "--profile", o->profile, "the GPU profile the features are computed for");
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runState(*o); };
}

const CommandRegistration registration(
    {"", "state", kSynopsis,
     "read Halide's loop-nest dump as a state: loop nest, 73 features, cost and cost terms per stage", defineState});

} // namespace

} // namespace beamscope::cli
