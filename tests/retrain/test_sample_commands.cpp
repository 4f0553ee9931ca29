// beamscope-cli predict and retrain, run as a user would: exit codes, JSON
// shape, files written (and not written), hold-one-out outputs, and Halide's
// own predictions (tests/fixtures/halide/samples).

#include "core/samples/sample.h"
#include "core/samples/training_loop.h"
#include "core/util/json.h"
#include "core/weights/weights.h"
#include "tests/retrain/hidden_world.h"
#include "tests/support/test_data.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <sstream>

using namespace beamscope;
namespace fs = std::filesystem;

namespace {

test::ProcessResult cli(const std::vector<std::string> &args) { return test::runProcess(test::cliPath(), args); }

Json parse(const std::string &text)
{
    auto parsed = parseJson(text);
    if (!parsed.value)
        throw std::runtime_error("not JSON: " + parsed.error);
    return *parsed.value;
}

struct Campaign {
    QTemporaryDir tmp;
    fs::path root;
    fs::path samples;
    fs::path initial;
};

// Four apps × one pipeline × 12 schedules from a hidden model, plus a random
// starting weights file.
void makeCampaign(Campaign &c)
{
    c.root = c.tmp.path().toStdString();
    c.samples = c.root / "samples";
    test::writeHiddenWorld(c.samples, samples::randomWeights(77), {4, 12, 2, 21, 80});
    c.initial = c.root / "initial.weights";
    QVERIFY(weights::saveWeightsFile(samples::randomWeights(3), c.initial, Overwrite::Refuse).ok);
}

} // namespace

class SampleCommandsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void predictJsonShape()
    {
        Campaign c;
        makeCampaign(c);
        // A broken sample is reported as skipped, not fatal.
        test::writeFile(c.samples / "app0" / "broken.sample", std::string(100, '\0'));
        const auto r = cli({"predict", "--weights", c.initial.string(), "--samples", c.samples.string(), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const Json doc = parse(r.out);
        QCOMPARE(doc.find("weights")->toString(), c.initial.string());
        QCOMPARE(doc.find("num_cores")->toInt(), int64_t{80});
        const auto &samplesJson = doc.find("samples")->items();
        QCOMPARE(samplesJson.size(), size_t{48});
        for (const auto &s : samplesJson) {
            for (const char *key : {"file", "pipeline_id", "schedule_id", "runtime_ms", "prediction", "stage_costs"})
                QVERIFY2(s.find(key), key);
            QCOMPARE(s.find("stage_costs")->size(), size_t{2});
            // The prediction is the sum of the stage costs (float sum; 1e-5 relative covers its rounding).
            const double sum =
                s.find("stage_costs")->items()[0].toNumber() + s.find("stage_costs")->items()[1].toNumber();
            const double prediction = s.find("prediction")->toNumber();
            QVERIFY(std::abs(sum - prediction) <= 1e-5 * std::abs(prediction) + 1e-12);
        }
        const auto &pipelines = doc.find("pipelines")->items();
        QCOMPARE(pipelines.size(), size_t{4});
        for (const auto &p : pipelines) {
            for (const char *key : {"pipeline_id", "count", "spearman", "kendall", "pairwise_accuracy"})
                QVERIFY2(p.find(key), key);
            QCOMPARE(p.find("count")->toInt(), int64_t{12});
            QVERIFY(p.find("spearman")->toNumber() >= -1 && p.find("spearman")->toNumber() <= 1);
        }
        const auto &skipped = doc.find("skipped")->items();
        QCOMPARE(skipped.size(), size_t{1});
        QVERIFY(skipped[0].find("file")->toString().find("broken.sample") != std::string::npos);
        QVERIFY(skipped[0].find("reason")->toString().find("size 100 bytes") != std::string::npos);

        // The human form is a table with a header.
        const auto human =
            cli({"predict", "--weights", c.initial.string(), "--samples", c.samples.string(), "--num-cores", "32"});
        QCOMPARE(human.exitCode, 0);
        QVERIFY(human.out.find("pairwise_acc") != std::string::npos);
        QVERIFY(human.out.find("num_cores 32") != std::string::npos);
    }

    void predictExitCodes()
    {
        Campaign c;
        makeCampaign(c);
        QCOMPARE(cli({"predict", "--samples", c.samples.string()}).exitCode, 2);
        QCOMPARE(cli({"predict", "--weights", c.initial.string()}).exitCode, 2);
        QCOMPARE(cli({"predict", "--weights", c.initial.string(), "--samples", c.samples.string(), "--num-cores", "x"})
                     .exitCode,
                 2);
        QCOMPARE(cli({"predict", "--weights", c.initial.string(), "--samples", c.samples.string(), "--bogus"}).exitCode,
                 2);
        const auto missing = cli({"predict", "--weights", c.initial.string(), "--samples", (c.root / "nope").string()});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.find("nope") != std::string::npos);
        test::writeFile(c.root / "bad.weights", "not weights");
        const auto badWeights =
            cli({"predict", "--weights", (c.root / "bad.weights").string(), "--samples", c.samples.string()});
        QCOMPARE(badWeights.exitCode, 1);
        QVERIFY(badWeights.err.find("bad.weights") != std::string::npos);
        fs::create_directories(c.root / "empty");
        QCOMPARE(cli({"predict", "--weights", c.initial.string(), "--samples", (c.root / "empty").string()}).exitCode,
                 1);
    }

    void predictMatchesHalide()
    {
        // Halide's retrain tool in predict-only mode on the golden retrain set,
        // with num_cores effectively 32 (its --num_cores is ignored).
        BEAMSCOPE_REQUIRE_DATA(golden, "tests/fixtures/halide/samples");
        BEAMSCOPE_REQUIRE_DATA(baseline, "weights/anderson2021/baseline.weights");
        const auto r = cli({"predict", "--weights", baseline.string(), "--samples", (golden / "retrain_set").string(),
                            "--num-cores", "32", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const Json doc = parse(r.out);
        std::istringstream expected(test::readFile(golden / "retrain_outputs/predictions_baseline.txt"));
        const auto &items = doc.find("samples")->items();
        size_t i = 0;
        for (std::string line; std::getline(expected, line); ++i) {
            QVERIFY(i < items.size());
            std::istringstream fields(line);
            std::string file, prediction, runtime;
            std::getline(fields, file, ',');
            std::getline(fields, prediction, ',');
            std::getline(fields, runtime, ',');
            QCOMPARE(fs::path(items[i].find("file")->toString()).filename().string(), file);
            // Halide printed 6 significant digits (5e-6 relative) and its compiled
            // model differs by up to 1.5e-5 relative across CPUs: allow 3e-5.
            const double want = std::stod(prediction), got = items[i].find("prediction")->toNumber();
            QVERIFY2(std::abs(got - want) <= 3e-5 * std::abs(want), qPrintable(QString::fromStdString(file)));
            QVERIFY(std::abs(items[i].find("runtime_ms")->toNumber() - std::stod(runtime)) <=
                    1e-5 * std::stod(runtime));
        }
        QCOMPARE(i, items.size());
    }

    void retrainMatchesHalide()
    {
        // anderson2021_retrain_cost_model on one pipeline's 12 golden samples (one
        // batch), 3 epochs at lr 0.001 from baseline, num_cores effectively 32:
        // the whole command (grouping, batch order, reference, timesteps) must
        // land on Halide's weights. Tolerance 1e-5 of each tensor's largest
        // magnitude: the model's own golden training check (tests/model) shows
        // float-order differences of that size against Halide's compiled model.
        BEAMSCOPE_REQUIRE_DATA(golden, "tests/fixtures/halide/samples");
        BEAMSCOPE_REQUIRE_DATA(baseline, "weights/anderson2021/baseline.weights");
        QTemporaryDir tmp;
        for (const std::string pipeline : {"box_blur", "conv_relu"}) {
            std::vector<std::string> args{
                "retrain",     "--initial", baseline.string(), "--epochs", "3", "--learning-rate", "0.001",
                "--num-cores", "32",        "--seed",          "1"};
            const fs::path out = fs::path(tmp.path().toStdString()) / (pipeline + ".weights");
            const fs::path csv = fs::path(tmp.path().toStdString()) / (pipeline + ".csv");
            args.insert(args.end(), {"--out", out.string(), "--loss-csv", csv.string(), "--samples"});
            for (const auto &entry : fs::directory_iterator(golden / "retrain_set"))
                if (entry.path().filename().string().rfind(pipeline + "_", 0) == 0)
                    args.push_back(entry.path().string());
            QCOMPARE(args.size(), size_t{16 + 12}); // 12 sample files
            const auto r = cli(args);
            QVERIFY2(r.exitCode == 0, r.err.c_str());
            const auto ours = weights::loadWeights(out);
            const auto halide = weights::loadWeights(golden / "retrain_outputs" /
                                                     ("retrained_" + pipeline + "_3epochs_lr0.001.weights"));
            QVERIFY(ours.ok() && halide.ok());
            double worst = 0;
            for (int t = 0; t < weights::kTensorCount; ++t) {
                const auto &a = ours.weights->tensors[static_cast<size_t>(t)].data;
                const auto &b = halide.weights->tensors[static_cast<size_t>(t)].data;
                QCOMPARE(a.size(), b.size());
                double scale = 0;
                for (float v : b)
                    scale = std::max(scale, std::abs(static_cast<double>(v)));
                for (size_t i = 0; i < a.size(); ++i)
                    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]) / scale);
            }
            qInfo("retrain %s vs Halide: worst weight difference %.3g of the tensor's max", pipeline.c_str(), worst);
            QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));

            // Halide printed each epoch's loss ("Loss: 0.6094 ...") with 4
            // decimals: allow half a unit of the last digit plus 5e-5.
            std::istringstream stdoutText(
                test::readFile(golden / "retrain_outputs" / ("retrain_" + pipeline + "_stdout.txt")));
            std::vector<double> halideLoss;
            for (std::string line; std::getline(stdoutText, line);)
                if (line.rfind("Loss: ", 0) == 0)
                    halideLoss.push_back(std::stod(line.substr(6)));
            QCOMPARE(halideLoss.size(), size_t{3});
            std::istringstream rows(test::readFile(csv));
            std::string row;
            std::getline(rows, row); // header
            std::getline(rows, row); // epoch 0: the starting weights
            for (double want : halideLoss) {
                QVERIFY(std::getline(rows, row));
                std::istringstream fields(row);
                std::string epoch, loss;
                std::getline(fields, epoch, ',');
                std::getline(fields, loss, ',');
                QVERIFY2(std::abs(std::stod(loss) - want) <= 1e-4, row.c_str());
            }
        }
    }

    void retrainWritesWeightsAndCsv()
    {
        Campaign c;
        makeCampaign(c);
        const fs::path out = c.root / "trained.weights", csv = c.root / "loss.csv";
        const auto r =
            cli({"retrain", "--samples", c.samples.string(), "--initial", c.initial.string(), "--out", out.string(),
                 "--epochs", "3", "--learning-rate", "0.001", "--seed", "4", "--loss-csv", csv.string()});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        QVERIFY(r.err.find("epoch 3:") != std::string::npos); // progress on stderr
        const auto loaded = weights::loadWeights(out);
        QVERIFY(loaded.ok());
        QCOMPARE(loaded.weights->pipelineFeaturesVersion, 3u);
        QCOMPARE(loaded.weights->scheduleFeaturesVersion, 3u);
        QVERIFY(!fs::exists(samples::checkpointPathFor(out))); // removed once the output is written
        std::istringstream lines(test::readFile(csv));
        std::vector<std::string> rows;
        for (std::string line; std::getline(lines, line);)
            rows.push_back(line);
        QCOMPARE(rows.size(), size_t{5}); // header + epochs 0..3
        QVERIFY(rows[0].rfind("epoch,training_loss,validation_loss", 0) == 0);
        QVERIFY(rows[4].rfind("3,", 0) == 0);

        // Same seed, same bytes.
        const fs::path again = c.root / "again.weights";
        QCOMPARE(cli({"retrain", "--samples", c.samples.string(), "--initial", c.initial.string(), "--out",
                      again.string(), "--epochs", "3", "--learning-rate", "0.001", "--seed", "4"})
                     .exitCode,
                 0);
        QVERIFY(test::readFile(out) == test::readFile(again));

        // An existing output is not replaced without --force, and is left as it was.
        const auto before = test::readFile(out);
        const auto refused = cli({"retrain", "--samples", c.samples.string(), "--initial", c.initial.string(), "--out",
                                  out.string(), "--seed", "9"});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY(refused.err.find("already exists") != std::string::npos);
        QVERIFY(test::readFile(out) == before);
        QCOMPARE(cli({"retrain", "--samples", c.samples.string(), "--initial", c.initial.string(), "--out",
                      out.string(), "--seed", "9", "--force"})
                     .exitCode,
                 0);
        QVERIFY(test::readFile(out) != before);
    }

    void retrainUsageAndInputErrors()
    {
        Campaign c;
        makeCampaign(c);
        const std::string out = (c.root / "x.weights").string();
        // No silent random weights: a starting point is required.
        const auto noInit = cli({"retrain", "--samples", c.samples.string(), "--out", out});
        QCOMPARE(noInit.exitCode, 2);
        QVERIFY(noInit.err.find("--initial") != std::string::npos);
        QCOMPARE(cli({"retrain", "--samples", c.samples.string(), "--init", "random", "--out", out}).exitCode, 2);
        QCOMPARE(
            cli({"retrain", "--samples", c.samples.string(), "--init", "zeros", "--seed", "1", "--out", out}).exitCode,
            2);
        QCOMPARE(cli({"retrain", "--samples", c.samples.string(), "--initial", c.initial.string()}).exitCode, 2);
        QCOMPARE(cli({"retrain", "--samples", c.samples.string(), "--initial", c.initial.string(), "--out", out,
                      "--epochs", "0"})
                     .exitCode,
                 2);
        const auto unknownApp = cli({"retrain", "--samples", c.samples.string(), "--initial", c.initial.string(),
                                     "--out", out, "--hold-out", "nosuchapp"});
        QCOMPARE(unknownApp.exitCode, 1);
        QVERIFY(unknownApp.err.find("app0") != std::string::npos); // lists the apps there are
        const auto tooFew = cli({"retrain", "--samples", c.samples.string(), "--initial", c.initial.string(), "--out",
                                 out, "--min-batch", "13"});
        QCOMPARE(tooFew.exitCode, 1);
        QVERIFY(tooFew.err.find("no training batch") != std::string::npos);
        QVERIFY(!fs::exists(out));
        // Random initialisation with an explicit seed works.
        const auto random = cli({"retrain", "--samples", c.samples.string(), "--init", "random", "--seed", "3", "--out",
                                 out, "--hold-out", "app1", "--json"});
        QVERIFY2(random.exitCode == 0, random.err.c_str());
        const Json doc = parse(random.out);
        QCOMPARE(doc.find("hold_out")->toString(), std::string("app1"));
        QCOMPARE(doc.find("validation_pipelines")->toInt(), int64_t{1});
        QCOMPARE(doc.find("history")->size(), size_t{2});
    }

    void resumeFromACheckpoint()
    {
        Campaign c;
        makeCampaign(c);
        const fs::path out = c.root / "r.weights", full = c.root / "full.weights";
        const auto checkpoint = samples::checkpointPathFor(out);
        auto args = [&](const fs::path &o) {
            return std::vector<std::string>{
                "retrain",  "--samples", c.samples.string(), "--initial", c.initial.string(), "--out", o.string(),
                "--epochs", "4",         "--learning-rate",  "0.001",     "--seed",           "2"};
        };
        QCOMPARE(cli(args(full)).exitCode, 0);

        // What a run interrupted after epoch 2 leaves: the same training
        // through the library, stopped there, with its checkpoint.
        auto loaded = samples::loadSamples({c.samples});
        const auto split = samples::splitLikeHalide(loaded.dataset);
        samples::TrainingOptions options;
        options.epochs = 2;
        options.learningRate = 0.001f;
        options.seed = 2;
        options.checkpointPath = checkpoint;
        const auto initial = weights::loadWeights(c.initial);
        QVERIFY(initial.ok());
        QVERIFY(samples::trainModel(*initial.weights, split.training, split.validation, options).ok());
        QVERIFY(fs::exists(checkpoint));

        // Without --resume the checkpoint is refused; with it the run ends
        // exactly where the uninterrupted one did.
        const auto refused = cli(args(out));
        QCOMPARE(refused.exitCode, 1);
        QVERIFY(refused.err.find("--resume") != std::string::npos);
        auto resume = args(out);
        resume.push_back("--resume");
        const auto resumed = cli(resume);
        QVERIFY2(resumed.exitCode == 0, resumed.err.c_str());
        QVERIFY(resumed.err.find("resumed after epoch 2") != std::string::npos);
        QVERIFY(test::readFile(out) == test::readFile(full));
        QVERIFY(!fs::exists(checkpoint));

        // A damaged checkpoint is an error naming it; no checkpoint is a note.
        fs::remove(out);
        test::writeFile(checkpoint, "garbage");
        const auto damaged = cli(resume);
        QCOMPARE(damaged.exitCode, 1);
        QVERIFY(damaged.err.find(checkpoint.string()) != std::string::npos);
        QVERIFY(!fs::exists(out));
        fs::remove(checkpoint);
        const auto fresh = cli(resume);
        QVERIFY2(fresh.exitCode == 0, fresh.err.c_str());
        QVERIFY(fresh.err.find("no checkpoint") != std::string::npos);
    }

    void holdOneOut()
    {
        Campaign c;
        makeCampaign(c);
        const fs::path dir = c.root / "holdout";
        const auto r =
            cli({"retrain", "--hold-one-out", "--samples", c.samples.string(), "--initial", c.initial.string(),
                 "--out-dir", dir.string(), "--epochs", "2", "--learning-rate", "0.001", "--seed", "1"});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        for (int k = 0; k < 4; ++k) {
            const auto path = dir / ("app" + std::to_string(k) + ".weights");
            QVERIFY2(weights::loadWeights(path).ok(), path.c_str());
            QVERIFY(!fs::exists(samples::checkpointPathFor(path)));
        }
        QVERIFY(r.out.find("app3") != std::string::npos);
        const Json doc = parse(test::readFile(dir / "holdout.json"));
        const auto &apps = doc.find("apps")->items();
        QCOMPARE(apps.size(), size_t{4});
        for (const auto &app : apps) {
            QCOMPARE(app.find("pipelines")->toInt(), int64_t{1});
            QCOMPARE(app.find("schedules")->toInt(), int64_t{12});
            for (const char *when : {"before", "after"})
                for (const char *key : {"spearman", "kendall", "pairwise_accuracy"})
                    QVERIFY2(app.find(when)->find(key)->isNumber(), key);
        }
        // A second run refuses to overwrite; --resume re-evaluates the finished apps.
        const std::vector<std::string> again{"retrain",         "--hold-one-out",
                                             "--samples",       c.samples.string(),
                                             "--initial",       c.initial.string(),
                                             "--out-dir",       dir.string(),
                                             "--epochs",        "2",
                                             "--learning-rate", "0.001",
                                             "--seed",          "1"};
        QCOMPARE(cli(again).exitCode, 1);
        auto resume = again;
        resume.push_back("--resume");
        QCOMPARE(cli(resume).exitCode, 0);
        // Samples without apps cannot be held out.
        QTemporaryDir flat;
        std::mt19937 rng(1);
        const auto pf = test::syntheticPipelineFeatures(1, 1);
        for (int j = 0; j < 10; ++j) {
            const auto bytes = samples::serializeSample(test::assembleSample(
                pf, test::syntheticScheduleFeatures(1, rng), 1, 1.0f + static_cast<float>(j), 1, j));
            test::writeFile(fs::path(flat.path().toStdString()) / ("s" + std::to_string(j) + ".sample"),
                            std::string(bytes.begin(), bytes.end()));
        }
        const auto noApps = cli({"retrain", "--hold-one-out", "--samples", flat.path().toStdString(), "--initial",
                                 c.initial.string(), "--out-dir", (c.root / "h2").string()});
        QCOMPARE(noApps.exitCode, 1);
        QVERIFY(noApps.err.find("docs/samples.md") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(SampleCommandsTest)
#include "test_sample_commands.moc"
