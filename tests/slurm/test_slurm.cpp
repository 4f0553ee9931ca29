// autotune --slurm and retrain --hold-one-out --slurm through a local
// single-node Slurm (local_slurm.h): a batch of 2 pipelines over 3 array
// tasks gives, file for file, the samples of a local run with the same seeds
// (runtimes aside, which are measured anew); an array task cancelled while it
// runs is resubmitted and the result is still complete; hold-one-out over
// Slurm writes the same weights as the local hold-one-out.

#include "core/autotune/slurm.h"
#include "core/samples/run_folder.h"
#include "core/samples/sample.h"
#include "core/util/json.h"
#include "tests/slurm/local_slurm.h"
#include "tests/support/test_data.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace beamscope;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> runArguments(const fs::path &out, const fs::path &cache)
{
    return {"autotune",  "--out",    out.string(),  "--app",        "box_blur", "--app",
            "conv_relu", "--target", "opencl",      "--batch-size", "4",        "--first-beam",
            "2",         "--scale",  "0.25",        "--reps",       "2",        "--jobs",
            "1",         "--epochs", "3",           "--min-batch",  "2",        "--seed",
            "7",         "--cache",  cache.string()};
}

std::vector<fs::path> samplesUnder(const fs::path &root)
{
    std::vector<fs::path> out;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        if (it->is_directory() && it->path().filename() == "slurm") {
            it.disable_recursion_pending();
            continue;
        }
        if (it->path().extension() == ".sample")
            out.push_back(fs::relative(it->path(), root));
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<char> withoutRuntime(const fs::path &file)
{
    samples::Sample s = *samples::readSample(file).sample;
    s.runtimeMs = 0;
    return samples::serializeSample(s);
}

std::map<int32_t, std::string> statusById(const fs::path &root, const std::string &pipeline)
{
    std::map<int32_t, std::string> out;
    for (const samples::ScheduleRecord &r : samples::RunFolder(root).readRecords())
        if (r.pipeline == pipeline)
            out[r.scheduleId] = samples::statusName(r.status);
    return out;
}

} // namespace

class TestSlurm : public QObject {
    Q_OBJECT
    test::LocalSlurm m_slurm;
    QTemporaryDir m_tmp;
    fs::path m_reference;

    fs::path path(const char *name) const { return fs::path(m_tmp.path().toStdString()) / name; }

    void ensureReference()
    {
        if (!m_reference.empty())
            return;
        m_reference = path("local");
        const test::ProcessResult r = test::runProcess(test::cliPath(), runArguments(m_reference, path("cache")));
        QVERIFY2(r.exitCode == 0, r.err.c_str());
    }

