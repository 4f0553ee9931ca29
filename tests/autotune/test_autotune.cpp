// core/autotune through beamscope-cli autotune, on OpenCL (PoCL here): the
// samples a run writes read back bit-exact and train, a run killed with
// SIGKILL at several points resumes to the same samples as an uninterrupted
// one, crashing, hanging and wrong schedules are recorded while the run goes
// on, and the manifest carries the provenance. Plus the featurization a
// sample is made of, against Halide's own for the same pipeline.

#include "core/autotune/autotune.h"
#include "core/autotune/autotune_request.h"
#include "core/util/progress.h"
#include "core/pipelines/pipeline.h"
#include "core/samples/dataset.h"
#include "core/samples/run_folder.h"
#include "core/samples/sample.h"
#include "core/search/autoschedule.h"
#include "core/search/featurization.h"
#include "core/util/json.h"
#include "core/util/sha256.h"
#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"
#include "tests/support/test_data.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <csignal>
#include <map>
#include <set>

using namespace beamscope;
namespace fs = std::filesystem;

namespace {

// Two small golden pipelines, four schedules each: sample 0 at beam 2 (the
// beam search, kept small for the test), three beam-1 dropout samples.
std::vector<std::string> runArguments(const fs::path &out, const fs::path &cache)
{
    return {"autotune",  "--out",    out.string(),  "--app",        "box_blur", "--app",
            "conv_relu", "--target", "opencl",      "--batch-size", "4",        "--first-beam",
            "2",         "--scale",  "0.25",        "--reps",       "2",        "--jobs",
            "2",         "--epochs", "3",           "--min-batch",  "2",        "--seed",
            "7",         "--cache",  cache.string()};
}

std::vector<fs::path> filesUnder(const fs::path &root, const std::string &extension)
{
    std::vector<fs::path> out;
    for (const auto &e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file() && e.path().extension() == extension)
            out.push_back(fs::relative(e.path(), root));
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<fs::path> tempFilesUnder(const fs::path &root)
{
    std::vector<fs::path> out;
    for (const auto &e : fs::recursive_directory_iterator(root))
        if (e.path().filename().string().find(".tmp-") != std::string::npos)
            out.push_back(e.path());
    return out;
}

// A sample without its runtime: features, pipeline id and schedule id (runtimes
// differ from run to run; everything else must not).
std::vector<char> withoutRuntime(const samples::Sample &s)
{
    samples::Sample copy = s;
    copy.runtimeMs = 0;
    return samples::serializeSample(copy);
}

Json readJson(const fs::path &path)
{
    const JsonParseResult parsed = parseJson(test::readFile(path));
    if (!parsed.value)
        throw std::runtime_error(path.string() + ": " + parsed.error);
    return *parsed.value;
}

// Cancels the run a moment after it starts measuring one schedule, as a
// user's Cancel does while the worker is busy with it.
class CancelWhileMeasuring : public Progress {
public:
    explicit CancelWhileMeasuring(std::string schedule) : m_schedule(std::move(schedule)) {}
    void report(double, std::string_view message) override
    {
        if (!m_seen && message.find(m_schedule) != std::string_view::npos) {
            m_since = std::chrono::steady_clock::now();
            m_seen = true;
        }
    }
    bool cancelled() const override
    {
        return m_seen && std::chrono::steady_clock::now() - m_since > std::chrono::milliseconds(1500);
    }

private:
    std::string m_schedule;
    std::atomic<bool> m_seen = false;
    std::chrono::steady_clock::time_point m_since;
};

} // namespace

class TestAutotune : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    fs::path m_reference; // the uninterrupted run, shared by the tests that compare with it

    fs::path cache() const { return fs::path(m_tmp.path().toStdString()) / "cache"; }

    // Runs the CLI to completion; returns its exit code, stderr in *err.
    int runCli(const std::vector<std::string> &args, std::string *err = nullptr)
    {
        const test::ProcessResult r = test::runProcess(test::cliPath(), args);
        if (err)
            *err = r.err;
        if (r.exitCode != 0)
            qWarning("%s", r.err.c_str());
        return r.exitCode;
    }

