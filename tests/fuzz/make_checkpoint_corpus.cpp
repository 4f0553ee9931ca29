// Writes the checkpoint fuzzer's seed corpus from a fixture weights file:
// checkpoints with and without epoch history, and broken ones (signature,
// format, history count, checksum, truncation). Seeds are written without
// their 8-byte checksum too, which the fuzzer appends itself.
// Usage: make_checkpoint_corpus WEIGHTS DIR  (creates DIR/seeds, and an empty DIR/found).

#include "core/samples/checkpoint.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace beamscope;

namespace {
bool write(const std::filesystem::path &path, const std::vector<char> &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}
} // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: make_checkpoint_corpus WEIGHTS DIR\n");
        return 2;
    }
    const std::filesystem::path dir = argv[2];
    auto loaded = weights::loadWeights(argv[1]);
    if (!loaded.ok()) {
        std::fprintf(stderr, "%s: cannot load the weights\n", argv[1]);
        return 1;
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir / "seeds", ec);
    std::filesystem::create_directories(dir / "found", ec);
    if (ec) {
        std::fprintf(stderr, "cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
        return 1;
    }

    samples::Checkpoint c;
    c.epochsCompleted = 0;
    c.seed = 7;
    c.learningRate = 0.001f;
    c.numCores = 80;
    c.maxBatch = 64;
    c.minBatch = 9;
    c.datasetFingerprint = 0x0123456789abcdefull;
    c.state.weights = std::move(*loaded.weights);
    for (size_t i = 0; i < c.state.m.size(); i++) {
        c.state.m[i].assign(c.state.weights.tensors[i].elementCount(), 0.0f);
        c.state.v[i].assign(c.state.weights.tensors[i].elementCount(), 0.0f);
    }
    const auto fresh = samples::serializeCheckpoint(c);
    c.epochsCompleted = 3;
    c.state.timestep = 42;
    for (int e = 1; e <= 3; e++) {
        samples::EpochRecord r;
        r.epoch = e;
        r.trainingBatches = 4;
        r.validationBatches = 1;
        r.trainingLoss = 1.0 / e;
        r.validationLoss = 2.0 / e;
        c.history.push_back(r);
    }
    c.state.m[0][0] = 0.5f;
    c.state.v[0][0] = 0.25f;
    const auto trained = samples::serializeCheckpoint(c);

    auto unsealed = [](std::vector<char> b) {
        b.resize(b.size() - 8);
        return b;
    };
    auto badSignature = fresh;
    badSignature[0] = 'X';
    auto badChecksum = trained;
    badChecksum.back() ^= 1;
    auto badFormat = unsealed(fresh);
    badFormat[8] = 2;
    auto hugeHistory = unsealed(fresh);
    std::memset(hugeHistory.data() + 8 + 4, 0xff, 4);                                 // epochs completed
    std::memset(hugeHistory.data() + 8 + 4 + 4 + 8 + 4 + 4 + 4 + 4 + 4 + 8, 0xff, 4); // history count
    const std::vector<std::pair<const char *, std::vector<char>>> seeds = {
        {"fresh.checkpoint", fresh},
        {"trained.checkpoint", trained},
        {"fresh-unsealed.checkpoint", unsealed(fresh)},
        {"trained-unsealed.checkpoint", unsealed(trained)},
        {"bad-signature.checkpoint", badSignature},
        {"bad-checksum.checkpoint", badChecksum},
        {"bad-format-unsealed.checkpoint", badFormat},
        {"huge-history-unsealed.checkpoint", hugeHistory},
        {"header-only-unsealed.checkpoint", std::vector<char>(fresh.begin(), fresh.begin() + 64)},
        {"empty.checkpoint", {}},
    };
    for (const auto &[name, bytes] : seeds)
        if (!write(dir / "seeds" / name, bytes)) {
            std::fprintf(stderr, "cannot write %s\n", (dir / "seeds" / name).c_str());
            return 1;
        }
    std::printf("wrote %zu seeds to %s\n", seeds.size(), (dir / "seeds").c_str());
    return 0;
}
