// Every built-in pipeline, searched at beam 1 and at a small beam: the chosen
// state's schedule (core/schedule) must compile for CUDA (PTX, no GPU needed)
// and, on OpenCL (PoCL here), produce the same output as the host reference
// through the bench worker (core/schedule/app_check.h). A failing row names
// the pipeline, the beam and what failed, with the emitted source.
//
// The comparison is strict_float on both sides and therefore exact, but for
// pipelines calling the device math library (core/bench/float_check.h, which
// explains the one-unit hist / local_laplacian differences of fast-math builds).
//
// The weights are the seeded synthetic ones of tests/search (not Halide's):
// they make the search pick varied tilings and locations, which is what this
// test needs to exercise, and exercise more than one model. Halide's
// baseline weights at beam 32 are test_schedule_apps_beam32's.

#include "core/dag/function_dag.h"
#include "core/pipelines/builtin_lists.h"
#include "core/schedule/app_check.h"
#include "tests/schedule/app_check_support.h"
#include "tests/search/search_test_support.h"
#include "tests/support/test_data.h"

#include <QTemporaryDir>

#include <algorithm>
#include <QtTest>

using namespace beamscope;

namespace {

constexpr int kSmallBeam = 3;
constexpr double kScale = 0.125; // outputs at an eighth of their estimates: quick on PoCL

// Pipelines of the shapes Halide's camera_pipe showed the featurizer was not ready for: a
// zero-dimensional Func (sharpen_strength_x32() = ...), several outputs, and Funcs of zero,
// one and two dimensions mixed (a zero-dimensional output among them).
pipelines::PipelineInfo ownPipeline(const std::string &name)
{
    pipelines::PipelineInfo info;
    info.name = name;
    info.origin = pipelines::Origin::Generator;
    info.build = [name]() {
        Halide::ImageParam input(Halide::Float(32), 2, "input");
        Halide::Param<float> k("k");
        Halide::Var x("x"), y("y");
        k.set_estimate(1.5f);
        input.set_estimates({{0, 512}, {0, 512}});
        std::vector<Halide::Func> outputs;
        if (name == "scalar_scale") {
            Halide::Func scale("scale"), output("output");
            scale() = k * 2.0f + input(0, 0);
            output(x, y) = input(x, y) * scale();
            output.set_estimates({{0, 512}, {0, 512}});
            outputs = {output};
        } else if (name == "two_outputs") {
            Halide::Func blur("blur"), sharp("sharp"), soft("soft");
            blur(x, y) = (input(x, y) + input(x + 1, y) + input(x, y + 1)) / 3.0f;
            sharp(x, y) = input(x, y) * 2.0f - blur(x, y);
            soft(x, y) = blur(x, y) * k;
            sharp.set_estimates({{0, 500}, {0, 500}});
            soft.set_estimates({{0, 500}, {0, 500}});
            outputs = {sharp, soft};
        } else {
            Halide::RDom r(0, 64, "r");
            Halide::Func gain("gain"), rowSum("row_sum"), image("image"), profile("profile"), total("total");
            gain() = k * 2.0f;
            rowSum(y) = (input(0, y) + input(1, y)) * gain();
            image(x, y) = input(x, y) * gain() + rowSum(y);
            profile(y) = rowSum(y) - gain();
            total() = Halide::sum(rowSum(r));
            image.set_estimates({{0, 512}, {0, 512}});
            profile.set_estimates({{0, 512}});
            outputs = {image, profile, total};
        }
        return pipelines::makeInstance(name, outputs, {input, k}, nullptr);
    };
    return info;
}

} // namespace

