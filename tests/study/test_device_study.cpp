// beamscope-cli device-study --quick end to end on this machine's device (PoCL
// where there is no GPU): two apps looped, random pipelines sampled, both
// hold-one-out fine-tunes trained, both picks timed, the report written and
// read back; then a rerun that resumes without measuring anything again, and
// a rerun with other parameters that is refused and changes nothing.

#include "core/study/study_report.h"
#include "core/util/atomic_file.h"
#include "tests/support/test_data.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace beamscope;
namespace fs = std::filesystem;

class DeviceStudyTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void quickStudyRunsEveryStageAndResumes()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path out = fs::path(tmp.path().toStdString()) / "study";
        const std::vector<std::string> args = {"device-study", "--out", out.string(), "--quick", "--jobs", "2"};
        const test::ProcessResult first = test::runProcess(test::cliPath(), args);
        QVERIFY2(first.exitCode == 0, first.err.c_str());

        std::string error;
        const std::optional<study::StudyReport> report = study::readStudyReport(out, error);
        QVERIFY2(report, error.c_str());
        QCOMPARE(report->apps.size(), size_t(2));
        QCOMPARE(report->apps[0].app, std::string("unsharp"));
        for (const study::AppResult &a : report->apps) {
            // The loop: two batches, each with its pick and the out-of-sample figures of its weights.
            QCOMPARE(a.loop.size(), size_t(2));
            for (const study::LoopBatch &b : a.loop) {
                QVERIFY(!b.measuredMs.empty());
                QCOMPARE(b.predicted.size(), b.measuredMs.size());
                QCOMPARE(b.outOfSample.schedules, b.measuredMs.size());
            }
            QVERIFY(std::isfinite(a.loopBestMs) && a.loopBestMs > 0);
            // The fine-tune trained on the other app and the random pipeline, never on this one.
            QVERIFY2(fs::exists(out / "tuned" / (a.app + ".weights")), a.app.c_str());
            QVERIFY(a.fineTuneSchedules > 0);
            // Both picks: timed in three interleaved rounds, or a failure named.
            for (const study::PickResult *p : {&a.v100, &a.tuned}) {
                if (p->error.empty()) {
                    QCOMPARE(p->roundsMs.size(), size_t(3));
                    QVERIFY(p->runtime.medianMs > 0);
                    QVERIFY(std::isfinite(p->predictedCost));
                } else {
                    QVERIFY(!p->error.empty());
                }
            }
            // Both files judged on the app's own samples.
            QVERIFY(a.v100Ranks.schedules > 0);
            QCOMPARE(a.tunedRanks.schedules, a.v100Ranks.schedules);
        }
        int generated = 0;
        for (const auto &[status, n] : report->scheduleCounts)
            generated += n;
        // Two apps × two batches × 4, and one random pipeline × 4.
        QCOMPARE(generated, 2 * 2 * 4 + 4);
        QVERIFY(report->command.find("--quick") != std::string::npos);
        for (const char *plot : {"picks.svg", "ranks.svg", "loop.svg"})
            QVERIFY2(fs::file_size(out / "plots" / plot) > 500, plot);
        const std::string markdown = test::readFile(out / "report.md");
        QVERIFY(markdown.find("| unsharp | ") != std::string::npos);
        QVERIFY(markdown.find("| iir_blur | ") != std::string::npos);

        // A rerun finds every stage done: nothing is measured or trained again.
        const auto tunedTime = fs::last_write_time(out / "tuned" / "unsharp.weights");
        const std::string picks = test::readFile(out / "picks" / "unsharp.json");
        const test::ProcessResult again = test::runProcess(test::cliPath(), args);
        QVERIFY2(again.exitCode == 0, again.err.c_str());
        QVERIFY2(again.err.find("done (0 schedule(s) this run)") != std::string::npos, again.err.c_str());
        QVERIFY(again.err.find("fine-tuning") == std::string::npos);
        QCOMPARE(fs::last_write_time(out / "tuned" / "unsharp.weights"), tunedTime);
        QCOMPARE(test::readFile(out / "picks" / "unsharp.json"), picks);
        const std::optional<study::StudyReport> reread = study::readStudyReport(out, error);
        QVERIFY2(reread, error.c_str());
        QCOMPARE(reread->geomeanSpeedup.ratio, report->geomeanSpeedup.ratio);

        // Other parameters on the same folder: refused, naming the parameter; nothing changes.
        const std::string parameters = test::readFile(out / "study.json");
        std::vector<std::string> other = args;
        other.insert(other.end(), {"--seed", "7"});
        const test::ProcessResult refused = test::runProcess(test::cliPath(), other);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.find("seed = 0") != std::string::npos, refused.err.c_str());
        QCOMPARE(test::readFile(out / "study.json"), parameters);
    }

    void unknownAppIsRefusedBeforeAnythingIsWritten()
    {
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "study";
        const test::ProcessResult r =
            test::runProcess(test::cliPath(), {"device-study", "--out", out.string(), "--app", "box_blur"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find("--app box_blur") != std::string::npos, r.err.c_str());
        QVERIFY(!fs::exists(out));
    }

    void aReportThatIsNotOneSaysSo()
    {
        QTemporaryDir tmp;
        const fs::path folder(tmp.path().toStdString());
        std::string error;
        QVERIFY(!study::readStudyReport(folder, error));
        QVERIFY2(error.find("report.json") != std::string::npos, error.c_str());
        test::writeFile(folder / "report.json", "{\"format\": \"beamscope-run\"}");
        QVERIFY(!study::readStudyReport(folder, error));
        QVERIFY2(error.find("'format'") != std::string::npos, error.c_str());
    }
};

QTEST_GUILESS_MAIN(DeviceStudyTest)
#include "test_device_study.moc"
