// The device study's figures and report without a device: medians and their
// intervals on timings made up with known answers, the report's JSON read back
// as written, its errors, its Markdown and its plots.

#include "core/study/loop_figures.h"
#include "core/study/runtime_interval.h"
#include "core/study/study_plots.h"
#include "core/study/study_report.h"

#include <QXmlStreamReader>
#include <QtTest>

#include <cmath>
#include <random>
#include <vector>

using namespace beamscope;
using namespace beamscope::study;

namespace {

// n timings around `centre` with multiplicative noise of about 5%.
std::vector<double> noisy(double centre, size_t n, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, 0.05);
    std::vector<double> out;
    for (size_t i = 0; i < n; i++)
        out.push_back(centre * std::exp(noise(rng)));
    return out;
}

StudyReport sampleReport()
{
    StudyReport r;
    r.device = "OpenCL: test device";
    r.command = "beamscope-cli device-study --out x";
    r.parameters = Json::object();
    r.parameters["batches"] = 2;
    for (const auto &[name, v100, tuned] :
         {std::tuple{"unsharp", 2.0, 1.0}, std::tuple{"harris", 3.0, 3.3}, std::tuple{"hist", 5.0, 5.0}}) {
        AppResult a;
        a.app = name;
        a.v100.weights = std::string(name) + ".weights";
        a.v100.roundsMs = noisy(v100, 12, 1);
        a.v100.runtime = medianWithInterval(a.v100.roundsMs);
        a.tuned.weights = "tuned/" + std::string(name) + ".weights";
        a.tuned.roundsMs = noisy(tuned, 12, 2);
        a.tuned.runtime = medianWithInterval(a.tuned.roundsMs);
        a.v100Ranks = {20, 0.1, 0.05, 0.0, 1.0};
        a.tunedRanks = {20, 0.6, 0.45, 1.0, 1.0};
        a.loopBestMs = tuned * 0.9;
        for (int b = 0; b < 2; b++) {
            LoopBatch batch;
            batch.batch = b;
            batch.pickMs = v100 / (1 + b);
            batch.bestSoFarMs = tuned;
            batch.outOfSample = {4, 0.4, 0.33, 1.0, 1.0};
            batch.predicted = {1, 2, 3, 4};
            batch.measuredMs = {1.5, 2.5, 3.5, 4.5};
            a.loop.push_back(batch);
        }
        r.apps.push_back(a);
    }
    r.failures.push_back({"random_3_6", 0, 4, "hang", "killed after 10 s"});
    r.scheduleCounts = {{"ok", 70}, {"hang", 1}};
    summarize(r);
    return r;
}

} // namespace

class StudyReportTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void loopBatchesReadARunBatchByBatch()
    {
        // Batch 0: the pick (index 0) runs 5 ms, the model orders the three measured schedules right;
        // a hang is left out. Batch 1: the pick runs 3 ms, and the model orders them backwards.
        std::vector<samples::ScheduleRecord> records;
        const auto add = [&](int batch, int index, double predicted, double ms, samples::Status status) {
            samples::ScheduleRecord r;
            r.pipeline = "unsharp";
            r.batch = batch;
            r.index = index;
            r.predictedCost = predicted;
            r.runtimeMs = ms;
            r.status = status;
            records.push_back(r);
        };
        add(1, 2, 1, 9, samples::Status::Ok);
        add(0, 0, 1, 5, samples::Status::Ok);
        add(0, 1, 2, 6, samples::Status::Ok);
        add(0, 2, 3, 7, samples::Status::Ok);
        add(0, 3, 0.5, 0, samples::Status::Hang);
        add(1, 0, 3, 3, samples::Status::Ok);
        add(1, 1, 2, 4, samples::Status::Ok);
        const std::vector<LoopBatch> loop = loopBatches(records);
        QCOMPARE(loop.size(), size_t(2));
        QCOMPARE(loop[0].pickMs, 5.0);
        QCOMPARE(loop[0].bestSoFarMs, 5.0);
        QCOMPARE(loop[0].outOfSample.schedules, size_t(3));
        QCOMPARE(loop[0].outOfSample.spearman, 1.0);
        QCOMPARE(loop[0].outOfSample.top1, 1.0);
        QCOMPARE(loop[1].pickMs, 3.0);
        QCOMPARE(loop[1].bestSoFarMs, 3.0);
        QCOMPARE(loop[1].outOfSample.spearman, -1.0);
        QCOMPARE(loop[1].outOfSample.top1, 0.0);
        QCOMPARE(loop[1].outOfSample.top5, 1.0);
        QCOMPARE(loop[1].predicted, (std::vector<double>{3, 2, 1}));
    }

    void medianOfOddAndEvenCounts()
    {
        QCOMPARE(median({3, 1, 2}), 2.0);
        QCOMPARE(median({4, 1, 3, 2}), 2.5);
        QVERIFY(std::isnan(median({})));
    }

    void medianIntervalHoldsTheCentre()
    {
        const std::vector<double> runs = noisy(10.0, 30, 7);
        const RuntimeEstimate e = medianWithInterval(runs);
        QCOMPARE(e.runs, size_t(30));
        QVERIFY(e.interval.defined());
        QVERIFY(e.interval.low <= e.medianMs && e.medianMs <= e.interval.high);
        // 5% noise over 30 runs: the median is known to a few percent.
        QVERIFY(e.interval.low > 9.5 && e.interval.high < 10.5);
        // Too few runs for an interval.
        QVERIFY(!medianWithInterval(std::vector<double>{1, 2}).interval.defined());
    }

    void ratioSeparatesATwofoldDifferenceAndNotNoise()
    {
        const std::vector<double> slow = noisy(2.0, 12, 1), fast = noisy(1.0, 12, 2), same = noisy(2.0, 12, 3);
        const RatioEstimate twice = ratioOfMedians({slow, fast});
        QVERIFY(std::abs(twice.ratio - 2.0) < 0.1);
        QVERIFY(twice.interval.defined() && twice.interval.low > 1.0);
        const RatioEstimate equal = ratioOfMedians({slow, same});
        QVERIFY(equal.interval.low < 1.0 && equal.interval.high > 1.0);
    }

    void geomeanOfReciprocalRatiosIsOne()
    {
        const std::vector<double> a = {2, 2, 2, 2}, b = {1, 1, 1, 1};
        const std::vector<PairedRounds> apps = {{a, b}, {b, a}};
        const RatioEstimate g = geomeanOfRatios(apps);
        QCOMPARE(g.ratio, 1.0);
        // Constant rounds: every resample gives the same geomean.
        QCOMPARE(g.interval.low, 1.0);
        QCOMPARE(g.interval.high, 1.0);
        const std::vector<PairedRounds> one = {{a, b}};
        QCOMPARE(geomeanOfRatios(one).ratio, 2.0);
    }

    void summaryUsesOnlyAppsWithBothPicks()
    {
        StudyReport r = sampleReport();
        QCOMPARE(r.appsMeasured, size_t(3));
        const double expected = std::cbrt(r.apps[0].speedup.ratio * r.apps[1].speedup.ratio * r.apps[2].speedup.ratio);
        QVERIFY(std::abs(r.geomeanSpeedup.ratio - expected) < 1e-12);
        r.apps[1].tuned.error = "crash: the worker died from signal 11";
        summarize(r);
        QCOMPARE(r.appsMeasured, size_t(2));
        QVERIFY(std::abs(r.geomeanSpeedup.ratio - std::sqrt(r.apps[0].speedup.ratio * r.apps[2].speedup.ratio)) <
                1e-12);
    }

    void jsonReadsBackAsWritten()
    {
        const StudyReport r = sampleReport();
        const std::string text = r.toJson().dump(2);
        const JsonParseResult parsed = parseJson(text);
        QVERIFY(parsed.value);
        std::string error;
        const std::optional<StudyReport> back = StudyReport::fromJson(*parsed.value, error);
        QVERIFY2(back, error.c_str());
        QCOMPARE(back->toJson().dump(2), text);
        QCOMPARE(back->apps.size(), size_t(3));
        QCOMPARE(back->apps[0].loop.size(), size_t(2));
        QCOMPARE(back->apps[0].v100.roundsMs, r.apps[0].v100.roundsMs);
        QCOMPARE(back->failures.front().status, std::string("hang"));
        QCOMPARE(back->geomeanSpeedup.ratio, r.geomeanSpeedup.ratio);
    }

    void jsonErrorsNameTheField()
    {
        std::string error;
        Json j = Json::object();
        j["format"] = "something-else";
        QVERIFY(!StudyReport::fromJson(j, error));
        QVERIFY2(error.find("'format'") != std::string::npos, error.c_str());
        j["format"] = "beamscope-device-study";
        Json apps = Json::array();
        apps.push(Json::object());
        j["apps"] = apps;
        QVERIFY(!StudyReport::fromJson(j, error));
        QVERIFY2(error.find("apps[0].app") != std::string::npos, error.c_str());
    }

    void markdownHasTheTableTheGeomeanAndTheFailures()
    {
        const StudyReport r = sampleReport();
        const std::string md = reportMarkdown(r);
        QVERIFY(md.find("| unsharp | ") != std::string::npos);
        QVERIFY(md.find("Geomean speedup of the fine-tuned picks") != std::string::npos);
        QVERIFY(md.find("random_3_6 batch 0 #4: hang") != std::string::npos);
        QVERIFY(md.find(r.command) != std::string::npos);
        QVERIFY(md.find("plots/picks.svg") != std::string::npos);
    }

    void reasonsSayWhatTheTablesShow()
    {
        StudyReport r = sampleReport();
        // unsharp: 2x with an interval above 1, and the fine-tune ordered its samples better.
        const std::string faster = speedupReason(r.apps[0]);
        QVERIFY2(faster.find("the fine-tuned pick is faster") != std::string::npos, faster.c_str());
        QVERIFY2(faster.find("Spearman 0.10 -> 0.60, 20 schedules") != std::string::npos, faster.c_str());
        // hist: the same runtime on both sides: the interval holds 1x.
        const std::string same = speedupReason(r.apps[2]);
        QVERIFY2(same.find("not told apart from 1x") != std::string::npos, same.c_str());
        r.apps[1].tuned.error = "hang: killed after 10 s";
        QVERIFY(speedupReason(r.apps[1]).find("no fine-tuned pick measured (hang") != std::string::npos);
        summarize(r);
        const std::string md = reportMarkdown(r);
        QVERIFY2(md.find("## Against the target of 1.2x") != std::string::npos, md.c_str());
        QVERIFY(md.find("- **harris** (–x): no fine-tuned pick measured") != std::string::npos);
    }

    void plotsAreWellFormedSvgWithABarPerApp()
    {
        const StudyReport r = sampleReport();
        for (const std::string &svg : {picksSvg(r), ranksSvg(r), loopSvg(r)}) {
            QXmlStreamReader xml(QString::fromStdString(svg));
            int rects = 0, texts = 0;
            while (!xml.atEnd()) {
                xml.readNext();
                if (xml.isStartElement() && xml.name() == QLatin1String("rect"))
                    ++rects;
                if (xml.isStartElement() && xml.name() == QLatin1String("text"))
                    ++texts;
            }
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            QVERIFY(rects >= 3 && texts >= 3);
        }
        // picks: the background and one bar per app.
        const std::string picks = picksSvg(r);
        size_t bars = 0;
        for (size_t at = picks.find("<rect"); at != std::string::npos; at = picks.find("<rect", at + 1))
            ++bars;
        QCOMPARE(bars, size_t(1 + 3));
    }
};

QTEST_GUILESS_MAIN(StudyReportTest)
#include "test_study_report.moc"
