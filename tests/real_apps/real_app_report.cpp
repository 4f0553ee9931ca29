// real-app-report APP [FIXTURES] [WEIGHTS_DIR]: one built-in app held against
// Halide's outputs for it (tests/fixtures/halide/real_apps/APP): the pipeline
// features of each featurization, then every loop nest Halide chose, costed
// with the same weights beside Halide's Best cost, with the schedule features
// that differ. What test_real_apps asserts, printed for a developer at work.
//
// real-app-report --beam32 APP [FIXTURES] [WEIGHTS_DIR]: Beamscope's beam-32 search (5 passes, as
// Halide's default) under each weights file Halide chose a beam-32 nest with, beside Halide's Best
// cost of that nest, with the states and seconds it took; where the winners differ, the first Func
// in decision order that the two place otherwise (where the two searches' final paths part).
//
// Built with -DREAL_APP_FUNCTION=<function> it calls that app function
// directly instead of the registry, so an app file can be checked against
// already-built libraries (tests/real_apps/check-one-app.sh).

#include "core/gpu/device_facts.h"
#include "core/model/cost_model_file.h"
#include "core/pipelines/pipeline.h"
#include "core/search/autoschedule.h"
#include "core/search/device_limits.h"
#include "core/search/loop_nest_diff.h"
#include "core/search/loop_nest_text.h"
#include "tests/real_apps/real_app_check.h"
#include "tests/support/test_data.h"

#include <cmath>
#include <iostream>

#ifdef REAL_APP_FUNCTION
namespace beamscope::pipelines::apps {
PipelineInstance REAL_APP_FUNCTION();
}
#endif

using namespace beamscope;
using namespace beamscope::test::real_apps;

namespace {

void printCells(const std::vector<CellDifference> &cells, size_t limit)
{
    for (size_t i = 0; i < cells.size() && i < limit; i++) {
        const CellDifference &d = cells[i];
        std::cout << "    stage " << d.stage << " " << d.stageName << "  " << d.cell << ": halide " << d.halide
                  << ", beamscope " << d.ours << "\n";
    }
    if (cells.size() > limit)
        std::cout << "    ... " << cells.size() - limit << " more\n";
}

} // namespace

#ifndef REAL_APP_FUNCTION
int beam32Report(const std::string &app, const std::filesystem::path &fixtures, const std::filesystem::path &weightsDir)
{
    const std::optional<pipelines::PipelineInfo> info = pipelines::findPipeline(app);
    if (!info) {
        std::cerr << "real-app-report: no built-in pipeline '" << app << "'\n";
        return 2;
    }
    std::cout << "app\tweights\tbeamscope_cost\thalide_cost\trelative\tbeamscope_states_evaluated\tseconds\t"
                 "halide_nest_costed_by_beamscope\tfirst_func_placed_otherwise\n";
    for (const std::string &weights : {app, std::string("baseline")}) {
        const std::filesystem::path nest = fixtures / app / ("halide_" + weights + ".loop_nest.txt");
        const std::optional<double> halide = halideBestCost(fixtures, app, weights, false);
        if (!std::filesystem::exists(nest) || !halide)
            continue;
        std::string why;
        const std::unique_ptr<model::CostModel> model = model::loadCostModel(weightsDir / (weights + ".weights"), why);
        if (!model) {
            std::cerr << "real-app-report: " << why << "\n";
            return 1;
        }
        const pipelines::PipelineInstance instance = info->build();
        search::AutoscheduleParams params;
        params.beamSize = 32;
        params.device = search::featureParamsFor(*gpu::findProfile("v100"));
        const search::AutoscheduleOutcome outcome =
            search::autoschedule(app, instance.outputs, *model, params, nullptr, nullptr);
        const LoopNestReport halideNest =
            costLoopNest(*outcome.searchDag, nest, weightsDir / (weights + ".weights"), {});
        const search::FuncPlacementDifference d =
            search::firstDifferingFunc(*outcome.searchDag, search::parseLoopNestText(test::readFile(nest)),
                                       outcome.result.best->halideLoopNestTree());
        std::cout << app << "\t" << weights << "\t" << outcome.result.cost << "\t" << *halide << "\t"
                  << (outcome.result.cost - *halide) / *halide << "\t" << outcome.result.statesEvaluated << "\t"
                  << outcome.result.searchSeconds << "\t"
                  << (halideNest.error.empty() ? std::to_string(halideNest.ourCost) : halideNest.error) << "\t"
                  << (d.func.empty() ? std::string("- (Halide's winner)")
                                     : d.func + ": Halide " + d.first + "; Beamscope " + d.second)
                  << "\n";
    }
    return 0;
}
#endif