    bool waitForFile(const fs::path &file, int seconds)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < seconds * 1000) {
            if (fs::exists(file))
                return true;
            QTest::qWait(500);
        }
        return fs::exists(file);
    }

    // Same sample files, same bytes but for the runtime, same statuses.
    void compareWithReference(const fs::path &out)
    {
        const std::vector<fs::path> ours = samplesUnder(out), theirs = samplesUnder(m_reference);
        QCOMPARE(ours.size(), theirs.size());
        QVERIFY(!ours.empty());
        QCOMPARE(ours, theirs);
        for (const fs::path &rel : ours)
            QVERIFY2(withoutRuntime(out / rel) == withoutRuntime(m_reference / rel), rel.c_str());
        for (const char *p : {"box_blur", "conv_relu"})
            QCOMPARE(statusById(out, p), statusById(m_reference, p));
        QVERIFY(fs::exists(out / "apps.tsv") && fs::exists(out / "manifest.json") && fs::exists(out / "records.tsv"));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        const QString reason = test::LocalSlurm::unavailableReason();
        if (!reason.isEmpty())
            QSKIP(qPrintable(QStringLiteral("no local Slurm: ") + reason));
        QString why;
        QVERIFY2(m_slurm.start(&why), qPrintable(why));
    }

    void cleanupTestCase() { m_slurm.stop(); }

    void autotuneOverSlurmEqualsLocalRun()
    {
        ensureReference();
        const fs::path out = path("slurm-run");
        std::vector<std::string> args = runArguments(out, path("cache"));
        for (const char *a : {"--slurm", "--tasks", "3"})
            args.push_back(a);
        const test::ProcessResult r = test::runProcess(test::cliPath(), args);
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        QVERIFY2(r.err.find("submitted batch 0 as array job") != std::string::npos, r.err.c_str());
        const std::string script = test::readFile(out / "slurm" / "autotune.sbatch");
        QVERIFY(script.find("--shard \"$task/3\"") != std::string::npos);
        QVERIFY2(waitForFile(samples::RunFolder(out).batchDone(0), 600), qPrintable(m_slurm.logs()));
        compareWithReference(out);

        const autotune::SlurmStatus st = autotune::slurmStatus(out);
        QCOMPARE(st.batchesDone, 1);
        QCOMPARE(st.tasks.size(), size_t{3});
        for (const auto &t : st.tasks)
            QCOMPARE(t.state, std::string("done"));
        QVERIFY(st.samples == samplesUnder(out).size());
    }

    void cancelledTaskIsResubmitted()
    {
        ensureReference();
        const fs::path out = path("slurm-cancelled");
        std::vector<std::string> args = runArguments(out, path("cache-cancelled"));
        for (const char *a : {"--slurm", "--tasks", "3"})
            args.push_back(a);
        const test::ProcessResult r = test::runProcess(test::cliPath(), args);
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const std::vector<autotune::Submission> subs = autotune::readSubmissions(out);
        QCOMPARE(subs.size(), size_t{1});
        const std::string victim = subs.front().arrayJob + "_1";
        // Cancel task 1 once it runs: the merge finds its shard incomplete and sends it again.
        QElapsedTimer t;
        t.start();
        bool running = false;
        while (!running && t.elapsed() < 120000) {
            running = squeueStates({subs.front().arrayJob})[victim] == "RUNNING";
            if (!running)
                QTest::qWait(200);
        }
        QVERIFY2(running, "task 1 never ran");
        std::string error;
        QVERIFY2(scancel({victim}, error), error.c_str());
        QVERIFY2(waitForFile(samples::RunFolder(out).batchDone(0), 600), qPrintable(m_slurm.logs()));
        const std::vector<autotune::Submission> after = autotune::readSubmissions(out);
        QCOMPARE(after.size(), size_t{2});
        QCOMPARE(after.back().attempt, 1);
        QCOMPARE(after.back().tasks, std::vector<int>{1});
        compareWithReference(out);
        const autotune::SlurmStatus st = autotune::slurmStatus(out);
        QCOMPARE(st.resubmitted, std::vector<std::string>{"batch 0 task 1 (attempt 1)"});
        QVERIFY(st.failedFinally.empty());
    }

    void holdOneOutOverSlurmEqualsLocal()
    {
        ensureReference();
        const fs::path local = path("hoo-local"), slurm = path("hoo-slurm");
        const std::vector<std::string> common = {"retrain",         "--hold-one-out",
                                                 "--samples",       m_reference.string(),
                                                 "--initial",       "baseline",
                                                 "--epochs",        "5",
                                                 "--learning-rate", "0.001",
                                                 "--seed",          "3",
                                                 "--min-batch",     "2"};
        std::vector<std::string> a = common;
        a.insert(a.end(), {"--out-dir", local.string()});
        const test::ProcessResult l = test::runProcess(test::cliPath(), a);
        QVERIFY2(l.exitCode == 0, l.err.c_str());
        std::vector<std::string> b = common;
        b.insert(b.end(), {"--out-dir", slurm.string(), "--slurm"});
        const test::ProcessResult s = test::runProcess(test::cliPath(), b);
        QVERIFY2(s.exitCode == 0, s.err.c_str());
        QVERIFY2(waitForFile(slurm / "hold-one-out.json", 300), qPrintable(m_slurm.logs()));
        for (const char *app : {"box_blur", "conv_relu"}) {
            const fs::path name = std::string(app) + ".weights";
            QVERIFY(fs::exists(local / name) && fs::exists(slurm / name));
            QVERIFY2(test::readFile(local / name) == test::readFile(slurm / name), app);
        }
        const JsonParseResult table = parseJson(test::readFile(slurm / "hold-one-out.json"));
        QVERIFY(table.value);
        QVERIFY(test::readFile(slurm / "hold-one-out.txt").find("conv_relu") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "test_slurm.moc"