    void ensureReference()
    {
        if (!m_reference.empty())
            return;
        m_reference = fs::path(m_tmp.path().toStdString()) / "reference";
        std::string err;
        QCOMPARE(runCli(runArguments(m_reference, cache()), &err), 0);
    }

private slots:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    // The pipeline part of a sample (types_in_use and the 40 x 7 features of
    // every stage) is Halide's, exactly: it does not depend on the schedule,
    // so any searched schedule of box_blur must carry the floats of Halide's
    // own box_blur featurization. The schedule part is the search's features,
    // each double rounded to float as Halide stores them.
    void featurizationMatchesHalidesPipelinePart()
    {
        BEAMSCOPE_REQUIRE_DATA(golden, "tests/fixtures/halide/pipelines/box_blur/beam1/box_blur.featurization");
        BEAMSCOPE_REQUIRE_DATA(weightsPath, "weights/anderson2021/baseline.weights");
        const std::string bytes = test::readFile(golden);
        std::vector<float> halide(bytes.size() / 4);
        std::memcpy(halide.data(), bytes.data(), halide.size() * 4);

        auto info = pipelines::findPipeline("box_blur");
        QVERIFY(info);
        pipelines::PipelineInstance instance = info->build();
        weights::LoadResult loaded = weights::loadWeights(weightsPath);
        QVERIFY(loaded.ok());
        const model::CostModel model(std::move(*loaded.weights));
        search::AutoscheduleParams params;
        params.beamSize = 1;
        const search::AutoscheduleOutcome outcome =
            search::autoschedule("box_blur", instance.outputs, model, params, nullptr, nullptr);
        QVERIFY(outcome.result.best);
        const std::vector<float> ours = search::featurization(*outcome.searchDag, outcome.result.features);
        QCOMPARE(ours.size(), halide.size());
        const size_t stages = ours.size() / samples::kStageFloats;
        QVERIFY(stages >= 2);
        for (size_t s = 0; s < stages; s++) {
            const size_t base = s * samples::kStageFloats;
            for (size_t i = samples::kScheduleFeatureCount; i < samples::kStageFloats; i++)
                QCOMPARE(ours[base + i], halide[base + i]);
            for (size_t i = 0; i < samples::kScheduleFeatureCount; i++)
                QCOMPARE(ours[base + i], static_cast<float>(outcome.result.features[s].values[i]));
        }
    }

