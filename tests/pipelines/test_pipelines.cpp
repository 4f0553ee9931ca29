// The pipeline registry: every app and golden pipeline builds with estimates,
// featurizes, compiles for the host and computes on a small input what its
// unscheduled reference computes; its GPU schedule lowers for a CUDA target;
// random pipelines are valid and deterministic.

#include "core/dag/function_dag.h"
#include "core/pipelines/pipeline.h"
#include "core/pipelines/host_target.h"
#include "core/pipelines/random_pipeline.h"
#include "tests/pipelines/small_run.h"
#include "core/util/halide_names.h"

#include <QtTest>

#include <set>

using namespace beamscope;
using namespace Halide;

namespace {

// Halide numbers names that repeat in one process ("output$2") and names
// anonymous Funcs from a global counter (BoundaryConditions' "lambda_57"):
// both differ between two builds of the same pipeline, so compare without them.
QString baseName(const std::string &name)
{
    QString base = QString::fromStdString(baseFuncName(name));
    if (base.startsWith("lambda_"))
        base = "lambda";
    return base;
}

// Stage names (without Halide's "$n" renaming) and features, in cost-model order.
QStringList describe(const dag::FunctionDAG &dag)
{
    QStringList out;
    for (const auto &ref : dag.costModelStages()) {
        const dag::Stage &s = dag.stage(ref);
        QString line = baseName(s.node->name) + "_s" + QString::number(s.index) + ":";
        for (const auto &row : s.features.matrix)
            for (int v : row)
                line += " " + QString::number(v);
        out << line;
    }
    return out;
}

void checkFeaturizes(const pipelines::PipelineInstance &p)
{
    const dag::FunctionDAG dag(p.outputs);
    const auto stages = dag.costModelStages();
    QVERIFY(!stages.empty());
    for (const auto &ref : stages) {
        const dag::Stage &s = dag.stage(ref);
        int total = 0;
        for (const auto &row : s.features.matrix)
            for (int v : row)
                total += v;
        // Every stage stores at least once, so it cannot be all zero.
        QVERIFY2(total > 0, s.name.c_str());
        QCOMPARE(s.features.matrix[1], (std::array<int, 7>{})); // Cast row: never counted
    }
    for (int id : dag.outputNodes)
        QCOMPARE(dag.nodes[static_cast<size_t>(id)].estimatedRegion.size(),
                 size_t(dag.nodes[static_cast<size_t>(id)].func.dimensions()));
}

} // namespace

