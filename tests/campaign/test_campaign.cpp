// The correctness campaign (core/campaign): the corpus of user-shaped
// generators and a sample of seeded random pipelines are searched, and every
// state of the final beam is compiled for OpenCL and CUDA and run on PoCL
// against the host; a failed search says where it stopped; a campaign resumes
// where it was stopped and summarizes its records.

#include "core/bench/compile.h"
#include "core/bench/measurement.h"
#include "core/bench/targets.h"
#include "core/campaign/campaign.h"
#include "core/pipelines/host_target.h"
#include "core/schedule/device_reference.h"
#include "core/util/child_process.h"
#include "core/gpu/device_facts.h"
#include "core/bench/float_check.h"
#include "core/model/cost_model_file.h"
#include "core/pipelines/generator_library.h"
#include "core/pipelines/random_pipeline.h"
#include "core/search/device_limits.h"
#include "core/util/progress.h"
#include "tests/support/test_data.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <memory>

using namespace beamscope;

namespace {

const std::string kCorpus = BEAMSCOPE_CORPUS_GENERATORS;

// A trained per-app file, as a generator's search gets by default.
std::unique_ptr<model::CostModel> loadModel()
{
    std::string error;
    auto model = model::loadCostModel(test::sourceDir() / "weights" / "anderson2021" / "bgu.weights", error);
    if (!model)
        qFatal("%s", error.c_str());
    return model;
}

campaign::BeamCheckOptions checkOptions(int beam, int schedules)
{
    campaign::BeamCheckOptions o;
    o.search.beamSize = beam;
    o.search.numPasses = 1;
    std::string error;
    o.search.device = search::featureParamsFor(*gpu::resolveProfile("v100", error));
    o.schedules = schedules;
    o.cudaSchedules = -1; // every one
    o.run.timeoutSeconds = 60;
    o.compileTimeoutSeconds = 300;
    return o;
}

campaign::PipelineToCheck generator(const std::string &name, std::map<std::string, std::string> params = {})
{
    return {name, "generator " + name, {}, [name, params] { return pipelines::buildGenerator(kCorpus, name, params); }};
}

QString describe(const campaign::PipelineCheck &c)
{
    QString text = QString::fromStdString(c.pipeline + ": " + campaign::outcomeName(c.outcome) + " " + c.message);
    for (const campaign::ScheduleCheck &s : c.schedules)
        if (s.outcome != campaign::Outcome::Correct)
            text += QStringLiteral("\n  state %1: %2: %3\n%4")
                        .arg(s.rank)
                        .arg(campaign::outcomeName(s.outcome), QString::fromStdString(s.message),
                             QString::fromStdString(s.loopNest));
    return text;
}

// Cancelled once it has been told of `reports` pipelines (a user pressing Ctrl-C then).
class CancelAfter : public Progress {
public:
    explicit CancelAfter(int reports) : m_left(reports) {}
    void report(double, std::string_view) override { --m_left; }
    bool cancelled() const override { return m_left <= 0; }

private:
    int m_left;
};

} // namespace

