// SHA-256 against FIPS 180-4's published examples and the digests Halide's
// weights were published with.

#include "core/util/sha256.h"
#include "tests/support/test_data.h"

#include "tests/weights/qtest_std_string.h"

#include <QTest>

#include <filesystem>
#include <fstream>
#include <regex>

using namespace beamscope;

namespace {
std::string hexOf(const std::string &text) { return sha256Hex(std::span<const char>(text.data(), text.size())); }
} // namespace

class Sha256Test : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void standardVectors()
    {
        QCOMPARE(hexOf(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(hexOf("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        // 56 bytes: the padding needs a second block.
        QCOMPARE(hexOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    }

    void incrementalMillionA()
    {
        // Fed in odd-sized pieces so block boundaries fall inside updates.
        Sha256 hasher;
        const std::string piece(997, 'a');
        size_t fed = 0;
        while (fed < 1000000) {
            const size_t n = std::min(piece.size(), 1000000 - fed);
            hasher.update(piece.data(), n);
            fed += n;
        }
        const auto digest = hasher.digest();
        QCOMPARE(toHex(digest), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    }

    void fileDigest()
    {
        const auto path = std::filesystem::temp_directory_path() / "beamscope-sha256-test.bin";
        test::writeFile(path, "abc");
        QCOMPARE(sha256FileHex(path),
                 std::optional<std::string>("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        std::filesystem::remove(path);
        QVERIFY(!sha256FileHex(path));
    }

    // weights/README.md lists every shipped file with its size and sha256; both must hold.
    void shippedWeightsMatchTheirReadme()
    {
        BEAMSCOPE_REQUIRE_DATA(readme, "weights/README.md");
        const std::string text = test::readFile(readme);
        const std::regex row(
            "\\| `([a-z0-9]+/[A-Za-z0-9_]+\\.weights)` \\| [^|]* \\| ([0-9,]+) \\| `([0-9a-f]{64})` \\|");
        int checked = 0;
        for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator(); ++it) {
            const auto file = readme.parent_path() / (*it)[1].str();
            std::string size = (*it)[2].str();
            std::erase(size, ',');
            QVERIFY2(std::filesystem::exists(file), file.c_str());
            QCOMPARE(std::filesystem::file_size(file), std::stoull(size));
            QCOMPARE(sha256FileHex(file), std::optional<std::string>((*it)[3].str()));
            checked++;
        }
        QCOMPARE(checked, 19); // 18 Anderson2021 files + Adams2019's baseline
    }
};

QTEST_GUILESS_MAIN(Sha256Test)
#include "sha256_test.moc"