class TestPipelines : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void registryListsAppsThenGolden()
    {
        const auto &all = pipelines::builtinPipelines();
        std::set<std::string> apps, golden;
        for (const auto &info : all) {
            (info.origin == pipelines::Origin::App ? apps : golden).insert(info.name);
            QVERIFY(!info.description.empty());
        }
        const std::set<std::string> expectedApps{
            "bgu",        "bilateral_grid", "camera_pipe",   "conv_layer",  "cuda_mat_mul", "depthwise_separable_conv",
            "harris",     "hist",           "iir_blur",      "interpolate", "lens_blur",    "local_laplacian",
            "max_filter", "nl_means",       "stencil_chain", "unsharp"};
        QVERIFY(apps == expectedApps);
        QCOMPARE(golden.size(), size_t(6));
        QVERIFY(pipelines::findPipeline("box_blur"));
        QVERIFY(!pipelines::findPipeline("no_such_pipeline"));
        QCOMPARE(QString(pipelines::originName(pipelines::Origin::Random)), QString("random"));
        auto random = pipelines::findPipeline("random_7_5");
        QVERIFY(random);
        QCOMPARE(random->origin, pipelines::Origin::Random);
        QVERIFY(!pipelines::findPipeline("random_7_x"));
    }

    void builtin_data()
    {
        QTest::addColumn<QString>("name");
        for (const auto &info : pipelines::builtinPipelines())
            QTest::newRow(info.name.c_str()) << QString::fromStdString(info.name);
    }

    // Host run with every Func at root vs the near-default reference schedule
    // (rootFuncsReadManyTimes), on a small input. Both run with strict_float, so
    // integer outputs must match exactly; floats get 1e-4 relative for the
    // vector and scalar paths of Halide's exp/pow, which need not agree bit for bit.
    void builtin()
    {
        QFETCH(QString, name);
        const auto info = pipelines::findPipeline(name.toStdString());
        QVERIFY(info);
        {
            const pipelines::PipelineInstance p = info->build();
            QCOMPARE(p.arguments.size(), p.parameters.size());
            checkFeaturizes(p);
            if (QTest::currentTestFailed())
                return;
        }
        const int maxExtent = 20;
        pipelines::PipelineInstance reference = info->build();
        const std::vector<int> extents = test::prepareSmallRun(reference, maxExtent);
        test::rootFuncsReadManyTimes(reference);
        const Buffer<> expected = test::realizeOnHost(reference, extents);

        pipelines::PipelineInstance scheduled = info->build();
        QCOMPARE(test::prepareSmallRun(scheduled, maxExtent), extents);
        test::computeEverythingAtRoot(scheduled);
        const Buffer<> actual = test::realizeOnHost(scheduled, extents);
        const std::string diff = test::compareBuffers(actual, expected, 1e-4);
        QVERIFY2(diff.empty(), diff.c_str());
    }

    // The hand-written GPU schedule lowers and generates code for a CUDA target
    // (no GPU needed to compile).
    void gpuScheduleCompiles_data() { builtin_data(); }
    void gpuScheduleCompiles()
    {
        QFETCH(QString, name);
        const auto info = pipelines::findPipeline(name.toStdString());
        QVERIFY(info);
        pipelines::PipelineInstance p = info->build();
        QVERIFY(p.applyGpuSchedule);
        const Target target = pipelines::hostTarget().with_feature(Target::CUDA).with_feature(Target::CUDACapability70);
        p.applyGpuSchedule(target);
        const Module m = p.pipeline().compile_to_module(p.arguments, p.name + "_gpu", target);
        QVERIFY(!m.functions().empty());
    }

    void randomPipelinesAreDeterministic_data()
    {
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("stages");
        for (int seed : {1, 2, 3, 42, 1234})
            for (int stages : {3, 8})
                QTest::newRow((std::to_string(seed) + "_" + std::to_string(stages)).c_str()) << seed << stages;
    }

    void randomPipelinesAreDeterministic()
    {
        QFETCH(int, seed);
        QFETCH(int, stages);
        const auto a = pipelines::randomPipeline(static_cast<uint64_t>(seed), stages);
        const auto b = pipelines::randomPipeline(static_cast<uint64_t>(seed), stages);
        QCOMPARE(QString::fromStdString(a.name), QString("random_%1_%2").arg(seed).arg(stages));
        const dag::FunctionDAG dagA(a.outputs), dagB(b.outputs);
        QCOMPARE(describe(dagA), describe(dagB));
        checkFeaturizes(a);
        if (QTest::currentTestFailed())
            return;

        pipelines::PipelineInstance reference = pipelines::randomPipeline(static_cast<uint64_t>(seed), stages);
        const auto extents = test::prepareSmallRun(reference, 16);
        test::rootFuncsReadManyTimes(reference);
        const Buffer<> expected = test::realizeOnHost(reference, extents);
        pipelines::PipelineInstance scheduled = pipelines::randomPipeline(static_cast<uint64_t>(seed), stages);
        test::prepareSmallRun(scheduled, 16);
        test::computeEverythingAtRoot(scheduled);
        const std::string diff = test::compareBuffers(test::realizeOnHost(scheduled, extents), expected, 1e-4);
        QVERIFY2(diff.empty(), diff.c_str());
    }

    void randomSeedsDiffer()
    {
        std::set<QStringList> seen;
        for (int seed = 1; seed <= 6; seed++)
            seen.insert(describe(dag::FunctionDAG(pipelines::randomPipeline(static_cast<uint64_t>(seed), 6).outputs)));
        QVERIFY(seen.size() >= 5);
    }

    void randomGpuScheduleCompiles()
    {
        pipelines::PipelineInstance p = pipelines::randomPipeline(99, 10);
        const Target target = pipelines::hostTarget().with_feature(Target::CUDA).with_feature(Target::CUDACapability70);
        p.applyGpuSchedule(target);
        QVERIFY(!p.pipeline().compile_to_module(p.arguments, "random_gpu", target).functions().empty());
    }
};

QTEST_GUILESS_MAIN(TestPipelines)
#include "test_pipelines.moc"
