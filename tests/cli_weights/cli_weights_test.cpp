// beamscope-cli weights inspect | validate | convert | diff, run as a user runs
// them: output, files on disk and exit codes (0 ok, 1 invalid input, 2 usage).

#include "core/util/json.h"
#include "core/util/sha256.h"
#include "tests/support/test_data.h"
#include "tests/weights/qtest_std_string.h"
#include "tests/weights/synthetic_weights.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <limits>

using namespace beamscope;
using beamscope::test::hwf1Bytes;
using beamscope::test::makeSyntheticWeights;
using beamscope::test::ProcessResult;

namespace {

ProcessResult cli(const std::vector<std::string> &args)
{
    std::vector<std::string> full = {"weights"};
    full.insert(full.end(), args.begin(), args.end());
    return test::runProcess(test::cliPath(), full);
}

std::string explain(const ProcessResult &r)
{
    return "exit " + std::to_string(r.exitCode) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

} // namespace

class CliWeightsTest : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::filesystem::path m_anderson, m_adams;
    std::string m_andersonBytes;

    std::filesystem::path path(const std::string &name) const
    {
        return std::filesystem::path(m_tmp.path().toStdString()) / name;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_anderson = path("synthetic-anderson2021.weights");
        m_adams = path("synthetic-adams2019.weights");
        m_andersonBytes = hwf1Bytes(makeSyntheticWeights(73, 3));
        test::writeFile(m_anderson, m_andersonBytes);
        test::writeFile(m_adams, hwf1Bytes(makeSyntheticWeights(39, 4)));
    }

    void inspectTable()
    {
        const auto r = cli({"inspect", m_anderson.string()});
        QVERIFY2(r.exitCode == 0, explain(r).c_str());
        QVERIFY(contains(r.out, "anderson2021 (head2_filter 24 x 73)"));
        QVERIFY(contains(r.out, "20400 bytes"));
        QVERIFY(contains(r.out, sha256Hex(std::span<const char>(m_andersonBytes.data(), m_andersonBytes.size()))));
        for (const char *name :
             {"head1_filter", "head1_bias", "head2_filter", "head2_bias", "conv1_filter", "conv1_bias"})
            QVERIFY2(contains(r.out, std::string("\n") + name + " "), name);
        // The table is aligned: every row of it is as wide as its header.
        const auto header = r.out.find("buffer ");
        QVERIFY(header != std::string::npos);
        const auto headerEnd = r.out.find('\n', header);
        const auto firstRowEnd = r.out.find('\n', headerEnd + 1);
        QCOMPARE(firstRowEnd - headerEnd - 1, headerEnd - header);
    }

    void inspectJson_data()
    {
        QTest::addColumn<uint32_t>("width");
        QTest::newRow("anderson2021") << 73u;
        QTest::newRow("adams2019") << 39u;
    }
    void inspectJson()
    {
        QFETCH(uint32_t, width);
        const auto synthetic = makeSyntheticWeights(width, width == 73 ? 3 : 4);
        const auto file = width == 73 ? m_anderson : m_adams;
        const auto r = cli({"inspect", file.string(), "--json"});
        QVERIFY2(r.exitCode == 0, explain(r).c_str());
        const auto parsed = parseJson(r.out);
        QVERIFY2(parsed.value, parsed.error.c_str());
        const Json &doc = *parsed.value;
        QCOMPARE(doc.find("path")->toString(), file.string());
        QCOMPARE(doc.find("form")->toString(), std::string("file"));
        QCOMPARE(doc.find("network")->toString(), std::string(width == 73 ? "anderson2021" : "adams2019"));
        QCOMPARE(doc.find("pipeline_features_version")->toInt(), int64_t(3));
        QCOMPARE(doc.find("schedule_features_version")->toInt(), int64_t(3));
        const std::string bytes = hwf1Bytes(synthetic);
        QCOMPARE(doc.find("size_bytes")->toInt(), static_cast<int64_t>(bytes.size()));
        QCOMPARE(doc.find("sha256")->toString(), sha256Hex(std::span<const char>(bytes.data(), bytes.size())));
        QCOMPARE(doc.find("diagnostics")->size(), size_t(0));
        const auto &buffers = doc.find("buffers")->items();
        QCOMPARE(buffers.size(), size_t(6));
        for (size_t i = 0; i < buffers.size(); i++) {
            const auto &expected = synthetic.buffers[i];
            QCOMPARE(buffers[i].find("name")->toString(), expected.name);
            std::vector<uint32_t> shape;
            for (const auto &e : buffers[i].find("shape")->items())
                shape.push_back(static_cast<uint32_t>(e.toInt()));
            QCOMPARE(shape, expected.extents);
            // Min, max and zero count straight from the values the test wrote.
            const auto [lo, hi] = std::minmax_element(expected.values.begin(), expected.values.end());
            QCOMPARE(buffers[i].find("min")->toNumber(), static_cast<double>(*lo));
            QCOMPARE(buffers[i].find("max")->toNumber(), static_cast<double>(*hi));
            QCOMPARE(buffers[i].find("zero_count")->toInt(),
                     static_cast<int64_t>(std::count(expected.values.begin(), expected.values.end(), 0.0f)));
            QCOMPARE(buffers[i].find("nan_count")->toInt(), int64_t(0));
            QCOMPARE(buffers[i].find("inf_count")->toInt(), int64_t(0));
            for (const char *key : {"mean", "std", "l2_norm"})
                QVERIFY2(buffers[i].find(key) && buffers[i].find(key)->isNumber(), key);
        }
    }