int main(int argc, char **argv)
{
#ifndef REAL_APP_FUNCTION
    if (argc >= 3 && std::string(argv[1]) == "--beam32")
        return beam32Report(argv[2], argc > 3 ? argv[3] : "tests/fixtures/halide/real_apps",
                            argc > 4 ? argv[4] : "weights/anderson2021");
#endif
    if (argc < 2) {
        std::cerr << "usage: real-app-report APP [FIXTURES_DIR] [WEIGHTS_DIR]\n"
                     "       real-app-report --beam32 APP [FIXTURES_DIR] [WEIGHTS_DIR]\n";
        return 2;
    }
    const std::string app = argv[1];
    const std::filesystem::path fixtures = argc > 2 ? argv[2] : "tests/fixtures/halide/real_apps";
    const std::filesystem::path weightsDir = argc > 3 ? argv[3] : "weights/anderson2021";
    const std::filesystem::path dir = fixtures / app;
    int problems = 0;
    try {
#ifdef REAL_APP_FUNCTION
        const pipelines::PipelineInstance instance = pipelines::apps::REAL_APP_FUNCTION();
#else
        const std::optional<pipelines::PipelineInfo> info = pipelines::findPipeline(app);
        if (!info) {
            std::cerr << "real-app-report: no built-in pipeline '" << app << "'\n";
            return 2;
        }
        const pipelines::PipelineInstance instance = info->build();
#endif
        const dag::FunctionDAG dag(instance.outputs);
        const search::SearchDag sdag(dag);
        const std::vector<std::string> names = stageNames(sdag);
        std::cout << app << ": " << names.size() << " stages:";
        for (const std::string &n : names)
            std::cout << " " << n;
        std::cout << "\n";

        std::vector<std::filesystem::path> files;
        for (const auto &entry : std::filesystem::directory_iterator(dir))
            files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const std::filesystem::path &f : files) {
            if (f.extension() != ".featurization")
                continue;
            const Layout layout =
                f.filename().string().starts_with("halide14_adams2019") ? Layout::Adams2019 : Layout::Anderson2021;
            const PipelineFeatureReport r = comparePipelineFeatures(sdag, f, layout);
            std::cout << "pipeline features vs " << f.filename().string() << ": ";
            if (!r.error.empty())
                std::cout << r.error << "\n";
            else
                std::cout << r.differences.size() << " cells differ\n";
            printCells(r.differences, 60);
            problems += !r.ok();
        }
        for (const std::filesystem::path &f : files) {
            const std::string name = f.filename().string();
            if (!name.ends_with(".loop_nest.txt"))
                continue;
            const bool beam1 = name.ends_with(".b1.loop_nest.txt");
            std::string weights = name.substr(7, name.size() - 7 - (beam1 ? 17 : 14)); // halide_<w>[.b1].loop_nest.txt
            const std::filesystem::path featurization = dir / (name.substr(0, name.size() - 14) + ".featurization");
            const LoopNestReport r =
                costLoopNest(sdag, f, weightsDir / (weights + ".weights"),
                             std::filesystem::exists(featurization) ? std::optional(featurization) : std::nullopt);
            const std::optional<double> halide = halideBestCost(fixtures, app, weights, beam1);
            std::cout << name << ": ";
            if (!r.error.empty()) {
                std::cout << r.error << "\n";
                problems++;
                continue;
            }
            const double rel = halide ? std::abs(r.ourCost - *halide) / *halide : 0;
            std::cout << "beamscope " << r.ourCost << ", halide " << (halide ? std::to_string(*halide) : "-")
                      << (halide ? "  rel " + std::to_string(rel) : "")
                      << (r.legality.empty() ? "" : "  NOT legal: " + r.legality) << "\n";
            for (const std::string &n : r.notes)
                std::cout << "    note: " << n << "\n";
            if (!r.featureError.empty())
                std::cout << "    features: " << r.featureError << "\n";
            else if (std::filesystem::exists(featurization))
                std::cout << "    schedule features: " << r.scheduleDifferences.size() << " cells differ\n";
            printCells(r.scheduleDifferences, 40);
            problems += (halide && rel > 1e-5) || !r.scheduleDifferences.empty() || !r.featureError.empty();
        }
    } catch (const std::exception &e) {
        std::cerr << "real-app-report: " << e.what() << "\n";
        return 1;
    }
    std::cout << app << ": " << problems << " problems\n";
    return problems ? 1 : 0;
}
