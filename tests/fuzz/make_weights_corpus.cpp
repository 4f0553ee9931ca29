// Writes the fuzzer's seed corpus: valid synthetic files of both networks and a
// few broken ones (one per failure class), so mutation starts near every branch.
// Usage: make_weights_corpus DIR  (creates DIR/seeds, and an empty DIR/found).

#include "tests/weights/synthetic_weights.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace beamscope::test;

namespace {
bool write(const std::filesystem::path &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}
} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_weights_corpus DIR\n");
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir / "seeds", ec);
    std::filesystem::create_directories(dir / "found", ec);
    if (ec) {
        std::fprintf(stderr, "cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
        return 1;
    }
    const std::string anderson = hwf1Bytes(makeSyntheticWeights(73));
    const std::string adams = hwf1Bytes(makeSyntheticWeights(39));
    auto withNan = makeSyntheticWeights(73, 2);
    withNan.buffers[2].values[7] = std::numeric_limits<float>::quiet_NaN();
    withNan.buffers[4].values[9] = std::numeric_limits<float>::infinity();
    auto oldVersion = makeSyntheticWeights(39, 3);
    oldVersion.pipelineVersion = 2;

    std::string wrongExtent = anderson;
    wrongExtent[16 + 4 + 12 + 8960 + 4 + 4 + 32 + 4 + 4] = 50; // head2_filter extent 1

    const std::vector<std::pair<const char *, std::string>> seeds = {
        {"anderson2021.weights", anderson},
        {"adams2019.weights", adams},
        {"non-finite.weights", hwf1Bytes(withNan)},
        {"old-version.weights", hwf1Bytes(oldVersion)},
        {"wrong-extent.weights", wrongExtent},
        {"truncated-header.weights", anderson.substr(0, 10)},
        {"truncated-data.weights", adams.substr(0, 9001)},
        {"trailing.weights", anderson + "xyz"},
        {"signature-only.weights", anderson.substr(0, 4)},
        {"empty.weights", std::string()},
    };
    for (const auto &[name, bytes] : seeds)
        if (!write(dir / "seeds" / name, bytes)) {
            std::fprintf(stderr, "cannot write %s\n", (dir / "seeds" / name).c_str());
            return 1;
        }
    std::printf("wrote %zu seeds to %s\n", seeds.size(), (dir / "seeds").c_str());
    return 0;
}