    void inspectDirectoryHashesTheEquivalentFile()
    {
        const auto dir = path("inspect-dir");
        QCOMPARE(cli({"convert", m_anderson.string(), dir.string()}).exitCode, 0);
        const auto r = cli({"inspect", dir.string(), "--json"});
        QVERIFY2(r.exitCode == 0, explain(r).c_str());
        const Json doc = *parseJson(r.out).value;
        QCOMPARE(doc.find("form")->toString(), std::string("directory"));
        QCOMPARE(doc.find("sha256")->toString(),
                 sha256Hex(std::span<const char>(m_andersonBytes.data(), m_andersonBytes.size())));
    }

    void inspectInvalidFile()
    {
        const auto bad = path("truncated.weights");
        test::writeFile(bad, m_andersonBytes.substr(0, 1000));
        const auto r = cli({"inspect", bad.string()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(contains(r.err, bad.string() + ": offset 32: buffer 0 (head1_filter) data"), r.err.c_str());
        QVERIFY2(contains(r.err, "7992 bytes missing"), r.err.c_str());
        const auto json = cli({"inspect", bad.string(), "--json"});
        QCOMPARE(json.exitCode, 1);
        const Json doc = *parseJson(json.out).value;
        QVERIFY(doc.find("network")->isNull());
        QCOMPARE(doc.find("diagnostics")->items().at(0).find("kind")->toString(), std::string("truncated"));
        QCOMPARE(doc.find("diagnostics")->items().at(0).find("offset")->toInt(), int64_t(32));
    }

    void validateEveryPath()
    {
        const auto bad = path("bad-signature.weights");
        test::writeFile(bad, "GIF89a" + m_andersonBytes.substr(6));
        auto withNan = makeSyntheticWeights(73, 3);
        withNan.buffers[3].values[5] = std::numeric_limits<float>::quiet_NaN();
        const auto nanFile = path("nan.weights");
        test::writeFile(nanFile, hwf1Bytes(withNan));

        auto r = cli({"validate", m_anderson.string(), bad.string(), nanFile.string(), m_adams.string()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(contains(r.out, "OK       " + m_anderson.string()), r.out.c_str());
        QVERIFY2(contains(r.out, "INVALID  " + bad.string()), r.out.c_str());
        QVERIFY2(contains(r.out, "INVALID  " + nanFile.string()), r.out.c_str());
        QVERIFY2(contains(r.out, "OK       " + m_adams.string()), r.out.c_str());
        QVERIFY2(contains(r.out, "2 of 4 valid"), r.out.c_str());
        QVERIFY2(contains(r.err, bad.string() + ": offset 0: signature"), r.err.c_str());
        QVERIFY2(contains(r.err, "\"GIF8\""), r.err.c_str());
        QVERIFY2(contains(r.err, "buffer 3 (head2_bias) values"), r.err.c_str());

        // Review, Weights 5: a NaN weight is corruption, an error in the CLI as in the explorer.
        r = cli({"validate", m_anderson.string(), nanFile.string()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(contains(r.err, "1 NaN and 0 Inf"), r.err.c_str());
        QCOMPARE(cli({"validate"}).exitCode, 2);
        QCOMPARE(cli({"validate", "--strict", m_anderson.string()}).exitCode, 2);
    }

    void convertRoundTripReproducesTheBytes()
    {
        for (const auto &source : {m_anderson, m_adams}) {
            const auto dir = path(source.stem().string() + "-dir");
            const auto back = path(source.stem().string() + "-back.weights");
            auto r = cli({"convert", source.string(), dir.string()});
            QVERIFY2(r.exitCode == 0, explain(r).c_str());
            QVERIFY(std::filesystem::is_regular_file(dir / "head2_conv1_weight.data"));
            r = cli({"convert", dir.string(), back.string()});
            QVERIFY2(r.exitCode == 0, explain(r).c_str());
            QVERIFY(test::readFile(back) == test::readFile(source));
            // No temporary files are left behind.
            for (const auto &entry : std::filesystem::directory_iterator(m_tmp.path().toStdString()))
                QVERIFY2(!contains(entry.path().filename().string(), ".tmp-"), entry.path().c_str());
        }
    }

    void convertNeverOverwritesWithoutForce()
    {
        const auto dst = path("existing.weights");
        test::writeFile(dst, "precious");
        auto r = cli({"convert", m_anderson.string(), dst.string()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(contains(r.err, "already exists"), r.err.c_str());
        QCOMPARE(test::readFile(dst), std::string("precious"));
        r = cli({"convert", m_anderson.string(), dst.string(), "--force"});
        QVERIFY2(r.exitCode == 0, explain(r).c_str());
        QVERIFY(test::readFile(dst) == m_andersonBytes);

        const auto dir = path("existing-dir");
        QCOMPARE(cli({"convert", m_anderson.string(), dir.string()}).exitCode, 0);
        const std::string before = test::readFile(dir / "head2_conv1_weight.data");
        r = cli({"convert", m_adams.string(), dir.string()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(test::readFile(dir / "head2_conv1_weight.data") == before);
        // head1_filter's data starts after the 16-byte header, its dimension count and 3 extents.
        QVERIFY(test::readFile(dir / "head1_conv1_weight.data") == m_andersonBytes.substr(32, 4 * 8 * 40 * 7));
    }

    void convertOfAnInvalidSourceWritesNothing()
    {
        const auto bad = path("bad-version.weights");
        std::string bytes = m_andersonBytes;
        bytes[4] = 9; // pipeline features version 9
        test::writeFile(bad, bytes);
        for (const std::string dst : {"never.weights", "never-dir"}) {
            const auto r = cli({"convert", bad.string(), path(dst).string()});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(contains(r.err, "offset 4: feature versions"), r.err.c_str());
            QVERIFY2(contains(r.err, "found 9/3"), r.err.c_str());
            QVERIFY(!std::filesystem::exists(path(dst)));
        }
        QCOMPARE(cli({"convert", m_anderson.string()}).exitCode, 2);
        QCOMPARE(cli({"convert", path("nowhere.weights").string(), path("x.weights").string()}).exitCode, 1);
    }

    void diffReportsTheChanges()
    {
        auto changed = makeSyntheticWeights(73, 3);
        // conv1_filter is 32 x 32: flat 70 is (6, 2); flat 5 is (5, 0).
        changed.buffers[4].values[70] += 1.5f;
        changed.buffers[4].values[5] -= 0.25f;
        const auto other = path("changed.weights");
        test::writeFile(other, hwf1Bytes(changed));

        auto r = cli({"diff", m_anderson.string(), other.string(), "--json"});
        QVERIFY2(r.exitCode == 0, explain(r).c_str());
        const Json doc = *parseJson(r.out).value;
        QVERIFY(doc.find("comparable")->toBool());
        QCOMPARE(doc.find("changed_count")->toInt(), int64_t(2));
        const auto &tensors = doc.find("tensors")->items();
        QCOMPARE(tensors.size(), size_t(6));
        const Json &conv1 = tensors[4];
        QCOMPARE(conv1.find("name")->toString(), std::string("conv1_filter"));
        QCOMPARE(conv1.find("changed_count")->toInt(), int64_t(2));
        const auto &largest = conv1.find("largest")->items();
        QCOMPARE(largest.size(), size_t(2));
        QCOMPARE(largest[0].find("flat_index")->toInt(), int64_t(70));
        QCOMPARE(largest[0].find("index")->items().at(0).toInt(), int64_t(6));
        QCOMPARE(largest[0].find("index")->items().at(1).toInt(), int64_t(2));
        const double expectedMax = static_cast<double>(changed.buffers[4].values[70]) -
                                   static_cast<double>(makeSyntheticWeights(73, 3).buffers[4].values[70]);
        QCOMPARE(conv1.find("max_abs_diff")->toNumber(), expectedMax);
        QCOMPARE(largest[1].find("flat_index")->toInt(), int64_t(5));
        QCOMPARE(tensors[0].find("changed_count")->toInt(), int64_t(0));
        QCOMPARE(tensors[0].find("cosine_similarity")->toNumber(), 1.0);

        r = cli({"diff", m_anderson.string(), other.string()});
        QVERIFY2(r.exitCode == 0, explain(r).c_str());
        QVERIFY2(contains(r.out, "largest changes"), r.out.c_str());
        QVERIFY2(contains(r.out, "(6, 2)"), r.out.c_str());
        r = cli({"diff", m_anderson.string(), m_anderson.string()});
        QVERIFY2(contains(r.out, "identical"), r.out.c_str());
    }

    void diffRefusesDifferentNetworksAndBadUsage()
    {
        auto r = cli({"diff", m_anderson.string(), m_adams.string()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(contains(r.err, "24 x 73") && contains(r.err, "24 x 39"), r.err.c_str());
        QCOMPARE(cli({"diff", m_anderson.string()}).exitCode, 2);
        QCOMPARE(cli({"diff", m_anderson.string(), m_anderson.string(), "--top", "x"}).exitCode, 2);
        QCOMPARE(cli({"inspect"}).exitCode, 2);
        QCOMPARE(cli({"inspect", m_anderson.string(), "--json=1"}).exitCode, 2);
    }

    // `weights list` names the 19 shipped files (the source tree's weights/ in a build);
    // every command that reads weights takes those names.
    void shippedWeightsAreListedAndTakenByName()
    {
        const auto list = cli({"list", "--json"});
        QVERIFY2(list.exitCode == 0, explain(list).c_str());
        const auto doc = beamscope::parseJson(list.out);
        QVERIFY2(doc.value.has_value(), doc.error.c_str());
        QCOMPARE(doc.value->size(), size_t(19));
        const std::filesystem::path shipped = test::sourceDir() / "weights";
        int holdOneOut = 0;
        for (const beamscope::Json &item : doc.value->items()) {
            const std::filesystem::path path = item.find("path")->toString();
            QVERIFY2(std::filesystem::exists(path), path.c_str());
            QCOMPARE(std::filesystem::canonical(path).parent_path().parent_path().string(),
                     std::filesystem::canonical(shipped).string());
            holdOneOut += item.find("hold_one_out")->toBool();
        }
        QCOMPARE(holdOneOut, 16);
        QCOMPARE(doc.value->items()[0].find("name")->toString(), std::string("baseline"));

        const auto byName = cli({"inspect", "harris", "--json"});
        QVERIFY2(byName.exitCode == 0, explain(byName).c_str());
        const auto inspected = beamscope::parseJson(byName.out);
        QVERIFY(inspected.value.has_value());
        QCOMPARE(inspected.value->find("sha256")->toString(),
                 std::string("bb4f2faf848a86aca545348975f0195a991a06a649cf0388378265267edd4467"));
        const auto missing = cli({"inspect", "no_such_weights"});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(contains(missing.err, "no_such_weights"), missing.err.c_str());
    }

    void validateShippedFiles()
    {
        BEAMSCOPE_REQUIRE_DATA(anderson, "weights/anderson2021");
        std::vector<std::string> args = {"validate"};
        for (const char *folder : {"weights/anderson2021", "weights/adams2019"})
            if (const auto dir = test::projectData(folder))
                for (const auto &entry : std::filesystem::directory_iterator(*dir))
                    if (entry.path().extension() == ".weights")
                        args.push_back(entry.path().string());
        QCOMPARE(args.size(), size_t(20));
        const auto r = cli(args);
        QVERIFY2(r.exitCode == 0, explain(r).c_str());
        QVERIFY2(contains(r.out, "19 of 19 valid"), r.out.c_str());
    }
};

QTEST_GUILESS_MAIN(CliWeightsTest)
#include "cli_weights_test.moc"