    // One batch of 2 pipelines x 4 schedules: every measured schedule is a
    // sample that reads back bit-exact, with the run's ids and runtime; the
    // folder trains (hold-one-out reads it through apps.tsv); the retrain
    // after the batch changed the working weights; provenance is complete.
    void smallRunWritesSamplesThatTrain()
    {
        ensureReference();
        const samples::RunFolder folder(m_reference);
        std::vector<std::string> errors;
        const std::vector<samples::ScheduleRecord> records = folder.readRecords(&errors);
        QVERIFY(errors.empty());
        QCOMPARE(records.size(), size_t{8});
        std::set<uint64_t> hashes;
        size_t ok = 0;
        for (const samples::ScheduleRecord &r : records) {
            QCOMPARE(r.beamSize, r.index == 0 ? 2 : 1);
            QCOMPARE(r.randomDropout, r.index == 0 ? 100 : 1);
            QCOMPARE(r.scheduleId, samples::scheduleIdFor(0, r.index));
            QCOMPARE(r.dropoutSeed, 7ull * 100000000ull + static_cast<uint64_t>(r.index));
            QCOMPARE(r.checked, r.index == 0); // each pipeline's first schedule of the batch
            if (r.status == samples::Status::Duplicate) {
                QVERIFY(hashes.count(r.scheduleHash));
                QVERIFY(!fs::exists(folder.scheduleFile(r.pipeline, 0, r.scheduleId, ".sample")));
                continue;
            }
            QCOMPARE(samples::statusName(r.status), "ok");
            QVERIFY(hashes.insert(r.scheduleHash).second);
            ok++;
            const fs::path file = folder.scheduleFile(r.pipeline, 0, r.scheduleId, ".sample");
            const std::string bytes = test::readFile(file);
            const samples::SampleReadResult read = samples::readSample(file);
            QVERIFY2(read.ok(), read.error.c_str());
            const std::vector<char> again = samples::serializeSample(*read.sample);
            QCOMPARE(std::string(again.begin(), again.end()), bytes);
            QCOMPARE(read.sample->pipelineId, r.pipelineId);
            QCOMPARE(read.sample->scheduleId, r.scheduleId);
            QCOMPARE(read.sample->runtimeMs, static_cast<float>(r.runtimeMs));
            QCOMPARE(samples::scheduleHash(*read.sample), r.scheduleHash);
            QVERIFY(r.runtimeMs > 0 && r.runs == 2);
            QVERIFY(fs::exists(folder.scheduleFile(r.pipeline, 0, r.scheduleId, ".schedule.h")));
            QVERIFY(fs::exists(folder.scheduleFile(r.pipeline, 0, r.scheduleId, ".loop_nest.txt")));
        }
        QVERIFY(ok >= 4);

        const samples::LoadedSamples loaded = samples::loadSamples({m_reference});
        QVERIFY(loaded.ok());
        QCOMPARE(loaded.dataset.apps(), (std::vector<std::string>{"box_blur", "conv_relu"}));
        QCOMPARE(loaded.dataset.scheduleCount(), ok);

        const Json batch = readJson(folder.batchDone(0));
        const Json *training = batch.find("training");
        QVERIFY(training && training->find("retrained") && training->find("retrained")->toBool());
        QVERIFY(fs::exists(folder.currentWeights()));
        QVERIFY(test::readFile(folder.currentWeights()) != test::readFile(folder.startWeights()));
        QVERIFY(weights::loadWeights(folder.currentWeights()).ok());
        QVERIFY(test::readFile(folder.trainingTsv()).find("\n0\t1\t") != std::string::npos);

        const Json manifest = readJson(folder.manifest());
        for (const char *key :
             {"beamscope_version", "beamscope_commit", "host", "device", "starting_weights", "pipelines", "parameters"})
            QVERIFY2(manifest.find(key), key);
        const Json &device = *manifest.find("device");
        QCOMPARE(device.find("kind")->toString(), std::string("opencl"));
        QVERIFY(device.find("target")->toString().find("opencl") != std::string::npos);
        const Json *opencl = device.find("opencl");
        QVERIFY2(opencl && opencl->find("ok") && opencl->find("ok")->toBool(), device.dump().c_str());
        QVERIFY(!opencl->find("device")->toString().empty());
        // No --weights: the default for these pipelines (no shipped file saw them: a trained per-app file,
        // never the untrained baseline), as the explorer's Autotune form picks it.
        const auto expected = weights::defaultWeightsFor({"box_blur", "conv_relu"});
        QVERIFY(expected && !weights::isUntrainedShippedWeights(expected->path));
        QCOMPARE(manifest.find("starting_weights")->find("sha256")->toString(), *sha256FileHex(expected->path));
        QCOMPARE(manifest.find("parameters")->find("batch_size")->toInt(), int64_t{4});
        QVERIFY(tempFilesUnder(m_reference).empty());

        // Rerunning a finished run does nothing but say so.
        std::string err;
        QCOMPARE(runCli(runArguments(m_reference, cache()), &err), 0);
        QVERIFY2(err.find("1 batch(es) already complete") != std::string::npos, err.c_str());
        QCOMPARE(folder.readRecords().size(), size_t{8});
    }

