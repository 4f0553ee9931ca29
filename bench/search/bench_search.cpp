// Search speed: wall time of Beamscope's beam search per built-in pipeline at beam 1 and beam 32
// (V100 limits, baseline weights), states evaluated per second, and beside the golden pipelines
// Halide v19's own search on its machine (apply_autoscheduler median, schedules evaluated and
// predicted cost from tests/fixtures/halide/pipelines/summary.json). `seconds` is the search
// alone; `total_s` the whole autoschedule call (the FunctionDAG, the pipeline's features, the
// search and the winner's features), which is what Halide's apply_autoscheduler time covers, so
// the ratio is taken on it. Halide counts one state more than its search costs (the winner,
// costed again after the search).
//
// usage: bench_search [--weights FILE|NAME] [--golden DIR] [--repeats N] [--threads N] [--only NAME]...
//   weights default: $BEAMSCOPE_WEIGHTS_PATH, else the shipped baseline.weights;
//   golden default: the source tree's tests/fixtures/halide

#include "core/pipelines/pipeline.h"
#include "core/search/autoschedule.h"
#include "core/util/json.h"
#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

using namespace beamscope;

int main(int argc, char **argv)
{
    std::string weightsPath, goldenDir = BEAMSCOPE_GOLDEN_DIR, only;
    std::vector<std::string> names;
    int repeats = 3, threads = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--weights")
            weightsPath = v;
        else if (k == "--golden")
            goldenDir = v;
        else if (k == "--repeats")
            repeats = std::max(1, std::atoi(v.c_str()));
        else if (k == "--threads")
            threads = std::max(0, std::atoi(v.c_str()));
        else if (k == "--only")
            names.push_back(v);
    }
    std::string why;
    weightsPath = weights::resolveWeightsArgument(weightsPath.empty() ? std::nullopt : std::optional(weightsPath),
                                                  std::nullopt, why)
                      .string();
    if (weightsPath.empty()) {
        std::fprintf(stderr, "bench_search: %s\n", why.c_str());
        return 1;
    }
    auto loaded = weights::loadWeights(weightsPath);
    if (!loaded.ok()) {
        std::fprintf(stderr, "bench_search: %s: cannot load weights (give --weights FILE)\n", weightsPath.c_str());
        return 1;
    }
    const model::CostModel model(*loaded.weights);

    // Halide's figures, keyed by "pipeline/beam".
    std::map<std::string, Json> golden;
    {
        std::ifstream in(goldenDir + "/pipelines/summary.json");
        std::stringstream ss;
        ss << in.rdbuf();
        if (auto j = parseJson(ss.str()); j.value)
            for (const Json &r : j.value->items())
                golden[r.find("pipeline")->toString() + "/" + std::to_string(r.find("beam_size")->toInt())] = r;
    }

    // ratio: Beamscope's median total time over Halide's. per_state: the same per state costed
    // (with Halide's steps both searches walk the same tree, so the two agree).
    std::printf("%-26s %5s %10s %10s %10s %12s %10s | %10s %10s %10s %8s %9s\n", "pipeline", "beam", "seconds",
                "total_s", "states", "states/s", "cost", "halide_s", "h_states", "h_cost", "ratio", "per_state");
    for (const pipelines::PipelineInfo &info : pipelines::builtinPipelines()) {
        if (!names.empty() && std::find(names.begin(), names.end(), info.name) == names.end())
            continue;
        for (int beam : {1, 32}) {
            search::AutoscheduleParams params;
            params.beamSize = beam;
            params.threads = threads;
            std::vector<double> seconds, totals;
            search::AutoscheduleOutcome last;
            for (int r = 0; r < repeats; r++) {
                pipelines::PipelineInstance instance = info.build();
                const auto start = std::chrono::steady_clock::now();
                last = search::autoschedule(info.name, instance.outputs, model, params, nullptr, nullptr);
                totals.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
                seconds.push_back(last.result.searchSeconds);
            }
            std::sort(seconds.begin(), seconds.end());
            std::sort(totals.begin(), totals.end());
            const double median = seconds[seconds.size() / 2], total = totals[totals.size() / 2];
            const auto &res = last.result;
            std::printf("%-26s %5d %10.4f %10.4f %10lld %12.0f %10.4f", info.name.c_str(), beam, median, total,
                        static_cast<long long>(res.statesEvaluated), double(res.statesEvaluated) / median, res.cost);
            auto g = golden.find(info.name + "/" + std::to_string(beam));
            if (g != golden.end()) {
                const double hs = g->second.find("apply_autoscheduler_seconds_median")->toNumber();
                const int64_t halideStates = g->second.find("num_schedules_evaluated_by_cost_model")->toInt();
                const double perState = (total / double(std::max<int64_t>(1, res.statesEvaluated))) /
                                        (hs / double(std::max<int64_t>(1, halideStates)));
                std::printf(" | %10.4f %10lld %10.4f %8.2f %9.2f\n", hs, static_cast<long long>(halideStates),
                            g->second.find("predicted_cost_recomputed")->toNumber(), total / hs, perState);
            } else {
                std::printf(" |\n");
            }
            std::fflush(stdout);
        }
    }
    return 0;
}
