// .sample files (layout, round trip, errors) and datasets (grouping, dedupe,
// skip reasons, Halide's validation split, batching, app layout), checked
// against Halide's own outputs in tests/fixtures/halide/samples and
// against the project's fixtures and generated samples always.

#include "core/samples/dataset.h"
#include "core/samples/feature_diff.h"
#include "core/samples/sample.h"
#include "tests/samples/synthetic_samples.h"
#include "tests/support/test_data.h"

#include <QTemporaryDir>
#include <QtTest>

#include <bit>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

using namespace beamscope;
using namespace beamscope::samples;
namespace fs = std::filesystem;

namespace {

std::vector<std::map<std::string, std::string>> readTsv(const fs::path &path)
{
    std::istringstream in(test::readFile(path));
    std::string line;
    std::getline(in, line);
    std::vector<std::string> header;
    {
        std::istringstream fields(line);
        for (std::string f; std::getline(fields, f, '\t');)
            header.push_back(f);
    }
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        std::istringstream fields(line);
        std::map<std::string, std::string> row;
        size_t i = 0;
        for (std::string f; std::getline(fields, f, '\t') && i < header.size(); ++i)
            row[header[i]] = f;
        rows.push_back(row);
    }
    return rows;
}

void writeBytes(const fs::path &path, const std::vector<char> &bytes)
{
    test::writeFile(path, std::string(bytes.begin(), bytes.end()));
}

Sample syntheticSample(int stages, uint32_t pipelineSeed, std::mt19937 &rng, float runtimeMs, int32_t pipelineId,
                       int32_t scheduleId)
{
    return test::assembleSample(test::syntheticPipelineFeatures(stages, pipelineSeed),
                                test::syntheticScheduleFeatures(stages, rng), stages, runtimeMs, pipelineId,
                                scheduleId);
}

// Finds a pipeline-feature seed whose pipeline hash has (hash & 7) == 0 or not.
uint32_t seedWithValidationBit(int stages, bool validation, uint32_t start)
{
    std::mt19937 rng(1);
    for (uint32_t seed = start;; ++seed) {
        const auto s = syntheticSample(stages, seed, rng, 1.0f, 0, 0);
        if (((pipelineHash(s) & 7) == 0) == validation)
            return seed;
    }
}

} // namespace

class SamplesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fixtureLayout()
    {
        // one_stage.sample was written by an independent Python script (see its README).
        const auto path = test::sourceDir() / "tests/fixtures/samples/one_stage.sample";
        const auto read = readSample(path);
        QVERIFY2(read.ok(), read.error.c_str());
        const Sample &s = *read.sample;
        QCOMPARE(s.stageCount(), 1);
        QCOMPARE(s.pipelineId, 7);
        QCOMPARE(s.scheduleId, -3);
        QCOMPARE(std::bit_cast<uint32_t>(s.runtimeMs), std::bit_cast<uint32_t>(1.1f));
        for (int i = 0; i < kScheduleFeatureCount; ++i)
            QCOMPARE(s.scheduleFeatures(0)[static_cast<size_t>(i)], 0.5f * static_cast<float>(i));
        for (int j = 0; j < kTypesInUseCount; ++j)
            QCOMPARE(s.typesInUse(0)[static_cast<size_t>(j)], 100.0f + static_cast<float>(j));
        QCOMPARE(s.pipelineFeature(0, 0, 0), 0.0f);
        QCOMPARE(s.pipelineFeature(0, 3, 5), 35.0f);
        QCOMPARE(s.pipelineFeature(0, 39, 6), 396.0f);
        // Hashes the README records (Python, same definition as Halide's hash_floats).
        QCOMPARE(scheduleHash(s), uint64_t{0x0180a2fe57dfafd2});
        QCOMPARE(pipelineHash(s), uint64_t{0x85092de4d1e80ca7});
        const auto bytes = serializeSample(s);
        QCOMPARE(std::string(bytes.begin(), bytes.end()), test::readFile(path));
    }

    void goldenRoundTripAndManifest()
    {
        BEAMSCOPE_REQUIRE_DATA(dir, "tests/fixtures/halide/samples");
        int checked = 0;
        for (const char *set : {"from_pipelines", "retrain_set"}) {
            for (const auto &row : readTsv(dir / set / "manifest.tsv")) {
                const auto path = dir / set / row.at("file");
                const auto bytes = test::readFile(path);
                const auto read = parseSample(std::span<const char>(bytes.data(), bytes.size()), path.string());
                QVERIFY2(read.ok(), read.error.c_str());
                const Sample &s = *read.sample;
                QCOMPARE(s.stageCount(), std::stoi(row.at("num_stages")));
                QCOMPARE(s.pipelineId, std::stoi(row.at("pipeline_id")));
                QCOMPARE(s.scheduleId, std::stoi(row.at("schedule_id")));
                const uint32_t bits = static_cast<uint32_t>(std::stoul(row.at("stored_runtime_bits"), nullptr, 16));
                QCOMPARE(std::bit_cast<uint32_t>(s.runtimeMs), bits);
                // featurization_to_sample's conversion of the seconds argument, bit for bit.
                QCOMPARE(std::bit_cast<uint32_t>(runtimeMsFromSeconds(std::stod(row.at("runtime_arg_seconds")))), bits);
                const auto out = serializeSample(s);
                QVERIFY(std::string(out.begin(), out.end()) == bytes);
                ++checked;
            }
        }
        QCOMPARE(checked, 36);
    }

    void pipelineNamesFromFileNames()
    {
        QCOMPARE(pipelineNameFromFile("a/box_blur_seed001.sample"), std::string("box_blur"));
        QCOMPARE(pipelineNameFromFile("conv_relu_beam32.sample"), std::string("conv_relu"));
        QCOMPARE(pipelineNameFromFile("stencil_chain_u16_beam1.sample"), std::string("stencil_chain_u16"));
        QCOMPARE(pipelineNameFromFile("harris_0042.sample"), std::string("harris"));
        QCOMPARE(pipelineNameFromFile("harris.sample"), std::string("harris"));
        QCOMPARE(pipelineNameFromFile("00000003.sample"), std::string()); // an autotune run's schedule id
    }

    void goldenGroupingAndScheduleOrder()
    {
        // Halide's predictions file lists each pipeline's schedules in the order
        // of its std::map keyed by schedule hash: our order must be the same.
        BEAMSCOPE_REQUIRE_DATA(dir, "tests/fixtures/halide/samples");
        const auto listing = listSamples({dir / "retrain_set"});
        QVERIFY(listing.ok());
        QCOMPARE(listing.files.size(), size_t{24});
        const auto dataset = buildDataset(listing.files);
        QVERIFY(dataset.skipped.empty());
        QCOMPARE(dataset.pipelines.size(), size_t{2});
        QCOMPARE(dataset.pipelines[0].pipelineId, 101);
        QCOMPARE(dataset.pipelines[1].pipelineId, 105);
        QCOMPARE(dataset.pipelines[0].stageCount, 2);
        QCOMPARE(dataset.pipelines[1].stageCount, 3);
        // A flat folder names no app; its file names name the pipelines (for display only).
        QVERIFY(dataset.pipelines[0].app.empty() && dataset.pipelines[1].app.empty());
        QCOMPARE(dataset.pipelines[0].displayName(), std::string("box_blur"));
        QCOMPARE(dataset.pipelines[1].displayName(), std::string("conv_relu"));

        std::istringstream predictions(test::readFile(dir / "retrain_outputs/predictions_baseline.txt"));
        std::vector<std::string> halideOrder;
        for (std::string line; std::getline(predictions, line);)
            if (!line.empty())
                halideOrder.push_back(line.substr(0, line.find(',')));
        std::vector<std::string> ours;
        for (const auto &pipeline : dataset.pipelines) {
            QCOMPARE(pipeline.schedules.size(), size_t{12});
            for (size_t i = 0; i + 1 < pipeline.schedules.size(); ++i)
                QVERIFY(pipeline.schedules[i].hash < pipeline.schedules[i + 1].hash);
            for (const auto &schedule : pipeline.schedules)
                ours.push_back(schedule.file.filename().string());
        }
        QCOMPARE(ours, halideOrder);

        // Halide's run put both pipelines in training and none in validation.
        const auto split = splitLikeHalide(dataset);
        QCOMPARE(split.training.size(), size_t{2});
        QVERIFY(split.validation.empty());
        // And it made one batch (12 > 8 schedules) per pipeline ("2 0 batches constructed").
        QCOMPARE(makeBatches(split.training).size(), size_t{2});
        QCOMPARE(makeBatches(split.training, {64, 13}).size(), size_t{0});

        // Best runtime: schedule 6 of box_blur (Halide: "Best runtime is 0.26342 msec").
        const auto &box = dataset.pipelines[0];
        QCOMPARE(box.schedules[box.fastestIndex()].scheduleId, 6);
    }

    void generatedRoundTripIsBitExact()
    {
        std::mt19937 rng(42);
        QTemporaryDir tmp;
        for (int stages : {1, 2, 5, 13}) {
            Sample s = syntheticSample(stages, 7, rng, 0.123f, -5, 123456);
            // Values that a float round trip through text or arithmetic would change.
            s.stages[3] = -0.0f;
            s.stages[4] = std::bit_cast<float>(0x7fc00123u); // NaN with a payload
            s.stages[5] = std::numeric_limits<float>::denorm_min();
            const fs::path path = fs::path(tmp.path().toStdString()) / ("s" + std::to_string(stages) + ".sample");
            QVERIFY(writeSample(s, path, Overwrite::Refuse).ok);
            QCOMPARE(fs::file_size(path), uintmax_t(1440u * static_cast<unsigned>(stages) + 12u));
            const auto back = readSample(path);
            QVERIFY2(back.ok(), back.error.c_str());
            QCOMPARE(back.sample->stageCount(), stages);
            QVERIFY(std::memcmp(back.sample->stages.data(), s.stages.data(), s.stages.size() * 4) == 0);
            QCOMPARE(back.sample->pipelineId, -5);
            QCOMPARE(back.sample->scheduleId, 123456);
            // Refuses to replace an existing file.
            const auto again = writeSample(s, path, Overwrite::Refuse);
            QVERIFY(!again.ok);
            QVERIFY(again.error.find(path.string()) != std::string::npos);
        }
    }

    void wrongSizesAreClearErrors()
    {
        std::mt19937 rng(3);
        const auto good = serializeSample(syntheticSample(2, 9, rng, 1.0f, 1, 1));
        for (size_t size : {size_t{0}, size_t{11}, size_t{12}, size_t{1451}, size_t{1453}, good.size() - 1,
                            good.size() - 4, good.size() + 4}) {
            std::vector<char> bytes(size, 0);
            std::copy_n(good.begin(), std::min(size, good.size()), bytes.begin());
            const auto r = parseSample(bytes, "dir/bad.sample");
            QVERIFY2(!r.ok(), qPrintable(QString::number(size)));
            QVERIFY2(r.error.find("dir/bad.sample") != std::string::npos, r.error.c_str());
            QVERIFY2(r.error.find("size " + std::to_string(size) + " bytes") != std::string::npos, r.error.c_str());
            QVERIFY2(r.error.find("1440") != std::string::npos && r.error.find("12") != std::string::npos,
                     r.error.c_str());
        }
        QVERIFY(parseSample(good, "ok.sample").ok());
        const auto missing = readSample("/nonexistent/x.sample");
        QVERIFY(!missing.ok());
        QVERIFY(missing.error.find("/nonexistent/x.sample") != std::string::npos);
    }

    // A generator's .featurization is a sample without its trailer; readFeatures takes either.
    void featurizationOrSampleByItsSize()
    {
        std::mt19937 rng(8);
        const Sample s = syntheticSample(3, 9, rng, 2.5f, 4, 17);
        const std::vector<char> sampleBytes = serializeSample(s);
        const std::vector<char> featureBytes(sampleBytes.begin(), sampleBytes.end() - kTrailerBytes);
        const auto asSample = parseFeatures(sampleBytes, "a.sample");
        QVERIFY2(asSample.ok(), asSample.error.c_str());
        QCOMPARE(asSample.sample->runtimeMs, 2.5f);
        QCOMPARE(asSample.sample->scheduleId, 17);
        const auto asFeatures = parseFeatures(featureBytes, "a.featurization");
        QVERIFY2(asFeatures.ok(), asFeatures.error.c_str());
        QCOMPARE(asFeatures.sample->stageCount(), 3);
        QVERIFY(asFeatures.sample->stages == s.stages);
        QCOMPARE(asFeatures.sample->scheduleId, 0);
        for (size_t size : {size_t{0}, size_t{12}, size_t{1441}, featureBytes.size() - 4}) {
            const std::vector<char> bytes(featureBytes.begin(), featureBytes.begin() + static_cast<ptrdiff_t>(size));
            const auto r = parseFeatures(bytes, "dir/bad.featurization");
            QVERIFY2(!r.ok(), qPrintable(QString::number(size)));
            QVERIFY2(r.error.find("dir/bad.featurization: size " + std::to_string(size) + " bytes") !=
                         std::string::npos,
                     r.error.c_str());
            QVERIFY2(r.error.find("1440·S (a .featurization)") != std::string::npos, r.error.c_str());
        }
        QVERIFY(!readFeatures("/nonexistent/x.featurization").ok());
    }

    void featureDiffNamesStagePartAndIndex()
    {
        std::mt19937 rng(11);
        const Sample a = syntheticSample(3, 5, rng, 1.0f, 1, 1);
        QVERIFY(diffFeatures(a, a, 0).differences.empty());
        Sample b = a;
        b.stages[1 * kStageFloats + 50] *= 1.5f;                                                // stage 1: num_blocks
        b.stages[2 * kStageFloats + kScheduleFeatureCount + 3] += 1;                            // stage 2: types_in_use
        b.stages[2 * kStageFloats + kScheduleFeatureCount + kTypesInUseCount + 7 * 4 + 2] += 2; // pipeline row 4
        b.stages[0 * kStageFloats + 10] *= 1.0f + 1e-7f; // within a tolerance of 1e-6, not of 0
        const FeatureDiff exact = diffFeatures(a, b, 0);
        QVERIFY(exact.ok());
        QCOMPARE(exact.differences.size(), size_t(4));
        const FeatureDiff diff = diffFeatures(a, b, 1e-6);
        QCOMPARE(diff.differences.size(), size_t(3));
        QCOMPARE(diff.differences[0].stage, 1);
        QCOMPARE(diff.differences[0].part, RecordPart::Schedule);
        QCOMPARE(diff.differences[0].index, 50);
        QCOMPARE(diff.differences[0].b, b.stages[1 * kStageFloats + 50]);
        QCOMPARE(diff.differences[1].part, RecordPart::TypesInUse);
        QCOMPARE(diff.differences[1].index, 3);
        QCOMPARE(diff.differences[2].stage, 2);
        QCOMPARE(diff.differences[2].part, RecordPart::Pipeline);
        QCOMPARE(diff.differences[2].index, 7 * 4 + 2);
        const FeatureDiff mismatch = diffFeatures(a, syntheticSample(2, 5, rng, 1.0f, 1, 1), 0);
        QVERIFY(!mismatch.ok());
        QVERIFY2(mismatch.error.find("3 against 2") != std::string::npos, mismatch.error.c_str());
    }

    void datasetDedupesAndSkipsWithReasons()
    {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        std::mt19937 rng(11);
        const auto pf = test::syntheticPipelineFeatures(2, 5);
        const auto sfA = test::syntheticScheduleFeatures(2, rng);
        const auto sfB = test::syntheticScheduleFeatures(2, rng);
        auto write = [&](const std::string &name, const Sample &s) { writeBytes(root / name, serializeSample(s)); };
        // Schedule A measured three times (fastest in the middle file), B once.
        write("a1.sample", test::assembleSample(pf, sfA, 2, 3.0f, 10, 1));
        write("a2.sample", test::assembleSample(pf, sfA, 2, 2.0f, 10, 2));
        write("a3.sample", test::assembleSample(pf, sfA, 2, 4.0f, 10, 3));
        write("b.sample", test::assembleSample(pf, sfB, 2, 5.0f, 10, 4));
        // Implausible ones.
        write("slow.sample", test::assembleSample(pf, sfB, 2, 100001.0f, 10, 5));
        write("zero_runtime.sample", test::assembleSample(pf, sfB, 2, 0.0f, 10, 6));
        auto negative = test::assembleSample(pf, sfB, 2, 1.0f, 10, 7);
        negative.stages[kStageFloats + 4] = -1.0f; // stage 1, feature 4
        write("negative.sample", negative);
        auto huge = test::assembleSample(pf, sfB, 2, 1.0f, 10, 8);
        huge.stages[7] = 2e14f;
        write("huge.sample", huge);
        auto nan = test::assembleSample(pf, sfB, 2, 1.0f, 10, 9);
        nan.stages[0] = std::nanf("");
        write("nan.sample", nan);
        auto truncated = serializeSample(test::assembleSample(pf, sfB, 2, 1.0f, 10, 10));
        truncated.resize(truncated.size() - 100);
        writeBytes(root / "truncated.sample", truncated);
        // Same pipeline id with a different stage count.
        write("stages.sample", test::assembleSample(test::syntheticPipelineFeatures(3, 5),
                                                    test::syntheticScheduleFeatures(3, rng), 3, 1.0f, 10, 11));
        // Another pipeline with a negative pipeline feature: kept, with a warning.
        auto pf2 = test::syntheticPipelineFeatures(1, 6);
        pf2[17] = -2.0f;
        write("p20.sample", test::assembleSample(pf2, test::syntheticScheduleFeatures(1, rng), 1, 1.5f, 20, 1));
        test::writeFile(root / "notes.txt", "not a sample");

        const auto listing = listSamples({root});
        QVERIFY(listing.ok());
        QCOMPARE(listing.files.size(), size_t{12}); // notes.txt ignored
        const auto dataset = buildDataset(listing.files);
        QCOMPARE(dataset.filesRead, size_t{12});
        QCOMPARE(dataset.samplesUsed, size_t{5});
        QCOMPARE(dataset.pipelines.size(), size_t{2});
        const auto *p10 = dataset.find(10);
        QVERIFY(p10);
        QCOMPARE(p10->schedules.size(), size_t{2});
        QCOMPARE(p10->runCount(), size_t{4});
        const auto &a = p10->schedules[0].hash == hashFloats(0, sfA) ? p10->schedules[0] : p10->schedules[1];
        QCOMPARE(a.hash, hashFloats(0, sfA));
        QCOMPARE(a.runtimesMs, (std::vector<float>{2.0f, 3.0f, 4.0f}));
        QCOMPARE(a.file.filename().string(), std::string("a2.sample"));
        QCOMPARE(a.scheduleId, 2);
        QCOMPARE(a.duplicates.size(), size_t{2});
        QCOMPARE(p10->schedules[p10->fastestIndex()].bestRuntimeMs(), 2.0f);

        std::map<std::string, std::string> reasons;
        for (const auto &skip : dataset.skipped)
            reasons[skip.file.filename().string()] = skip.reason;
        QCOMPARE(reasons.size(), size_t{7});
        auto expect = [&](const char *file, const char *needle) {
            QVERIFY2(reasons.count(file), file);
            QVERIFY2(reasons[file].find(needle) != std::string::npos, reasons[file].c_str());
        };
        expect("slow.sample", "100000 ms");
        expect("zero_runtime.sample", "not a positive");
        expect("negative.sample", "schedule feature 4 of stage 1 is -1");
        expect("huge.sample", "schedule feature 7 of stage 0");
        expect("nan.sample", "nan");
        expect("truncated.sample", "size 2792 bytes");
        expect("stages.sample", "has 2 stages");

        QCOMPARE(dataset.warnings.size(), size_t{1});
        QCOMPARE(dataset.warnings[0].file.filename().string(), std::string("p20.sample"));
        QVERIFY(dataset.warnings[0].message.find("-2") != std::string::npos);
    }

    void validationSplitFollowsHalide()
    {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        std::mt19937 rng(5);
        const uint32_t trainSeed = seedWithValidationBit(1, false, 100);
        const uint32_t validSeed = seedWithValidationBit(1, true, 100);
        auto writePipeline = [&](int32_t id, uint32_t seed, int count) {
            const auto pf = test::syntheticPipelineFeatures(1, seed);
            for (int k = 0; k < count; ++k)
                writeBytes(root / ("p" + std::to_string(id) + "_" + std::to_string(k) + ".sample"),
                           serializeSample(test::assembleSample(pf, test::syntheticScheduleFeatures(1, rng), 1,
                                                                1.0f + static_cast<float>(k), id, k)));
        };
        writePipeline(1, trainSeed, 20);
        writePipeline(2, validSeed, 10);
        auto dataset = buildDataset(listSamples({root}).files);
        QCOMPARE(dataset.pipelines.size(), size_t{2});
        QVERIFY((dataset.pipelines[0].pipelineHash & 7) != 0);
        QVERIFY((dataset.pipelines[1].pipelineHash & 7) == 0);
        auto split = splitLikeHalide(dataset);
        QVERIFY(!split.swapped);
        QCOMPARE(split.training.size(), size_t{1});
        QCOMPARE(split.training[0].pipelineId, 1);
        QCOMPARE(split.validation.size(), size_t{1});
        QCOMPARE(split.validation[0].pipelineId, 2);

        // Only validation pipelines: the sets are swapped, as Halide does.
        Dataset onlyValidation = dataset;
        onlyValidation.pipelines.erase(onlyValidation.pipelines.begin());
        split = splitLikeHalide(onlyValidation);
        QVERIFY(split.swapped);
        QCOMPARE(split.training.size(), size_t{1});
        QVERIFY(split.validation.empty());

        // By schedule: each schedule by its own hash, every schedule kept once.
        split = splitLikeHalide(dataset, SplitMode::BySchedule);
        size_t total = 0;
        for (const auto *set : {&split.training, &split.validation})
            for (const auto &p : *set)
                for (const auto &s : p.schedules) {
                    QCOMPARE((s.hash & 7) == 0, set == &split.validation);
                    ++total;
                }
        QCOMPARE(total, size_t{30});
    }

    void batchesFollowHalide()
    {
        std::vector<PipelineSet> set(4);
        set[0].schedules.resize(130); // 64 + 64 + 2 (too small)
        set[1].schedules.resize(8);   // too small: never trained on
        set[2].schedules.resize(9);   // the smallest batch Halide uses
        set[3].schedules.resize(73);  // 64 + 9
        const auto batches = makeBatches(set);
        std::vector<std::tuple<size_t, size_t, size_t>> got;
        for (const auto &b : batches)
            got.emplace_back(b.pipeline, b.first, b.size);
        const std::vector<std::tuple<size_t, size_t, size_t>> expected{
            {0, 0, 64}, {0, 64, 64}, {2, 0, 9}, {3, 0, 64}, {3, 64, 9}};
        QCOMPARE(got, expected);
        // Configurable minimum: 2 keeps everything but lone schedules.
        QCOMPARE(makeBatches(set, {64, 2}).size(), size_t{7});
        QCOMPARE(makeBatches(set, {10, 9}).size(), size_t{13 + 0 + 1 + 7});
    }

    void appLayoutAndHoldOut()
    {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        std::mt19937 rng(8);
        auto write = [&](const fs::path &rel, int32_t id, int k) {
            fs::create_directories((root / rel).parent_path());
            writeBytes(root / rel, serializeSample(test::assembleSample(
                                       test::syntheticPipelineFeatures(1, 30u + static_cast<uint32_t>(id)),
                                       test::syntheticScheduleFeatures(1, rng), 1, 1.0f, id, k)));
        };
        write("blur/a.sample", 1, 0);
        write("blur/deeper/b.sample", 1, 1);
        write("harris/c.sample", 2, 0);
        write("loose.sample", 3, 0);
        write("random/d.sample", 4, 0);
        // apps.tsv overrides the folder for pipeline 4 and names loose pipeline 3.
        test::writeFile(root / "apps.tsv", "# pipeline id -> app\n3\tunsharp\n4\tbilateral_grid  # comment\n");
        const auto listing = listSamples({root});
        QVERIFY(listing.ok());
        const auto dataset = buildDataset(listing.files);
        QCOMPARE(dataset.pipelines.size(), size_t{4});
        QCOMPARE(dataset.find(1)->app, std::string("blur"));
        QCOMPARE(dataset.find(1)->schedules.size(), size_t{2});
        QCOMPARE(dataset.find(2)->app, std::string("harris"));
        QCOMPARE(dataset.find(3)->app, std::string("unsharp"));
        QCOMPARE(dataset.find(4)->app, std::string("bilateral_grid"));
        QCOMPARE(dataset.apps(), (std::vector<std::string>{"bilateral_grid", "blur", "harris", "unsharp"}));

        const auto split = holdOutApp(dataset, "harris");
        QCOMPARE(split.validation.size(), size_t{1});
        QCOMPARE(split.validation[0].pipelineId, 2);
        QCOMPARE(split.training.size(), size_t{3});

        // Malformed apps.tsv: file and line named, nothing listed from that root.
        test::writeFile(root / "apps.tsv", "3\tunsharp\nfour\tx\n5 no tab\n");
        const auto bad = listSamples({root});
        QVERIFY(!bad.ok());
        QCOMPARE(bad.errors.size(), size_t{2});
        QVERIFY(bad.errors[0].find("apps.tsv:2: pipeline id") != std::string::npos);
        QVERIFY(bad.errors[1].find("apps.tsv:3:") != std::string::npos);
        QVERIFY(bad.files.empty());

        const auto missing = listSamples({root / "nope"});
        QVERIFY(!missing.ok());
        QVERIFY(missing.errors[0].find("nope") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(SamplesTest)
#include "test_samples.moc"