class TestScheduleApps : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_cache;
    std::unique_ptr<model::CostModel> m_model;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        m_model = std::make_unique<model::CostModel>(test::syntheticWeights(7));
    }

    void scheduleCompilesAndRuns_data()
    {
        QTest::addColumn<QString>("pipeline");
        QTest::addColumn<int>("beam");
        const QString only = qEnvironmentVariable("BEAMSCOPE_SCHEDULE_APPS"); // comma list to narrow a rerun
        // The README's test command runs the golden pipelines and a sample of Halide's apps that
        // covers what the emitter has to get right (camera_pipe: Funcs nested in a block-level
        // Func's thread and serial loops, 35 stages; bilateral_grid and hist: reductions and
        // scatters in update stages; iir_blur: scans); the label "full" runs every app.
        const QStringList sample = {"box_blur",    "stencil_chain_u16", "matmul",         "histogram", "conv_relu",
                                    "select_cast", "camera_pipe",       "bilateral_grid", "hist",      "iir_blur"};
        for (const pipelines::PipelineInfo &info : pipelines::builtinPipelines()) {
            const QString name = QString::fromStdString(info.name);
            if (!only.isEmpty() ? !only.split(',').contains(name) : !test::allAppRows() && !sample.contains(name))
                continue;
            // Halide's four largest apps (bgu, interpolate, lens_blur, local_laplacian: 51 to 119
            // stages) at beam 1 only: a beam-3 run of each takes minutes of PoCL compilation for
            // the same kinds of schedules, and test_real_apps compiles their searched and Halide's
            // chosen schedules for CUDA.
            const bool large = dag::FunctionDAG(info.build().outputs).costModelStages().size() > 40;
            for (int beam : {1, kSmallBeam})
                if (beam == 1 || !large)
                    QTest::newRow((info.name + "/beam" + std::to_string(beam)).c_str())
                        << QString::fromStdString(info.name) << beam;
        }
    }

    void ownPipelinesCompileAndRun_data()
    {
        QTest::addColumn<QString>("pipeline");
        QTest::addColumn<int>("beam");
        for (const char *name : {"scalar_scale", "two_outputs", "mixed_dimensionality"})
            for (int beam : {1, kSmallBeam})
                QTest::newRow((std::string(name) + "/beam" + std::to_string(beam)).c_str()) << QString(name) << beam;
    }

    void ownPipelinesCompileAndRun() { scheduleCompilesAndRuns(); }

    void scheduleCompilesAndRuns()
    {
        QFETCH(QString, pipeline);
        QFETCH(int, beam);
        auto info = pipelines::findPipeline(pipeline.toStdString());
        if (!info)
            info = ownPipeline(pipeline.toStdString());

        schedule::AppCheckOptions options;
        options.params.beamSize = beam;
        options.params.numPasses = beam == 1 ? 1 : 2;
        options.params.randomDropoutSeed = 1;
        // An evenly spread 16 of Halide's compute_root tilings per Func (it makes hundreds, and
        // local_laplacian's 40-odd root Funcs would take minutes at beam 3): what this test
        // exercises is the emitted schedules, of every location and many tilings.
        options.params.maxRootTilings = 16;
        // Beamscope's per-Func steps, whose many block- and thread-level winners this test has
        // always run. Halide's steps are run end to end by test_plugin, check-apps and
        // test_halide_search; under these random weights their conv_layer beam-1 winner (conv in
        // shared memory, its update stage threaded over c) takes PoCL's kernel compiler over five
        // minutes on a cold cache, which says nothing about the schedule.
        options.params.halideSteps = false;
        options.compile.cacheDir = m_cache.path().toStdString();
        options.compile.jobs = 2;
        options.run.reps = 1;
        options.run.warmup = 0;
        options.run.scale = kScale;
        options.run.timeoutSeconds = 300;
        const std::vector<schedule::AppCheck> rows = schedule::checkApps({*info}, *m_model, options);
        QCOMPARE(rows.size(), size_t(1));
        const schedule::AppCheck &row = rows.front();
        QVERIFY2(row.searched(), row.error.c_str());
        QVERIFY(row.source.find("compute_root()") != std::string::npos);
        // Halide's bgu inverts with fast_inverse, an approximate reciprocal that the host and
        // PoCL compute differently; its 4x4 solves on these synthetic inputs magnify that to
        // whole units. The schedule is right (with 1/x the run matches exactly): its output is
        // not compared, but it must compile for CUDA and run to the end on OpenCL.
        if (row.outputNotComparable()) {
            qInfo("%s beam %d: output not compared (fast_inverse): %s", row.app.c_str(), beam,
                  row.opencl.message.c_str());
            return;
        }
        const std::string failure = test::appCheckFailure(row, beam);
        if (!failure.empty()) // QTest shortens long messages: the whole text goes to the log
            qWarning("%s", failure.c_str());
        QVERIFY2(failure.empty(), failure.c_str());
        QVERIFY(row.opencl.checked && row.opencl.strictFloat);
        // Exact unless the pipeline calls the math library (float_check.h).
        QVERIFY2(row.opencl.matches || !row.mathCalls.empty(), row.opencl.tolerance.c_str());
        if (!row.opencl.tolerance.empty())
            qInfo("%s beam %d: %s", row.app.c_str(), beam, row.opencl.tolerance.c_str());
    }
};

QTEST_GUILESS_MAIN(TestScheduleApps)
#include "test_schedule_apps.moc"
