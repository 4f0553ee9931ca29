// libbeamscope_autoschedule.so loaded by a real Halide 14 generator
// (tiny_blur_generator.cpp, run with -p ... -s Beamscope auto_schedule=true):
// it writes the .schedule.h and a library that computes the same output as a
// host reference on OpenCL (PoCL); missing estimates and bad weights end the
// generator with a clear Halide error, not a crash. Also the environment
// variables the plugin reads.

#include "core/bench/benchmark.h"
#include "core/util/child_process.h"
#include "core/bench/targets.h"
#include "core/model/cost_model.h"
#include "core/plugin/plugin_settings.h"
#include "core/samples/sample.h"
#include "core/search/search_trace.h"
#include "core/session/search_session.h"
#include "core/util/halide_names.h"
#include "core/util/sha256.h"
#include "core/util/atomic_file.h"
#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"
#include "tests/search/search_test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>
#include <sstream>

using namespace beamscope;

namespace {

std::string env(const char *name) { return qEnvironmentVariable(name).toStdString(); }

void writeText(const std::filesystem::path &p, const std::string &text)
{
    std::ofstream out(p, std::ios::binary);
    out << text;
}

std::string readText(const std::filesystem::path &p)
{
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The generator's algorithm again, for the host reference.
pipelines::PipelineInstance tinyBlurReference()
{
    Halide::ImageParam input(Halide::Float(32), 2, "input");
    Halide::Var x("x"), y("y");
    Halide::Func blurX("blur_x"), output("output");
    blurX(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3.0f;
    output(x, y) = (blurX(x, y) + blurX(x, y + 1) + blurX(x, y + 2)) / 3.0f;
    output.set_estimates({{0, 256}, {0, 256}});
    pipelines::PipelineInstance p;
    p.name = "tiny_blur_reference";
    p.outputs = {output};
    p.arguments = {input};
    return p;
}

auto fakeEnv(std::map<std::string, std::string> vars)
{
    return [vars](const char *name) -> std::optional<std::string> {
        const auto it = vars.find(name);
        return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
}

} // namespace

class TestPlugin : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::filesystem::path m_weights;

    ChildResult runGenerator(const std::string &outDir, const std::vector<std::string> &extra,
                             const std::string &generator = "tiny_blur",
                             bench::TargetKind target = bench::TargetKind::OpenCL,
                             const std::string &emit = "static_library,c_header,schedule")
    {
        std::vector<std::string> argv = {env("BEAMSCOPE_TINY_GENERATOR"),
                                         "-g",
                                         generator,
                                         "-f",
                                         generator,
                                         "-o",
                                         outDir,
                                         "-e",
                                         emit,
                                         "-p",
                                         env("BEAMSCOPE_PLUGIN"),
                                         "-s",
                                         "Beamscope",
                                         "target=" + bench::benchTarget(target, 0).to_string(),
                                         "auto_schedule=true"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        std::filesystem::create_directories(outDir);
        return runChild(argv, 600);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_dir.setAutoRemove(qEnvironmentVariableIsEmpty("BEAMSCOPE_KEEP_TEST_CACHE"));
        if (env("BEAMSCOPE_TINY_GENERATOR").empty() || env("BEAMSCOPE_PLUGIN").empty())
            QSKIP("run through ctest: BEAMSCOPE_TINY_GENERATOR and BEAMSCOPE_PLUGIN name the built files");
        // Seeded synthetic weights (tests/search), written as a real .weights file.
        m_weights = std::filesystem::path(m_dir.path().toStdString()) / "synthetic.weights";
        const WriteResult w = weights::saveWeightsFile(test::syntheticWeights(3), m_weights, Overwrite::Refuse);
        QVERIFY2(w.ok, w.error.c_str());
        qputenv("HL_WEIGHTS_DIR", QByteArray::fromStdString(m_weights.string()));
        qputenv("HL_BEAM_SIZE", "2");
        qputenv("HL_NUM_PASSES", "1");
        qputenv("HL_SEED", "5");
    }

    void settingsComeFromHalidesVariables()
    {
        const plugin::PluginSettings d =
            plugin::settingsFromEnvironment(16, fakeEnv({{"HL_WEIGHTS_DIR", "w.weights"}}));
        QCOMPARE(d.params.beamSize, 32);
        QCOMPARE(d.params.device.parallelism, 16);
        QCOMPARE(d.params.device.sharedMemoryLimitBytes, int64_t(48 * 1024));
        QCOMPARE(d.weightsPath.string(), std::string("w.weights"));
        const plugin::PluginSettings s =
            plugin::settingsFromEnvironment(80, fakeEnv({{"HL_WEIGHTS_DIR", "dir"},
                                                         {"HL_BEAM_SIZE", "4"},
                                                         {"HL_NUM_PASSES", "2"},
                                                         {"HL_RANDOM_DROPOUT", "50"},
                                                         {"HL_SEED", "9"},
                                                         {"HL_SHARED_MEMORY_LIMIT", "64"},
                                                         {"HL_SHARED_MEMORY_SM_LIMIT", "128"},
                                                         {"HL_ACTIVE_BLOCK_LIMIT", "16"},
                                                         {"HL_ACTIVE_WARP_LIMIT", "48"},
                                                         {"HL_SEARCH_SPACE_OPTIONS", "1011"},
                                                         {"HL_DEBUG_AUTOSCHEDULE", "1"},
                                                         {"HL_PARTIAL_SCHEDULE", "output.loop_nest.txt"}}));
        QCOMPARE(s.params.beamSize, 4);
        QCOMPARE(s.params.passes(), 2);
        QCOMPARE(s.params.randomDropout, 50);
        QCOMPARE(s.params.randomDropoutSeed, uint64_t(9));
        QCOMPARE(s.params.device.sharedMemoryLimitBytes, int64_t(64 * 1024));
        QCOMPARE(s.params.device.sharedMemorySmLimitBytes, int64_t(128 * 1024));
        QCOMPARE(s.params.device.activeBlockLimit, 16);
        QCOMPARE(s.params.device.activeWarpLimit, 48);
        QVERIFY(!s.params.options.inlineFuncs && s.params.options.computeRoot);
        QVERIFY(s.debug);
        QCOMPARE(s.partialSchedulePath.string(), std::string("output.loop_nest.txt"));
        QVERIFY(d.partialSchedulePath.empty());
        try {
            plugin::settingsFromEnvironment(80, fakeEnv({{"HL_WEIGHTS_DIR", "w"}, {"HL_BEAM_SIZE", "many"}}));
            QFAIL("a malformed HL_BEAM_SIZE was accepted");
        } catch (const plugin::SettingsError &e) {
            QVERIFY2(std::string(e.what()).find("HL_BEAM_SIZE") != std::string::npos, e.what());
        }
        // Without HL_WEIGHTS_DIR: the shipped baseline (Halide's default), said in the note.
        const plugin::PluginSettings fallback = plugin::settingsFromEnvironment(80, fakeEnv({}));
        QCOMPARE(fallback.weightsPath.string(), weights::shippedBaselineWeights().value_or("(none shipped)").string());
        QCOMPARE(fallback.weightsPath.filename().string(), std::string("baseline.weights"));
        QVERIFY2(fallback.weightsNote.find("HL_WEIGHTS_DIR is not set") != std::string::npos,
                 fallback.weightsNote.c_str());
        QVERIFY(d.weightsNote.empty());
    }

    // A generator run without HL_WEIGHTS_DIR schedules with the shipped baseline and says so.
    void shippedBaselineWhenNoWeightsAreNamed()
    {
        const QByteArray named = qgetenv("HL_WEIGHTS_DIR");
        qunsetenv("HL_WEIGHTS_DIR");
        const std::filesystem::path out = std::filesystem::path(m_dir.path().toStdString()) / "shipped_weights";
        const ChildResult r = runGenerator(out.string(), {});
        qputenv("HL_WEIGHTS_DIR", named);
        QVERIFY2(r.started && !r.signaled && r.exitCode == 0, (signalName(r.signal) + "\n" + r.err).c_str());
        QVERIFY2(r.err.find("using the shipped") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("anderson2021/baseline.weights") != std::string::npos, r.err.c_str());
        QVERIFY(std::filesystem::exists(out / "tiny_blur.schedule.h"));
    }

    // camera_pipe's crash, reduced: a zero-dimensional Func read by every output point.
    // Halide's Anderson2021 schedules it (inline or compute_root, never inside a kernel);
    // so must the plugin, for OpenCL and for CUDA (PTX), at beam 2 and at Halide's default 32.
    void zeroDimensionalFuncIsScheduled()
    {
        for (const auto &[kind, beam] :
             {std::pair{bench::TargetKind::OpenCL, "2"}, std::pair{bench::TargetKind::Cuda, "32"}}) {
            const QByteArray previousBeam = qgetenv("HL_BEAM_SIZE");
            qputenv("HL_BEAM_SIZE", beam);
            const std::filesystem::path out =
                std::filesystem::path(m_dir.path().toStdString()) / ("scalar_gain_beam" + std::string(beam));
            const ChildResult r = runGenerator(out.string(), {}, "scalar_gain", kind);
            qputenv("HL_BEAM_SIZE", previousBeam);
            QVERIFY2(r.started && !r.signaled && r.exitCode == 0,
                     (signalName(r.signal) + "\n" + r.startError + r.err).c_str());
            const std::string schedule = readText(out / "scalar_gain.schedule.h");
            QVERIFY2(schedule.find(".gpu_blocks(") != std::string::npos, schedule.c_str());
            QVERIFY(std::filesystem::exists(out / "scalar_gain.a"));
        }
    }

    void generatorIsScheduledAndRunsCorrectly()
    {
        const std::filesystem::path out = std::filesystem::path(m_dir.path().toStdString()) / "scheduled";
        const ChildResult r = runGenerator(out.string(), {});
        QVERIFY2(r.started && !r.signaled && r.exitCode == 0, (r.startError + r.err).c_str());
        const std::string schedule = readText(out / "tiny_blur.schedule.h");
        QVERIFY2(schedule.find("generated by Beamscope") != std::string::npos, schedule.c_str());
        QVERIFY2(schedule.find("pipeline.get_func(") != std::string::npos, schedule.c_str());
        QVERIFY2(schedule.find(".gpu_blocks(") != std::string::npos, schedule.c_str());
        QVERIFY(std::filesystem::exists(out / "tiny_blur.a"));

        // The generated static library as a shared object the bench worker can load.
        const std::filesystem::path so = out / "tiny_blur.so";
        const ChildResult link =
            runChild({"cc", "-shared", "-o", so.string(), "-Wl,--whole-archive", (out / "tiny_blur.a").string(),
                      "-Wl,--no-whole-archive", "-lpthread", "-ldl", "-lm"},
                     120);
        QVERIFY2(link.exitCode == 0, link.err.c_str());
        bench::CompiledLibrary candidate;
        candidate.ok = true;
        candidate.library = so;
        candidate.function = "tiny_blur";
        candidate.pipeline = "tiny_blur";
        candidate.schedule = "beamscope-plugin";
        candidate.target = bench::benchTarget(bench::TargetKind::OpenCL, 0).to_string();
        QTemporaryDir cache;
        bench::CompileOptions co;
        co.cacheDir = cache.path().toStdString();
        const bench::CompiledLibrary reference = bench::compilePipeline(
            {tinyBlurReference, bench::Schedule::computeRoot(), bench::benchTarget(bench::TargetKind::Host, 0), {}, {}},
            co);
        QVERIFY2(reference.ok, reference.error.c_str());
        bench::RunOptions ro;
        ro.reps = 1;
        ro.scale = 0.25;
        const bench::Measurement m = bench::measure(candidate, &reference, ro);
        QVERIFY2(m.ok && m.checked && m.matches, (m.message + " " + m.firstMismatch + "\n" + m.workerLog).c_str());
    }

    // HL_PARTIAL_SCHEDULE: output's tiling from a loop-nest dump in Halide's form
    // (32 x 8 threads, 4 serial points along y, 8 x 8 blocks of the 256 x 256
    // estimate) is kept; the search decides blur_x only.
    void partialScheduleIsKept()
    {
        const std::filesystem::path dump = std::filesystem::path(m_dir.path().toStdString()) / "output.loop_nest.txt";
        writeText(dump, " gpu_none\n"
                        "realize: output [256, 256] with 1 stages\n"
                        "output 8 8 (0, 0) t gpu_block\n"
                        " output 32c 8c (0, 0) t gpu_thread\n"
                        "  output 1c 4c (0, 0) t gpu_serial\n"
                        "   output 1vc 1c (0, 0) * gpu_simd\n");
        qputenv("HL_PARTIAL_SCHEDULE", QByteArray::fromStdString(dump.string()));
        const std::filesystem::path out = std::filesystem::path(m_dir.path().toStdString()) / "partial";
        const ChildResult r = runGenerator(out.string(), {});
        qunsetenv("HL_PARTIAL_SCHEDULE");
        QVERIFY2(r.started && !r.signaled && r.exitCode == 0, (r.startError + r.err).c_str());
        const std::string schedule = readText(out / "tiny_blur.schedule.h");
        QVERIFY2(schedule.find(".split(x, x, xi, 32,") != std::string::npos, schedule.c_str());
        QVERIFY2(schedule.find(".split(y, y, yi, 32,") != std::string::npos, schedule.c_str());
        QVERIFY2(schedule.find(".split(yi, yi, yii, 4,") != std::string::npos, schedule.c_str());
        QVERIFY2(schedule.find("blur_x") != std::string::npos, schedule.c_str());
    }

    // BEAMSCOPE_COST_ONLY: a dump that leaves blur_x undecided is refused naming it; with
    // blur_x inlined the dump is complete and its cost and features are printed.
    void costOnlyPrintsTheGivenStatesCost()
    {
        const std::string outputOnly = " gpu_none\n"
                                       "realize: output [256, 256] with 1 stages\n"
                                       "output 8 8 (0, 0) t gpu_block\n"
                                       " output 32c 8c (0, 0) t gpu_thread\n"
                                       "  output 1c 4c (0, 0) t gpu_serial\n"
                                       "   output 1vc 1c (0, 0) * gpu_simd\n";
        const std::filesystem::path dir = m_dir.path().toStdString();
        writeText(dir / "partial.txt", outputOnly);
        writeText(dir / "complete.txt", outputOnly + "    inlined: blur_x 3\n");
        qputenv("BEAMSCOPE_COST_ONLY", "1");
        qputenv("HL_PARTIAL_SCHEDULE", QByteArray::fromStdString((dir / "partial.txt").string()));
        const ChildResult partial = runGenerator((dir / "cost_only_partial").string(), {});
        qputenv("HL_PARTIAL_SCHEDULE", QByteArray::fromStdString((dir / "complete.txt").string()));
        const ChildResult complete = runGenerator((dir / "cost_only_complete").string(), {});
        qunsetenv("HL_PARTIAL_SCHEDULE");
        qunsetenv("BEAMSCOPE_COST_ONLY");
        QVERIFY2(partial.started && !partial.signaled && partial.exitCode != 0, partial.err.c_str());
        QVERIFY2(partial.err.find("decides 1 of 2 Funcs; undecided: blur_x") != std::string::npos, partial.err.c_str());
        QVERIFY2(complete.exitCode == 0, complete.err.c_str());
        QVERIFY2(complete.err.find("(complete, 2 Funcs): ") != std::string::npos, complete.err.c_str());
        QVERIFY2(complete.err.find("stage output_s0 cost ") != std::string::npos, complete.err.c_str());
        QVERIFY2(complete.err.find("    num_realizations ") != std::string::npos, complete.err.c_str());
    }

    // `-e featurization`: the generator writes the features the plugin hands back, Halide's
    // layout (1440 bytes a stage, no trailer), and the model costs them as the plugin did.
    void featurizationIsHandedBack()
    {
        const std::filesystem::path dir = m_dir.path().toStdString();
        writeText(dir / "featurized.txt", " gpu_none\n"
                                          "realize: output [256, 256] with 1 stages\n"
                                          "output 8 8 (0, 0) t gpu_block\n"
                                          " output 32c 8c (0, 0) t gpu_thread\n"
                                          "  output 1c 4c (0, 0) t gpu_serial\n"
                                          "   output 1vc 1c (0, 0) * gpu_simd\n"
                                          "    inlined: blur_x 3\n");
        qputenv("BEAMSCOPE_COST_ONLY", "1");
        qputenv("HL_PARTIAL_SCHEDULE", QByteArray::fromStdString((dir / "featurized.txt").string()));
        const std::filesystem::path out = dir / "featurized";
        const ChildResult r = runGenerator(out.string(), {"machine_params=80,16777216,40"}, "tiny_blur",
                                           bench::TargetKind::OpenCL, "schedule,featurization");
        qunsetenv("HL_PARTIAL_SCHEDULE");
        qunsetenv("BEAMSCOPE_COST_ONLY");
        QVERIFY2(r.started && !r.signaled && r.exitCode == 0, (r.startError + r.err).c_str());
        const size_t at = r.err.find("(complete, 2 Funcs): ");
        QVERIFY2(at != std::string::npos, r.err.c_str());
        const double printed = std::stod(r.err.substr(at + std::string("(complete, 2 Funcs): ").size()));

        const samples::SampleReadResult read = samples::readFeatures(out / "tiny_blur.featurization");
        QVERIFY2(read.ok(), read.error.c_str());
        const samples::Sample &f = *read.sample;
        QCOMPARE(f.stageCount(), 2); // output and blur_x: an inlined Func is a stage of the cost model too
        const std::vector<float> pipeline = samples::pipelineFeaturesOf(f), schedule = samples::scheduleFeaturesOf(f);
        int inlined = 0;
        for (int s = 0; s < f.stageCount(); s++)
            inlined += f.scheduleFeatures(s)[18] > 0; // inlined_calls: blur_x is inlined into output
        QCOMPARE(inlined, 1);
        const model::CostModel model(test::syntheticWeights(3));
        const float cost = model.evaluate(pipeline, schedule, 2, 1, 80).predictions[0];
        QVERIFY2(std::abs(cost - printed) <= 1e-6 * std::abs(printed),
                 qPrintable(QString("features cost %1, the plugin printed %2").arg(cost).arg(printed)));
    }

    // BEAMSCOPE_TRACE: the plugin records its search as a trace naming the generator, its parameters, the
    // program, target, weights and machine parameters. The session layer opens it and rebuilds its winner
    // from the generator library, and it is the same search beamscope-cli makes of that library.
    void searchIsRecordedForTheExplorer()
    {
        const std::filesystem::path dir = m_dir.path().toStdString();
        const std::filesystem::path tracePath = dir / "plugin-trace" / "tiny_blur.jsonl";
        qputenv("BEAMSCOPE_TRACE", QByteArray::fromStdString(tracePath.string()));
        const ChildResult r =
            runGenerator((dir / "traced").string(), {"machine_params=80,16777216,40", "with_estimates=true"});
        qunsetenv("BEAMSCOPE_TRACE");
        QVERIFY2(r.started && !r.signaled && r.exitCode == 0, (r.startError + r.err).c_str());
        QVERIFY2(r.err.find("search recorded in " + tracePath.string()) != std::string::npos, r.err.c_str());
        std::string error;
        const std::optional<search::SearchTrace> plugin = search::SearchTrace::read(tracePath, &error);
        QVERIFY2(plugin, error.c_str());
        const search::TraceParams &p = plugin->params;
        QCOMPARE(p.generator, std::string("tiny_blur"));
        QCOMPARE(p.generatorParams, (std::map<std::string, std::string>{{"with_estimates", "true"}}));
        QCOMPARE(std::filesystem::canonical(p.generatorExecutable),
                 std::filesystem::canonical(env("BEAMSCOPE_TINY_GENERATOR")));
        QVERIFY2(p.target.find("opencl") != std::string::npos, p.target.c_str());
        QVERIFY2(p.machineParams.starts_with("80,"), p.machineParams.c_str());
        QCOMPARE(std::filesystem::path(p.weights), std::filesystem::absolute(m_weights).lexically_normal());
        QCOMPARE(p.weightsSha256, sha256FileHex(m_weights).value());
        QVERIFY(plugin->summary.bestId >= 0);

        // The session layer builds the generator from its library and rebuilds the recorded winner.
        session::SearchRequest request;
        request.pipeline.generatorLibrary = env("BEAMSCOPE_TINY_GENERATORS");
        request.pipeline.generatorName = p.generator;
        for (const auto &[k, v] : p.generatorParams)
            request.pipeline.generatorParams.push_back({k, v});
        request.weightsPath = p.weights;
        const auto opened = session::SearchSession::open(request, &error);
        QVERIFY2(opened, error.c_str());
        const search::TraceNode *best = plugin->find(plugin->summary.bestId);
        const auto replayed = opened->replay(plugin->decisionsTo(best->id), &error);
        QVERIFY2(replayed, error.c_str());
        // This process built Funcs of these names before (other tests): Halide numbers them ("output$2"),
        // the generator's fresh process did not. The same Funcs, the same loops.
        QVERIFY2(withoutUniqueSuffixes(replayed->loopNest) == withoutUniqueSuffixes(best->loopNest),
                 (replayed->loopNest + "\n---\n" + best->loopNest).c_str());
        double sum = 0;
        for (float c : replayed->stageCosts)
            sum += c;
        QVERIFY2(std::abs(sum - best->cost) <= 1e-5 * std::abs(best->cost),
                 qPrintable(QString("replayed %1, recorded %2").arg(sum).arg(best->cost)));

        // beamscope-cli's search of the same generator library with the same settings: the same tree.
        const std::filesystem::path cliTrace = dir / "plugin-trace" / "cli.jsonl";
        const ChildResult cli =
            runChild({env("BEAMSCOPE_CLI"), "autoschedule", "--generator", env("BEAMSCOPE_TINY_GENERATORS"), "--name",
                      "tiny_blur", "--param", "with_estimates=true", "--weights", m_weights.string(), "--beam", "2",
                      "--passes", "1", "--seed", "5", "--trace", cliTrace.string()},
                     600);
        QVERIFY2(cli.exitCode == 0, cli.err.c_str());
        const std::optional<search::SearchTrace> mine = search::SearchTrace::read(cliTrace, &error);
        QVERIFY2(mine, error.c_str());
        QCOMPARE(mine->nodes().size(), plugin->nodes().size());
        for (size_t i = 0; i < mine->nodes().size(); ++i) {
            const search::TraceNode &a = plugin->nodes()[i], &b = mine->nodes()[i];
            QCOMPARE(b.decision, a.decision);
            QVERIFY2(std::abs(a.cost - b.cost) <= 1e-6 * std::abs(a.cost) + 1e-12,
                     qPrintable(QString("node %1: plugin %2, cli %3").arg(i).arg(a.cost).arg(b.cost)));
        }
        QCOMPARE(mine->summary.bestId, plugin->summary.bestId);
        QCOMPARE(mine->params.generator, p.generator);
    }

    void badPartialScheduleEndsInAHalideError()
    {
        const std::filesystem::path dump = std::filesystem::path(m_dir.path().toStdString()) / "bad.loop_nest.txt";
        writeText(dump, " gpu_none\nrealize: no_such_func [256, 256] with 1 stages\n");
        qputenv("HL_PARTIAL_SCHEDULE", QByteArray::fromStdString(dump.string()));
        const std::filesystem::path out = std::filesystem::path(m_dir.path().toStdString()) / "bad_partial";
        const ChildResult r = runGenerator(out.string(), {});
        qunsetenv("HL_PARTIAL_SCHEDULE");
        QVERIFY2(r.started && !r.signaled, (signalName(r.signal) + "\n" + r.err).c_str());
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.find("HL_PARTIAL_SCHEDULE") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("bad.loop_nest.txt") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("no_such_func") != std::string::npos, r.err.c_str());
        QVERIFY(!std::filesystem::exists(out / "tiny_blur.schedule.h"));
    }

    void missingEstimatesEndInAHalideError()
    {
        const std::filesystem::path out = std::filesystem::path(m_dir.path().toStdString()) / "no_estimates";
        const ChildResult r = runGenerator(out.string(), {"with_estimates=false"});
        QVERIFY2(r.started && !r.signaled, (signalName(r.signal) + "\n" + r.err).c_str());
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.find("Beamscope autoscheduler") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("estimate") != std::string::npos, r.err.c_str());
        QVERIFY(!std::filesystem::exists(out / "tiny_blur.schedule.h"));
    }

    void badWeightsEndInAHalideError()
    {
        const std::filesystem::path bad = std::filesystem::path(m_dir.path().toStdString()) / "bad.weights";
        {
            std::ofstream f(bad, std::ios::binary);
            f << "not weights";
        }
        qputenv("HL_WEIGHTS_DIR", QByteArray::fromStdString(bad.string()));
        const std::filesystem::path out = std::filesystem::path(m_dir.path().toStdString()) / "bad_weights";
        const ChildResult r = runGenerator(out.string(), {});
        qputenv("HL_WEIGHTS_DIR", QByteArray::fromStdString(m_weights.string()));
        QVERIFY2(r.started && !r.signaled, (signalName(r.signal) + "\n" + r.err).c_str());
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.find("cannot load weights") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("bad.weights") != std::string::npos, r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPlugin)
#include "test_plugin.moc"