    // Killed with SIGKILL after 1, then 4 finished schedules (and once while
    // searching), the rerun resumes: in the end the same samples as the
    // uninterrupted run (runtimes aside), each schedule once, no temp file.
    void resumesAfterKill()
    {
        ensureReference();
        const fs::path out = fs::path(m_tmp.path().toStdString()) / "killed";
        const std::vector<std::string> args = runArguments(out, cache());
        QStringList qargs;
        for (const std::string &a : args)
            qargs << QString::fromStdString(a);
        for (int killAfter : {0, 1, 4}) {
            QProcess p;
            p.start(QString::fromStdString(test::cliPath().string()), qargs);
            QVERIFY(p.waitForStarted());
            QElapsedTimer timer;
            timer.start();
            const samples::RunFolder folder(out);
            while (timer.elapsed() < 120000 && p.state() == QProcess::Running) {
                if (killAfter == 0 ? fs::exists(folder.manifest())
                                   : folder.readRecords().size() >= static_cast<size_t>(killAfter))
                    break;
                QTest::qWait(20);
            }
            QVERIFY2(p.state() == QProcess::Running, "the run ended before it could be killed");
            ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
            QVERIFY(p.waitForFinished());
        }
        std::string err;
        QCOMPARE(runCli(args, &err), 0);
        QVERIFY2(err.find("resumed") != std::string::npos, err.c_str());

        QCOMPARE(filesUnder(out, ".sample"), filesUnder(m_reference, ".sample"));
        QCOMPARE(filesUnder(out, ".json"), filesUnder(m_reference, ".json"));
        for (const fs::path &rel : filesUnder(out, ".sample")) {
            const auto a = samples::readSample(out / rel), b = samples::readSample(m_reference / rel);
            QVERIFY(a.ok() && b.ok());
            QVERIFY2(withoutRuntime(*a.sample) == withoutRuntime(*b.sample), rel.c_str());
        }
        QVERIFY(tempFilesUnder(out).empty());
        std::set<uint64_t> hashes;
        for (const samples::ScheduleRecord &r : samples::RunFolder(out).readRecords())
            if (r.status == samples::Status::Ok)
                QVERIFY(hashes.insert(r.scheduleHash).second);
    }

    // A crash, a hang and a wrong output (injected into the worker) are each
    // recorded with what happened while the other schedules are measured.
    // Review, Autotune 1: a Cancel while a schedule is being measured leaves no
    // record of it (it is no failure of the schedule), and the rerun measures it.
    void cancelledScheduleIsMeasuredOnResume()
    {
        const fs::path out = fs::path(m_tmp.path().toStdString()) / "cancelled";
        autotune::AutotuneRequest r;
        r.outDir = out.string();
        r.apps = {"box_blur"};
        r.target = "opencl";
        r.batchSize = 3;
        r.firstBeamSize = 2;
        r.scale = 0.25;
        r.reps = 1;
        r.jobs = 2;
        r.retrain = false;
        r.benchTimeoutSeconds = 60;
        r.seed = 7;
        r.cacheDir = cache().string();
        r.injectFaults = {{"box_blur:0:0", "hang"}}; // the worker is still busy when Cancel comes
        CancelWhileMeasuring cancel("measuring schedule 0");
        const autotune::AutotuneResult first = autotune::runAutotune(r, &cancel);
        QVERIFY2(first.error.empty(), first.error.c_str());
        QVERIFY(first.cancelled);
        for (const samples::ScheduleRecord &rec : samples::RunFolder(out).readRecords())
            QVERIFY2(rec.index != 0, (std::string("a record for the cancelled schedule: ") + rec.message).c_str());
        QVERIFY(tempFilesUnder(out).empty());

        r.injectFaults.clear();
        const autotune::AutotuneResult second = autotune::runAutotune(r);
        QVERIFY2(second.ok, second.error.c_str());
        QVERIFY(!second.cancelled);
        std::map<int, samples::ScheduleRecord> byIndex;
        for (const samples::ScheduleRecord &rec : samples::RunFolder(out).readRecords())
            byIndex[rec.index] = rec;
        QCOMPARE(byIndex.size(), size_t{3});
        QCOMPARE(std::string(samples::statusName(byIndex[0].status)), std::string("ok"));
    }

