// Shipped weights known by their content (SHA-256 against weights/README.md's
// table), the defaults a pipeline gets, and in-sample scoring recognised.

#include "core/util/atomic_file.h"
#include "core/util/sha256.h"
#include "core/weights/shipped_weights.h"
#include "tests/support/test_data.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>

using namespace beamscope;
namespace fs = std::filesystem;

class ShippedIdentityTest : public QObject {
    Q_OBJECT

    fs::path shipped(const char *name) const { return weights::findShippedWeights(name).value_or(fs::path()); }

private Q_SLOTS:
    // A byte copy of Halide's baseline anywhere (Halide's own source tree, say) is the untrained
    // baseline; one changed byte makes it an unknown file.
    void copiesAreKnownByContent()
    {
        QTemporaryDir dir;
        const fs::path baseline = shipped("baseline");
        QVERIFY(!baseline.empty());
        const fs::path copy = fs::path(dir.path().toStdString()) / "my_baseline.weights";
        fs::copy_file(baseline, copy);
        const auto identified = weights::identifyShippedWeights(copy);
        QVERIFY(identified);
        QCOMPARE(identified->name, std::string("baseline"));
        QVERIFY(weights::isUntrainedShippedWeights(copy));
        QVERIFY(weights::describeShippedWeightsFor(copy, "harris").starts_with("untrained"));

        {
            std::fstream f(copy, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(1000);
            f.put('\x55');
        }
        QVERIFY(!weights::identifyShippedWeights(copy));
        QVERIFY(!weights::isUntrainedShippedWeights(copy));

        // Every shipped file is known as itself, and found again from its digest alone.
        for (const weights::ShippedWeights &w : weights::listShippedWeights()) {
            const auto known = weights::identifyShippedWeights(w.path);
            QVERIFY2(known, w.path.c_str());
            QCOMPARE(known->name, w.name);
            QCOMPARE(weights::shippedWeightsWithDigest(sha256FileHex(w.path).value()), std::optional(w.path));
        }
        QVERIFY(!weights::shippedWeightsWithDigest(sha256FileHex(copy).value())); // the changed copy
        QVERIFY(!weights::shippedWeightsWithDigest(""));
    }

    // One Halide app gets its own hold-one-out file; a pipeline no file was trained on gets a
    // trained per-app file; never an untrained one. The reason says which and why.
    void defaultsAreHoldOneOut()
    {
        const auto harris = weights::defaultWeightsFor({"harris"});
        QVERIFY(harris);
        QCOMPARE(harris->path, shipped("harris"));
        QVERIFY(harris->reason.find("hold-one-out file for harris") != std::string::npos);
        for (const std::string &app : weights::holdOneOutApps())
            QCOMPARE(weights::defaultWeightsFor({app})->path, shipped(app.c_str()));

        const auto other = weights::defaultWeightsFor({"box_blur"});
        QVERIFY(other);
        QVERIFY(weights::identifyShippedWeights(other->path)->holdOneOut);
        QVERIFY(other->reason.find("no shipped file was trained on these pipelines") != std::string::npos);

        // Two apps: a file trained without one of them, and the reason names the one it saw.
        const auto two = weights::defaultWeightsFor({"harris", "unsharp"});
        QVERIFY(two);
        const std::string name = weights::identifyShippedWeights(two->path)->name;
        QVERIFY(name == "harris" || name == "unsharp");
        QVERIFY(two->reason.find(name == "harris" ? "unsharp" : "harris") != std::string::npos);
        QVERIFY(!weights::isUntrainedShippedWeights(two->path));

        // The CLI's resolution takes the same default when it knows the pipeline.
        std::string error, note;
        const std::vector<std::string> pipelines{"camera_pipe"};
        QCOMPARE(weights::resolveWeightsArgument(std::nullopt, std::nullopt, error, &note, &pipelines),
                 shipped("camera_pipe"));
        QVERIFY(note.find("camera_pipe.weights") != std::string::npos);
    }

    // bgu.weights saw harris; harris.weights did not; a retrained file's record lists its apps.
    void inSampleIsRecognised()
    {
        QVERIFY(weights::trainedOnApp(shipped("bgu"), "harris"));
        QVERIFY(!weights::trainedOnApp(shipped("harris"), "harris"));
        QVERIFY(!weights::trainedOnApp(shipped("baseline"), "harris"));
        QVERIFY(!weights::trainedOnApp(shipped("bgu"), "box_blur")); // no shipped file saw it

        QTemporaryDir dir;
        const fs::path mine = fs::path(dir.path().toStdString()) / "mine.weights";
        fs::copy_file(shipped("bgu"), mine);
        const std::string record = R"({"trained_on_apps": ["box_blur"], "held_out_app": "conv_relu"})";
        QVERIFY(writeFileAtomically(weights::trainingRecordPath(mine), record, Overwrite::Refuse).ok);
        QVERIFY(weights::trainedOnApp(mine, "box_blur"));
        QVERIFY(!weights::trainedOnApp(mine, "conv_relu"));
        QVERIFY(!weights::trainedOnApp(mine, "harris")); // the record, not the content, speaks for it

        // E1: by content, whatever the folder layout named the pipeline (no app in a flat folder).
        const fs::path flat = fs::path(dir.path().toStdString()) / "flat.weights";
        fs::copy_file(shipped("bgu"), flat);
        const std::string byContent =
            R"({"trained_on_apps": ["box_blur"], "training_pipeline_hashes": [123, 18446744073709551615]})";
        QVERIFY(writeFileAtomically(weights::trainingRecordPath(flat), byContent, Overwrite::Refuse).ok);
        QVERIFY(weights::trainedOnPipeline(flat, "", 123));
        QVERIFY(weights::trainedOnPipeline(flat, "", 18446744073709551615ULL)); // exact above 2^63
        QVERIFY(!weights::trainedOnPipeline(flat, "", 124));
        QVERIFY(weights::trainedOnPipeline(flat, "box_blur", 7)); // by app, as before
        QVERIFY(!weights::trainedOnPipeline(mine, "", 123));      // a record without hashes
        QVERIFY(weights::trainedOnPipeline(shipped("bgu"), "harris", 0));
    }
};

QTEST_GUILESS_MAIN(ShippedIdentityTest)
#include "shipped_identity_test.moc"
