// The hwf1 reader and writer and the legacy directory: round trips bit for bit,
// and one corrupted input per failure class with the diagnostic it must give.

#include "core/weights/weights.h"
#include "tests/support/test_data.h"
#include "tests/weights/qtest_std_string.h"
#include "tests/weights/synthetic_weights.h"

#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <limits>

using namespace beamscope;
using namespace beamscope::weights;
using beamscope::test::hwf1Bytes;
using beamscope::test::makeSyntheticWeights;

namespace {

LoadResult parse(const std::string &bytes, const std::string &name = "test.weights")
{
    return parseWeightsFile(std::span<const char>(bytes.data(), bytes.size()), name);
}

std::string serialized(const Weights &w)
{
    const auto bytes = serializeWeightsFile(w);
    return std::string(bytes.begin(), bytes.end());
}

void putU32(std::string &bytes, size_t offset, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        bytes[offset + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

std::filesystem::path tempPath(const QTemporaryDir &dir, const std::string &name)
{
    return std::filesystem::path(dir.path().toStdString()) / name;
}

// The single error of a result that must have failed, or a test failure.
const Diagnostic *onlyError(const LoadResult &result)
{
    int errors = 0;
    for (const auto &d : result.diagnostics)
        errors += d.severity == Severity::Error;
    if (result.ok() || errors != 1)
        return nullptr;
    return result.firstError();
}
const Diagnostic *onlyError(LoadResult &&) = delete; // the pointer would dangle

std::vector<std::filesystem::path> shippedFiles()
{
    std::vector<std::filesystem::path> files;
    for (const char *folder : {"weights/anderson2021", "weights/adams2019"}) {
        const auto dir = test::projectData(folder);
        if (!dir)
            continue;
        for (const auto &entry : std::filesystem::directory_iterator(*dir))
            if (entry.path().extension() == ".weights")
                files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

class WeightsFormatTest : public QObject {
    Q_OBJECT

private:
    // file -> Weights -> bytes, and file -> directory -> Weights -> bytes; both must equal the input.
    void checkRoundTrips(const std::string &bytes, Network network, const QTemporaryDir &tmp, const std::string &tag)
    {
        const LoadResult loaded = parse(bytes, tag);
        QVERIFY2(loaded.ok(), loaded.firstError() ? loaded.firstError()->format().c_str() : tag.c_str());
        QCOMPARE(loaded.weights->network, network);
        QVERIFY(loaded.diagnostics.empty());
        QCOMPARE(loaded.sizeBytes, static_cast<uint64_t>(bytes.size()));
        QCOMPARE(static_cast<uint64_t>(bytes.size()), fileSizeFor(network));
        QVERIFY(serialized(*loaded.weights) == bytes);

        const auto dir = tempPath(tmp, tag + ".dir");
        const auto written = saveWeightsDirectory(*loaded.weights, dir, Overwrite::Refuse);
        QVERIFY2(written.ok, written.error.c_str());
        // Each member is the raw float data of its buffer, cut straight out of the file.
        for (int i = 0; i < kTensorCount; i++) {
            const auto &spec = tensorSpecs(network)[i];
            const auto member = test::readFile(dir / spec.legacyFile);
            const uint64_t offset = tensorDataOffset(network, i);
            QVERIFY2(member == bytes.substr(offset, 4 * elementCount(spec.shape)), spec.legacyFile);
        }
        const LoadResult fromDir = loadWeightsDirectory(dir);
        QVERIFY(fromDir.ok());
        QCOMPARE(fromDir.form, Form::Directory);
        QCOMPARE(fromDir.weights->network, network);
        // The six members hold the data alone: no header, dimension counts or 10 extents.
        QCOMPARE(fromDir.sizeBytes, static_cast<uint64_t>(bytes.size()) - (16 + 4 * 6 + 4 * 10));
        QVERIFY(serialized(*fromDir.weights) == bytes);

        const auto file = tempPath(tmp, tag + ".again.weights");
        QVERIFY(saveWeightsFile(*fromDir.weights, file, Overwrite::Refuse).ok);
        QVERIFY(test::readFile(file) == bytes);
    }

private Q_SLOTS:
    void layoutConstants()
    {
        // Sizes from HALIDE-FACTS.md, against the test's own layout table.
        QCOMPARE(fileSizeFor(Network::Anderson2021), uint64_t(20400));
        QCOMPARE(fileSizeFor(Network::Adams2019), uint64_t(17136));
        for (uint32_t width : {73u, 39u}) {
            const auto synthetic = makeSyntheticWeights(width);
            const auto layout = test::hwf1Layout(synthetic);
            const Network network = width == 73 ? Network::Anderson2021 : Network::Adams2019;
            QCOMPARE(static_cast<uint64_t>(hwf1Bytes(synthetic).size()), fileSizeFor(network));
            int buffer = 0;
            for (const auto &field : layout)
                if (field.name.ends_with(" data"))
                    QCOMPARE(tensorDataOffset(network, buffer++), field.offset);
            QCOMPARE(buffer, kTensorCount);
        }
    }

    void shippedFilesRoundTrip()
    {
        BEAMSCOPE_REQUIRE_DATA(anderson, "weights/anderson2021");
        const auto files = shippedFiles();
        QCOMPARE(files.size(), size_t(19)); // 18 Anderson2021 + Adams2019's baseline
        QTemporaryDir tmp;
        for (const auto &path : files) {
            const std::string bytes = test::readFile(path);
            const Network network =
                path.parent_path().filename() == "adams2019" ? Network::Adams2019 : Network::Anderson2021;
            const LoadResult viaPath = loadWeights(path);
            QVERIFY(viaPath.ok());
            QCOMPARE(viaPath.weights->pipelineFeaturesVersion, 3u);
            QCOMPARE(viaPath.weights->scheduleFeaturesVersion, 3u);
            checkRoundTrips(bytes, network, tmp, path.parent_path().filename().string() + "-" + path.stem().string());
        }
    }

    void syntheticRoundTrip_data()
    {
        QTest::addColumn<uint32_t>("width");
        QTest::newRow("anderson2021") << 73u;
        QTest::newRow("adams2019") << 39u;
    }
    void syntheticRoundTrip()
    {
        QFETCH(uint32_t, width);
        const auto synthetic = makeSyntheticWeights(width);
        const std::string bytes = hwf1Bytes(synthetic);
        const LoadResult loaded = parse(bytes);
        QVERIFY(loaded.ok());
        // Values land in the right buffers, in Halide order (dimension 0 fastest).
        for (int i = 0; i < kTensorCount; i++) {
            const Tensor &t = loaded.weights->tensors[i];
            QCOMPARE(t.name, synthetic.buffers[i].name);
            QCOMPARE(t.shape, synthetic.buffers[i].extents);
            QVERIFY(t.data == synthetic.buffers[i].values);
        }
        QTemporaryDir tmp;
        checkRoundTrips(bytes, width == 73 ? Network::Anderson2021 : Network::Adams2019, tmp, QTest::currentDataTag());
    }

    void wrongSignature()
    {
        std::string bytes = hwf1Bytes(makeSyntheticWeights(73));
        bytes.replace(0, 4, std::string("PK\x03\x04", 4));
        const LoadResult r = parse(bytes, "zip.weights");
        const Diagnostic *d = onlyError(r);
        QVERIFY(d);
        QCOMPARE(d->kind, DiagnosticKind::Signature);
        QCOMPARE(d->path, std::string("zip.weights"));
        QCOMPARE(d->offset, std::optional<uint64_t>(0));
        QCOMPARE(d->field, std::string("signature"));
        QVERIFY2(d->found.find("50 4b 03 04") != std::string::npos, d->found.c_str());
        QVERIFY2(d->found.find("\"PK..\"") != std::string::npos, d->found.c_str());
        QVERIFY2(d->expected.find("31 66 77 68") != std::string::npos, d->expected.c_str());
        QVERIFY2(d->expected.find("\"1fwh\"") != std::string::npos, d->expected.c_str());
    }

    void unsupportedVersion_data()
    {
        QTest::addColumn<uint32_t>("width");
        QTest::addColumn<uint32_t>("pipeline");
        QTest::addColumn<uint32_t>("schedule");
        QTest::addColumn<uint64_t>("offset");
        QTest::newRow("anderson pipeline 4") << 73u << 4u << 3u << uint64_t(4);
        QTest::newRow("anderson schedule 2") << 73u << 3u << 2u << uint64_t(8);
        QTest::newRow("adams both 1") << 39u << 1u << 1u << uint64_t(4);
    }
    void unsupportedVersion()
    {
        QFETCH(uint32_t, width);
        QFETCH(uint32_t, pipeline);
        QFETCH(uint32_t, schedule);
        QFETCH(uint64_t, offset);
        auto synthetic = makeSyntheticWeights(width);
        synthetic.pipelineVersion = pipeline;
        synthetic.scheduleVersion = schedule;
        const LoadResult r = parse(hwf1Bytes(synthetic));
        const Diagnostic *d = onlyError(r);
        QVERIFY(d);
        QCOMPARE(d->kind, DiagnosticKind::Version);
        QCOMPARE(d->offset, std::optional<uint64_t>(offset));
        QCOMPARE(d->expected, std::string("3/3"));
        QCOMPARE(d->found, std::to_string(pipeline) + "/" + std::to_string(schedule));
        QVERIFY2(d->message.find("3/3 for anderson2021") != std::string::npos, d->message.c_str());
        QVERIFY2(d->message.find("3/3 for adams2019") != std::string::npos, d->message.c_str());
    }

    void bufferCountNotSix()
    {
        for (uint32_t count : {0u, 5u, 7u, 0xffffffffu}) {
            std::string bytes = hwf1Bytes(makeSyntheticWeights(73));
            putU32(bytes, 12, count);
            const LoadResult r = parse(bytes);
            const Diagnostic *d = onlyError(r);
            QVERIFY(d);
            QCOMPARE(d->kind, DiagnosticKind::BufferCount);
            QCOMPARE(d->offset, std::optional<uint64_t>(12));
            QCOMPARE(d->field, std::string("buffer count"));
            QCOMPARE(d->expected, std::string("6"));
            QCOMPARE(d->found, std::to_string(count));
        }
    }

    void dimensionCountMismatch()
    {
        const auto synthetic = makeSyntheticWeights(73);
        const auto layout = test::hwf1Layout(synthetic);
        for (const auto &field : layout) {
            if (!field.name.ends_with("dimension count"))
                continue;
            const int buffer = field.name[7] - '0';
            const uint32_t expected = static_cast<uint32_t>(synthetic.buffers[buffer].extents.size());
            std::string bytes = hwf1Bytes(synthetic);
            putU32(bytes, field.offset, expected + 1);
            const LoadResult r = parse(bytes);
            const Diagnostic *d = onlyError(r);
            QVERIFY2(d, field.name.c_str());
            QCOMPARE(d->kind, DiagnosticKind::DimensionCount);
            QCOMPARE(d->field, field.name);
            QCOMPARE(d->offset, std::optional<uint64_t>(field.offset));
            QVERIFY2(d->expected.starts_with(std::to_string(expected) + " ("), d->expected.c_str());
            QCOMPARE(d->found, std::to_string(expected + 1));
        }
    }

    void extentMismatch()
    {
        const auto synthetic = makeSyntheticWeights(73);
        const auto layout = test::hwf1Layout(synthetic);
        for (const auto &field : layout) {
            if (field.name.find(" extent ") == std::string::npos)
                continue;
            // Every extent, set to a wrong small value and to a huge one (no giant allocation may follow).
            for (uint32_t wrong : {5u, 0xfffffff0u}) {
                std::string bytes = hwf1Bytes(synthetic);
                putU32(bytes, field.offset, wrong);
                const LoadResult r = parse(bytes);
                const Diagnostic *d = onlyError(r);
                QVERIFY2(d, field.name.c_str());
                QCOMPARE(d->kind, DiagnosticKind::Extent);
                QCOMPARE(d->field, field.name);
                QCOMPARE(d->offset, std::optional<uint64_t>(field.offset));
                QCOMPARE(d->found, std::to_string(wrong));
                if (field.name == "buffer 2 (head2_filter) extent 1")
                    QCOMPARE(d->expected, std::string("73 (anderson2021) or 39 (adams2019)"));
                else
                    QCOMPARE(d->expected, std::to_string(test::makeSyntheticWeights(73)
                                                             .buffers[field.name[7] - '0']
                                                             .extents[field.name.back() - '0']));
            }
        }
    }

    void truncationAtEveryOffset_data()
    {
        QTest::addColumn<uint32_t>("width");
        QTest::newRow("anderson2021") << 73u;
        QTest::newRow("adams2019") << 39u;
    }
    void truncationAtEveryOffset()
    {
        QFETCH(uint32_t, width);
        const auto synthetic = makeSyntheticWeights(width);
        const std::string full = hwf1Bytes(synthetic);
        const auto layout = test::hwf1Layout(synthetic);
        size_t field = 0;
        for (size_t length = 0; length < full.size(); length++) {
            while (layout[field].offset + layout[field].size <= length)
                field++;
            const auto &expected = layout[field];
            // A copy of exactly `length` bytes, so a read past the end is caught by ASan.
            const std::vector<char> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(length));
            const LoadResult r = parseWeightsFile(cut, "cut.weights");
            const Diagnostic *d = onlyError(r);
            if (!d || d->kind != DiagnosticKind::Truncated || d->offset != expected.offset || d->field != expected.name)
                QFAIL(qPrintable(QStringLiteral("length %1: expected truncation in '%2' at offset %3, got %4")
                                     .arg(length)
                                     .arg(QString::fromStdString(expected.name))
                                     .arg(expected.offset)
                                     .arg(QString::fromStdString(d ? d->format() : "no single error"))));
            const uint64_t present = length - expected.offset, missing = expected.size - present;
            QCOMPARE(d->found, std::to_string(present) + (present == 1 ? " byte" : " bytes"));
            const std::string missingText =
                std::to_string(missing) + (missing == 1 ? " byte missing" : " bytes missing");
            QVERIFY2(d->message.find(missingText) != std::string::npos, d->message.c_str());
            QVERIFY2(d->message.find("ends at byte " + std::to_string(length)) != std::string::npos,
                     d->message.c_str());
        }
        QVERIFY(parse(full).ok());
    }

    void trailingBytes()
    {
        const std::string bytes = hwf1Bytes(makeSyntheticWeights(39)) + std::string(5, '\0');
        const LoadResult r = parse(bytes);
        const Diagnostic *d = onlyError(r);
        QVERIFY(d);
        QCOMPARE(d->kind, DiagnosticKind::TrailingBytes);
        QCOMPARE(d->offset, std::optional<uint64_t>(17136));
        QCOMPARE(d->found, std::string("5 more bytes"));
    }

    // A NaN or infinite weight is corruption: an error (review, Weights 5),
    // with the weights as read kept apart for views that point at the values.
    void nonFiniteValuesAreErrors()
    {
        auto synthetic = makeSyntheticWeights(73);
        // head2_filter is 24 x 73: flat 100 is (100 % 24, 100 / 24) = (4, 4).
        synthetic.buffers[2].values[100] = std::numeric_limits<float>::quiet_NaN();
        synthetic.buffers[2].values[102] = std::numeric_limits<float>::infinity();
        synthetic.buffers[2].values[500] = std::numeric_limits<float>::quiet_NaN();
        synthetic.buffers[5].values[3] = -std::numeric_limits<float>::infinity();
        const auto layout = test::hwf1Layout(synthetic);
        uint64_t head2Data = 0, conv1BiasData = 0;
        for (const auto &f : layout) {
            if (f.name == "buffer 2 (head2_filter) data")
                head2Data = f.offset;
            if (f.name == "buffer 5 (conv1_bias) data")
                conv1BiasData = f.offset;
        }
        const LoadResult r = parse(hwf1Bytes(synthetic));
        QVERIFY(!r.ok());
        QVERIFY(r.rejected.has_value());
        QCOMPARE(r.diagnostics.size(), size_t(2));
        QCOMPARE(r.firstError(), &r.diagnostics[0]);
        const Diagnostic &head2 = r.diagnostics[0];
        QCOMPARE(head2.severity, Severity::Error);
        QCOMPARE(head2.kind, DiagnosticKind::NonFinite);
        QCOMPARE(head2.field, std::string("buffer 2 (head2_filter) values"));
        QCOMPARE(head2.offset, std::optional<uint64_t>(head2Data + 4 * 100));
        QCOMPARE(head2.found, std::string("2 NaN and 1 Inf"));
        QVERIFY2(head2.message.find("first at index (4, 4)") != std::string::npos, head2.message.c_str());
        const Diagnostic &bias = r.diagnostics[1];
        QCOMPARE(bias.offset, std::optional<uint64_t>(conv1BiasData + 4 * 3));
        QCOMPARE(bias.found, std::string("0 NaN and 1 Inf"));
        QVERIFY2(bias.message.find("= -inf") != std::string::npos, bias.message.c_str());
        // The bits survive: a NaN payload is read unchanged.
        QVERIFY(serialized(*r.rejected) == hwf1Bytes(synthetic));
    }

    void directoryProblems()
    {
        QTemporaryDir tmp;
        const auto synthetic = makeSyntheticWeights(73);
        const LoadResult good = parse(hwf1Bytes(synthetic));
        QVERIFY(good.ok());
        const auto fresh = [&](const std::string &name) {
            const auto dir = tempPath(tmp, name);
            const auto written = saveWeightsDirectory(*good.weights, dir, Overwrite::Refuse);
            if (!written.ok)
                qFatal("%s", written.error.c_str());
            return dir;
        };

        const auto missing = fresh("missing");
        std::filesystem::remove(missing / "head1_conv1_bias.data");
        LoadResult r = loadWeightsDirectory(missing);
        const Diagnostic *d = onlyError(r);
        QVERIFY(d);
        QCOMPARE(d->kind, DiagnosticKind::MissingFile);
        QCOMPARE(d->path, (missing / "head1_conv1_bias.data").string());
        QCOMPARE(d->found, std::string("no such file"));
        QVERIFY2(d->expected.find("32 bytes") != std::string::npos, d->expected.c_str());

        const auto shortFile = fresh("short");
        test::writeFile(shortFile / "trunk_conv1_bias.data", std::string(124, '\0'));
        r = loadWeightsDirectory(shortFile);
        d = onlyError(r);
        QVERIFY(d);
        QCOMPARE(d->kind, DiagnosticKind::FileSize);
        QCOMPARE(d->path, (shortFile / "trunk_conv1_bias.data").string());
        QCOMPARE(d->expected, std::string("128 bytes (32 float32)"));
        QCOMPARE(d->found, std::string("124 bytes"));

        const auto head2 = fresh("head2");
        test::writeFile(head2 / "head2_conv1_weight.data", std::string(4 * 24 * 50, '\0'));
        r = loadWeightsDirectory(head2);
        d = onlyError(r);
        QVERIFY(d);
        QCOMPARE(d->kind, DiagnosticKind::FileSize);
        QVERIFY2(d->expected.find("7008 bytes (anderson2021") != std::string::npos, d->expected.c_str());
        QVERIFY2(d->expected.find("3744 bytes (adams2019") != std::string::npos, d->expected.c_str());
        QCOMPARE(d->found, std::string("4800 bytes"));

        // Every problem is reported, not only the first.
        std::filesystem::remove(head2 / "head1_conv1_weight.data");
        r = loadWeightsDirectory(head2);
        QVERIFY(!r.ok());
        QCOMPARE(r.diagnostics.size(), size_t(2));

        const auto nowhere = tempPath(tmp, "nowhere");
        r = loadWeights(nowhere);
        QVERIFY(!r.ok());
        QCOMPARE(r.firstError()->kind, DiagnosticKind::Io);
        QCOMPARE(r.firstError()->found, std::string("no such file or directory"));
        r = loadWeightsDirectory(nowhere);
        QVERIFY(!r.ok());
        QCOMPARE(r.firstError()->found, std::string("no such directory"));
    }

    void directoryNetworkDetection()
    {
        QTemporaryDir tmp;
        const auto adams = makeSyntheticWeights(39, 7);
        const auto dir = tempPath(tmp, "adams");
        std::filesystem::create_directory(dir);
        for (const auto &b : adams.buffers)
            test::writeFile(dir / b.legacyFile, test::rawFloats(b.values));
        const LoadResult r = loadWeights(dir);
        QVERIFY(r.ok());
        QCOMPARE(r.form, Form::Directory);
        QCOMPARE(r.weights->network, Network::Adams2019);
        QCOMPARE(r.weights->pipelineFeaturesVersion, 3u);
        QVERIFY(serialized(*r.weights) == hwf1Bytes(adams));
    }

    void writersRefuseToOverwrite()
    {
        QTemporaryDir tmp;
        const LoadResult good = parse(hwf1Bytes(makeSyntheticWeights(73)));
        QVERIFY(good.ok());

        const auto file = tempPath(tmp, "existing.weights");
        test::writeFile(file, "keep me");
        QVERIFY(!saveWeightsFile(*good.weights, file, Overwrite::Refuse).ok);
        QCOMPARE(test::readFile(file), std::string("keep me"));
        QVERIFY(saveWeightsFile(*good.weights, file, Overwrite::Replace).ok);
        QVERIFY(test::readFile(file) == hwf1Bytes(makeSyntheticWeights(73)));

        // One existing member blocks the whole directory: nothing else appears.
        const auto dir = tempPath(tmp, "partial");
        std::filesystem::create_directory(dir);
        test::writeFile(dir / "trunk_conv1_bias.data", "keep me");
        QVERIFY(!saveWeightsDirectory(*good.weights, dir, Overwrite::Refuse).ok);
        QCOMPARE(test::readFile(dir / "trunk_conv1_bias.data"), std::string("keep me"));
        QCOMPARE(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
        QVERIFY(saveWeightsDirectory(*good.weights, dir, Overwrite::Replace).ok);
        QVERIFY(loadWeightsDirectory(dir).ok());

        // Weights whose shapes disagree with their network are not written at all.
        Weights bad = *good.weights;
        bad.tensors[3].data.pop_back();
        QVERIFY(!saveWeightsFile(bad, tempPath(tmp, "bad.weights"), Overwrite::Refuse).ok);
        QVERIFY(!std::filesystem::exists(tempPath(tmp, "bad.weights")));
        QVERIFY(!saveWeightsDirectory(bad, tempPath(tmp, "bad"), Overwrite::Refuse).ok);
        QVERIFY(!std::filesystem::exists(tempPath(tmp, "bad")));
    }

    void diagnosticFormat()
    {
        Diagnostic d;
        d.path = "a.weights";
        d.offset = 12;
        d.field = "buffer count";
        d.message = "expected 6, found 7";
        QCOMPARE(d.format(), std::string("a.weights: offset 12: buffer count: expected 6, found 7"));
        d.offset.reset();
        d.field.clear();
        QCOMPARE(d.format(), std::string("a.weights: expected 6, found 7"));
    }

    void destinationForm()
    {
        QCOMPARE(formForDestination("x/baseline.weights"), Form::File);
        QCOMPARE(formForDestination("x/baseline"), Form::Directory);
        QCOMPARE(formForDestination("x/baseline.weights.d"), Form::Directory);
    }
};

QTEST_GUILESS_MAIN(WeightsFormatTest)
#include "weights_format_test.moc"