class TestCampaign : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_model = loadModel(); }

    // Every corpus generator: every state of its final beam (beam 4) compiles for
    // OpenCL and CUDA and computes on PoCL exactly what the host computes.
    void corpusIsCorrectEndToEnd_data()
    {
        QTest::addColumn<QString>("name");
        for (const std::string &name : pipelines::loadGeneratorLibrary(kCorpus))
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }
    void corpusIsCorrectEndToEnd()
    {
        QFETCH(QString, name);
        const campaign::PipelineCheck c =
            campaign::checkPipeline(generator(name.toStdString()), *m_model, checkOptions(4, 4));
        QVERIFY2(c.outcome == campaign::Outcome::Correct, qPrintable(describe(c)));
        QVERIFY(!c.schedules.empty());
        QVERIFY(c.stages > 0);
    }

    // The plugin path: each corpus generator scheduled by the plugin inside its own generator
    // program (Halide's process, Halide's Funcs), compiled there for OpenCL and for CUDA, and the
    // OpenCL build run on PoCL against the host.
    void pluginPathIsCorrect_data() { corpusIsCorrectEndToEnd_data(); }
    void pluginPathIsCorrect()
    {
        QFETCH(QString, name);
        const QByteArray program = qgetenv("BEAMSCOPE_CORPUS_GENERATOR"), plugin = qgetenv("BEAMSCOPE_PLUGIN");
        if (program.isEmpty() || plugin.isEmpty())
            QSKIP("run through ctest: BEAMSCOPE_CORPUS_GENERATOR and BEAMSCOPE_PLUGIN name the built files");
        QTemporaryDir dir;
        const std::string generator = name.toStdString(), out = dir.path().toStdString();
        qputenv("HL_WEIGHTS_DIR",
                QByteArray::fromStdString((test::sourceDir() / "weights" / "anderson2021" / "bgu.weights").string()));
        qputenv("HL_BEAM_SIZE", "4");
        qputenv("HL_NUM_PASSES", "1");
        auto schedule = [&](const std::string &target, const std::string &suffix) {
            return runChild({program.toStdString(), "-g", generator, "-f", generator, "-n", generator + suffix, "-o",
                             out, "-e", "static_library,schedule", "-p", plugin.toStdString(), "-s", "Beamscope",
                             "target=" + target, "auto_schedule=true"},
                            600);
        };
        const Halide::Target opencl =
            bench::benchTarget(bench::TargetKind::OpenCL, 0).with_feature(Halide::Target::StrictFloat);
        const ChildResult cl = schedule(opencl.to_string(), "_opencl");
        const ChildResult cuda =
            schedule(bench::benchTarget(bench::TargetKind::Cuda, bench::kDefaultCudaCapability).to_string(), "_cuda");
        for (const char *variable : {"HL_WEIGHTS_DIR", "HL_BEAM_SIZE", "HL_NUM_PASSES"})
            qunsetenv(variable);
        QVERIFY2(cl.exitCode == 0, (cl.startError + cl.err).c_str());
        QVERIFY2(cuda.exitCode == 0, (cuda.startError + cuda.err).c_str());
        // Every update of a scheduled Func is scheduled: Halide has nothing to warn of.
        QVERIFY2(cl.err.find("has not been scheduled") == std::string::npos, cl.err.c_str());

        // The static library as a shared object the bench worker runs, beside a host reference.
        const std::string library = out + "/lib" + generator + ".so";
        const ChildResult link =
            runChild({"cc", "-shared", "-o", library, "-Wl,--whole-archive", out + "/" + generator + "_opencl.a",
                      "-Wl,--no-whole-archive", "-ldl", "-lpthread"},
                     120);
        QVERIFY2(link.exitCode == 0, link.err.c_str());
        bench::CompiledLibrary candidate;
        candidate.ok = true;
        candidate.library = library;
        candidate.function = generator;
        candidate.pipeline = generator;
        candidate.target = opencl.to_string();
        bench::CompileOptions compile;
        const bench::CompiledLibrary reference =
            bench::compilePipeline({[=] { return pipelines::buildGenerator(kCorpus, generator, {}); },
                                    bench::Schedule::computeRoot(),
                                    pipelines::hostTarget().with_feature(Halide::Target::StrictFloat),
                                    {},
                                    {}},
                                   compile);
        QVERIFY2(reference.ok, reference.error.c_str());
        bench::RunOptions run;
        run.reps = 1;
        run.warmup = 0;
        run.timeoutSeconds = 60;
        bench::Measurement m = bench::measure(candidate, &reference, run);
        // Where the math library is called, the device's own rounding is the reference (beam_check.h).
        const bool callsMathLibrary =
            m.failure == bench::Failure::WrongOutput &&
            !bench::inexactMathCalls(pipelines::buildGenerator(kCorpus, generator, {}).outputs).empty();
        if (callsMathLibrary) {
            const bench::CompiledLibrary onDevice = bench::compilePipeline(
                {[=] { return pipelines::buildGenerator(kCorpus, generator, {}); },
                 bench::Schedule::custom("device_reference",
                                         [](pipelines::PipelineInstance &p, const Halide::Target &) {
                                             schedule::applyDeviceReferenceSchedule(p.outputs);
                                         }),
                 opencl,
                 {},
                 {}},
                compile);
            QVERIFY2(onDevice.ok, onDevice.error.c_str());
            m = bench::measure(candidate, &onDevice, run);
        }
        QVERIFY2(m.ok, (m.message + "\n" + m.workerLog).c_str());
    }

    // The autotune loop's exploring searches reach schedules the beam never does. Two of
    // cuda_mat_mul's (dropout seeds 1 and 6, with its own weights) put prod's barrier inside
    // block-uniform ifs, which PoCL 3.1 ran for excluded threads (a SIGSEGV reading past B);
    // compiled with the barrier lifted (core/bench/uniform_barriers.h), they are correct.
    void exploringSearchesAreChecked()
    {
        std::string error;
        const auto model =
            model::loadCostModel(test::sourceDir() / "weights" / "anderson2021" / "cuda_mat_mul.weights", error);
        QVERIFY2(model, error.c_str());
        const auto info = pipelines::findPipeline("cuda_mat_mul");
        QVERIFY(info);
        campaign::BeamCheckOptions o = checkOptions(1, 1);
        o.cudaSchedules = 0;
        o.run.scale = 0.25;
        const auto checks = campaign::exploringChecksOf({"cuda_mat_mul", "app cuda_mat_mul", {}, info->build}, 6, 1);
        QCOMPARE(checks.size(), size_t(6));
        QCOMPARE(QString::fromStdString(checks[5].name), QStringLiteral("cuda_mat_mul@dropout6"));
        for (const size_t k : {size_t(0), size_t(5)}) {
            const campaign::PipelineCheck c = campaign::checkPipeline(checks[k], *model, o);
            QVERIFY2(c.outcome == campaign::Outcome::Correct, qPrintable(describe(c)));
            QCOMPARE(c.schedules.size(), size_t(1));
        }
    }

    // Seeded random pipelines of every stage kind: the winner and three more of the final beam.
    void randomSampleIsCorrect()
    {
        std::set<std::string> kinds;
        for (const auto &[seed, stages] : std::vector<std::pair<uint64_t, int>>{{4, 6}, {7, 10}, {12, 10}, {14, 10}}) {
            const pipelines::PipelineInstance probe = pipelines::randomPipeline(seed, stages);
            kinds.insert(probe.stageKinds.begin(), probe.stageKinds.end());
            const campaign::PipelineCheck c = campaign::checkPipeline(
                {probe.name, "random", probe.stageKinds, [=] { return pipelines::randomPipeline(seed, stages); }},
                *m_model, checkOptions(8, 4));
            QVERIFY2(c.outcome == campaign::Outcome::Correct, qPrintable(describe(c)));
            QCOMPARE(c.schedules.size(), size_t(4));
        }
        QVERIFY2(kinds.size() >= 6, qPrintable(QString::number(kinds.size())));
    }

    // A schedule that computes something else (a fault the worker injects) is recorded with where
    // Halide's lowered statement of it is, to read what Halide made of it.
    void failureNamesHalidesStatement()
    {
        campaign::BeamCheckOptions o = checkOptions(2, 1);
        o.cudaSchedules = 0;
        o.run.injectFault = "wrong-output";
        const pipelines::PipelineInstance probe = pipelines::randomPipeline(4, 3);
        const campaign::PipelineCheck c = campaign::checkPipeline(
            {probe.name, "random", probe.stageKinds, [] { return pipelines::randomPipeline(4, 3); }}, *m_model, o);
        QCOMPARE(c.outcome, campaign::Outcome::WrongOutput);
        QCOMPARE(c.schedules.size(), size_t(1));
        const std::string &message = c.schedules[0].message;
        const size_t at = message.find("Halide's lowered statement: ");
        QVERIFY2(at != std::string::npos, message.c_str());
        const std::string path = message.substr(at + std::string("Halide's lowered statement: ").size());
        QVERIFY2(path.ends_with(".stmt") && std::filesystem::is_regular_file(path), path.c_str());
    }

    // An RDom of negative extent leaves nothing to compute: no schedule, and the cause named.
    void failedSearchSaysWhereItStopped()
    {
        const campaign::PipelineCheck c = campaign::checkPipeline(
            generator("corpus_inline_blur_sharpen", {{"radius", "-1"}}), *m_model, checkOptions(4, 1));
        QCOMPARE(c.outcome, campaign::Outcome::NoSchedule);
        QVERIFY2(QString::fromStdString(c.message).contains(QStringLiteral("the search stopped at depth")),
                 qPrintable(describe(c)));
        QVERIFY(c.schedules.empty());
    }

    // Stopped after one pipeline, a rerun checks only the rest; the summary reads every record.
    void campaignResumesAndSummarizes()
    {
        QTemporaryDir dir;
        campaign::CampaignRequest request;
        request.out = dir.path().toStdString();
        for (uint64_t seed : {21, 22}) {
            const pipelines::PipelineInstance probe = pipelines::randomPipeline(seed, 3);
            request.pipelines.push_back(
                {probe.name, "random", probe.stageKinds, [=] { return pipelines::randomPipeline(seed, 3); }});
        }
        request.check = checkOptions(2, 1);
        request.check.cudaSchedules = 0;
        std::string error;
        CancelAfter stopAfterFirst(1);
        QVERIFY2(campaign::runCampaign(request, *m_model, &stopAfterFirst, &error), error.c_str());
        QCOMPARE(campaign::pendingPipelines(request).size(), size_t(1));
        const auto first = request.out / "pipelines" / (request.pipelines[0].name + ".json");
        const auto firstWritten = std::filesystem::last_write_time(first);
        QVERIFY2(campaign::runCampaign(request, *m_model, nullptr, &error), error.c_str());
        QVERIFY(campaign::pendingPipelines(request).empty());
        QCOMPARE(std::filesystem::last_write_time(first), firstWritten);

        const std::vector<campaign::PipelineCheck> records = campaign::readCampaign(request.out, &error);
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(records.size(), size_t(2));
        const Json summary = campaign::summaryJson(records);
        QCOMPARE(summary.find("pipelines")->toInt(), int64_t(2));
        int64_t counted = 0;
        for (const auto &[name, count] : summary.find("pipelines_by_outcome")->members())
            counted += count.toInt();
        QCOMPARE(counted, int64_t(2));
        QVERIFY(campaign::summaryMarkdown(records).find("| pipelines (worst schedule) |") != std::string::npos);

        // A damaged record is named, not skipped.
        test::writeFile(request.out / "pipelines" / "broken.json", "{\"pipeline\": 3}");
        QVERIFY(campaign::readCampaign(request.out, &error).empty());
        QVERIFY2(QString::fromStdString(error).contains(QStringLiteral("broken.json")), error.c_str());
    }

private:
    std::unique_ptr<model::CostModel> m_model;
};

QTEST_GUILESS_MAIN(TestCampaign)
#include "test_campaign.moc"
