#include "tests/search/search_test_support.h"
#include "tests/support/test_data.h"

#include "core/pipelines/pipeline.h"
#include "core/util/halide_names.h"
#include "core/weights/weights.h"

#include <cstdlib>
#include <random>
#include <stdexcept>

namespace beamscope::test {

weights::Weights syntheticWeights(uint32_t seed)
{
    weights::Weights w = weights::zeroWeights(weights::Network::Anderson2021);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-0.5f, 0.5f);
    for (weights::Tensor &t : w.tensors)
        for (float &v : t.data)
            v = u(rng);
    return w;
}

int BuiltPipeline::node(const std::string &func) const
{
    // Halide makes repeated Func names unique ("blur_x$1") when a test builds a pipeline twice.
    for (const dag::Node &n : dag->nodes)
        if (n.name == func || baseFuncName(n.name) == func)
            return n.id;
    return -1;
}

BuiltPipeline fromOutputs(std::string name, std::vector<Halide::Func> outputs)
{
    BuiltPipeline p;
    p.name = std::move(name);
    p.outputs = std::move(outputs);
    p.dag = std::make_unique<dag::FunctionDAG>(p.outputs);
    p.searchDag = std::make_unique<search::SearchDag>(*p.dag);
    return p;
}

BuiltPipeline goldenBoxBlur()
{
    Halide::ImageParam input(Halide::Float(32), 2, "input");
    Halide::Var x("x"), y("y");
    Halide::Func blurX("blur_x"), output("output");
    blurX(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3.0f;
    output(x, y) = (blurX(x, y) + blurX(x, y + 1) + blurX(x, y + 2)) / 3.0f;
    input.set_estimates({{0, 1538}, {0, 2562}});
    output.set_estimates({{0, 1536}, {0, 2560}});
    return fromOutputs("box_blur", {output});
}

const char *const kBoxBlurBlockLevelDump = " gpu_none\n"
                                           "realize: output [1536, 2560] with 1 stages\n"
                                           "realize: blur_x [1536, 2562] with 1 stages\n"
                                           "output 96 640 (0, 0) t gpu_block\n"
                                           " realize: blur_x [16c, 6c] with 1 stages\n"
                                           " blur_x 16c 1c (0, 0) t gpu_thread\n"
                                           "  blur_x 1c 6c (0, 0) t gpu_serial\n"
                                           "   blur_x 1vc 1c (0, 0) * gpu_simd\n"
                                           " output 16c 2c (0, 0) t gpu_thread\n"
                                           "  output 1c 2c (0, 0) t gpu_serial\n"
                                           "   output 1vc 1c (0, 0) * gpu_simd\n";

BuiltPipeline buildRegistered(const std::string &name)
{
    const auto info = pipelines::findPipeline(name);
    if (!info)
        throw std::runtime_error("no built-in pipeline " + name);
    pipelines::PipelineInstance instance = info->build();
    return fromOutputs(name, instance.outputs);
}

search::StageTiling tiling(std::vector<int64_t> threads, std::vector<int64_t> serial, bool unrolled)
{
    search::StageTiling t;
    t.threads = std::move(threads);
    t.serial = std::move(serial);
    t.unrolled = unrolled;
    t.vectorLoop = 0;
    for (size_t j = 0; j < t.threads.size(); j++)
        if (t.threads[j] > 1) {
            t.vectorLoop = static_cast<int>(j);
            break;
        }
    return t;
}

search::State funcInABlockLevelFuncsThreadLoop(const BuiltPipeline &p, bool stage2InItsSerialLoop,
                                               bool stage3InItsSerialLoop, int outputThreadRows)
{
    using search::ComputeLocation;
    search::State s(*p.searchDag);
    auto funcAt = [&](const char *func, ComputeLocation location, const char *consumer, search::StageTiling t) {
        search::FuncSchedule f;
        f.node = p.node(func);
        f.location = location;
        f.consumer = consumer ? p.node(consumer) : -1;
        f.stages = {std::move(t)};
        return f;
    };
    // One point of its consumer's serial loop needs a 3 x 3 region of it.
    auto inSerialLoopOf = [&](const char *func, const char *consumer) {
        search::FuncSchedule f = funcAt(func, ComputeLocation::ThreadLevel, consumer, tiling({1, 1}, {3, 3}, false));
        f.insideSerialLoop = true;
        f.storedAtRoot = true;
        return f;
    };
    s.add(funcAt("output", ComputeLocation::Root, nullptr,
                 tiling({16, outputThreadRows}, {1, 16 / outputThreadRows}, false)));
    s.add(funcAt("stage_4", ComputeLocation::BlockLevel, "output", tiling({18, 6}, {1, 3}, false)));
    if (stage3InItsSerialLoop)
        s.add(inSerialLoopOf("stage_3", "stage_4"));
    else
        s.add(funcAt("stage_3", ComputeLocation::ThreadLevel, "stage_4", tiling({1, 1}, {3, 5}, false)));
    if (stage2InItsSerialLoop)
        s.add(inSerialLoopOf("stage_2", "stage_3"));
    while (!s.complete()) {
        search::FuncSchedule f;
        f.node = s.nextNode();
        f.location = ComputeLocation::Inlined;
        s.add(f);
    }
    return s;
}

std::optional<search::GoldenTree> readTree(const std::string &run)
{
    std::string folder;
    if (const auto p = projectData("tests/fixtures/halide/search_trees/" + run + "/states.tsv"))
        folder = p->parent_path().string();
    else if (const char *trees = std::getenv("BEAMSCOPE_SEARCH_TREES"))
        folder = std::string(trees) + "/" + run;
    else
        return std::nullopt;
    std::string error;
    auto g = search::GoldenTree::read(folder, &error);
    if (!g)
        throw std::runtime_error(error);
    return g;
}

model::CostModel baselineModel()
{
    const auto path = projectData("weights/anderson2021/baseline.weights");
    if (!path)
        throw std::runtime_error("weights/anderson2021/baseline.weights: not found (BEAMSCOPE_SOURCE_DIR)");
    auto loaded = weights::loadWeights(*path);
    if (!loaded.ok())
        throw std::runtime_error(path->string() + ": does not load");
    return model::CostModel(*loaded.weights);
}

} // namespace beamscope::test