    void failuresAreRecordedAndTheRunGoesOn()
    {
        const fs::path out = fs::path(m_tmp.path().toStdString()) / "faults";
        std::vector<std::string> args = {"autotune",
                                         "--out",
                                         out.string(),
                                         "--app",
                                         "box_blur",
                                         "--target",
                                         "opencl",
                                         "--batch-size",
                                         "5",
                                         "--first-beam",
                                         "2",
                                         "--scale",
                                         "0.25",
                                         "--reps",
                                         "1",
                                         "--jobs",
                                         "2",
                                         "--no-retrain",
                                         "--bench-timeout",
                                         "3",
                                         "--seed",
                                         "7",
                                         "--cache",
                                         cache().string(),
                                         "--inject-fault",
                                         "box_blur:0:1=crash",
                                         "--inject-fault",
                                         "box_blur:0:2=hang",
                                         "--inject-fault",
                                         "box_blur:0:3=wrong-output"};
        std::string err;
        QCOMPARE(runCli(args, &err), 0);
        std::map<int, samples::ScheduleRecord> byIndex;
        for (const samples::ScheduleRecord &r : samples::RunFolder(out).readRecords())
            byIndex[r.index] = r;
        QCOMPARE(byIndex.size(), size_t{5});
        auto statusOf = [&](int i) { return std::string(samples::statusName(byIndex[i].status)); };
        QCOMPARE(statusOf(0), std::string("ok"));
        // An injected schedule that happens to duplicate an earlier one is
        // never run; seed 7 gives five distinct box_blur schedules.
        QCOMPARE(statusOf(1), std::string("crash"));
        QVERIFY(byIndex[1].message.find("SIGSEGV") != std::string::npos);
        // The record names what Halide lowered the crashing schedule to, and that file is there.
        const std::string said = "Halide's lowered statement: ";
        const size_t at = byIndex[1].message.find(said);
        QVERIFY2(at != std::string::npos, byIndex[1].message.c_str());
        QVERIFY(fs::exists(byIndex[1].message.substr(at + said.size())));
        QCOMPARE(statusOf(2), std::string("hang"));
        QCOMPARE(statusOf(3), std::string("wrong_output"));
        QVERIFY(byIndex[3].checked);
        QCOMPARE(statusOf(4), std::string("ok"));
        QVERIFY(!fs::exists(samples::RunFolder(out).scheduleFile("box_blur", 0, 1, ".sample")));
        QVERIFY(fs::exists(samples::RunFolder(out).scheduleFile("box_blur", 0, 4, ".sample")));
        const std::string tsv = test::readFile(out / "records.tsv");
        QVERIFY(tsv.find("\tcrash\t") != std::string::npos && tsv.find("\thang\t") != std::string::npos);

        // samples summary counts them by reason.
        const test::ProcessResult s = test::runProcess(test::cliPath(), {"samples", "summary", out.string(), "--json"});
        QCOMPARE(s.exitCode, 0);
        const JsonParseResult j = parseJson(s.out);
        QVERIFY(j.value);
        const Json *attempts = j.value->find("attempts");
        QVERIFY(attempts);
        QCOMPARE(attempts->find("crash")->toInt(), int64_t{1});
        QCOMPARE(attempts->find("hang")->toInt(), int64_t{1});
        QCOMPARE(attempts->find("wrong_output")->toInt(), int64_t{1});
    }

    // compare-weights on the run's samples: the figures per app, and with
    // --measure-picks the runtime of the schedule the search picks with the
    // weights, timed on the run's target (from its manifest) at its scale.
    void compareWeightsMeasuresPicks()
    {
        ensureReference();
        const test::ProcessResult r = test::runProcess(
            test::cliPath(), {"compare-weights", "--samples", m_reference.string(), "--weights", "baseline",
                              "--measure-picks", "--pick-beam", "1", "--reps", "2", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        QVERIFY2(r.err.find("timing its pick on opencl") != std::string::npos, r.err.c_str());
        const JsonParseResult j = parseJson(r.out);
        QVERIFY(j.value && j.value->items().size() == 1);
        const Json &choice = j.value->items().front();
        QCOMPARE(choice.find("apps_scored")->toInt(), int64_t{2});
        for (const Json &app : choice.find("apps")->items()) {
            const Json *pick = app.find("pick");
            QVERIFY2(pick && pick->find("ok")->toBool(), app.dump().c_str());
            QVERIFY(pick->find("runtime_ms")->toNumber() > 0);
            QVERIFY(app.find("top1")->toNumber() >= 1.0);
        }
    }

    // A rerun with other parameters on the same folder is refused, naming
    // the parameter, and changes nothing.
    void resumeWithOtherParametersIsRefused()
    {
        ensureReference();
        std::vector<std::string> args = runArguments(m_reference, cache());
        args[std::find(args.begin(), args.end(), "--batch-size") - args.begin() + 1] = "5";
        const std::string before = test::readFile(m_reference / "manifest.json");
        std::string err;
        QCOMPARE(runCli(args, &err), 1);
        QVERIFY2(err.find("parameter 'batch_size' was 4") != std::string::npos, err.c_str());
        QCOMPARE(test::readFile(m_reference / "manifest.json"), before);
    }
};

QTEST_GUILESS_MAIN(TestAutotune)
#include "test_autotune.moc"
