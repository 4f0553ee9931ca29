// libFuzzer target for training checkpoints (core/samples/checkpoint.cpp). The
// file ends in an FNV-1a checksum of everything before it, so mutated inputs
// would nearly all stop there: each input is parsed as it is and once more
// with a correct checksum appended, which takes mutations into the body. A
// checkpoint that loads serializes back to exactly its bytes.

#include "core/samples/checkpoint.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstring>

using namespace beamscope::samples;

namespace {

// The same checksum as checkpoint.cpp's (FNV-1a 64, little-endian after the body).
uint64_t fnv1a(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < size; k++) {
        h ^= data[k];
        h *= 0x100000001b3ull;
    }
    return h;
}

void check(std::span<const char> bytes)
{
    constexpr const char *target = "fuzz_checkpoint_parser";
    const CheckpointReadResult r = parseCheckpoint(bytes, "fuzz.checkpoint");
    if (!r.checkpoint) {
        if (r.error.rfind("fuzz.checkpoint", 0) != 0 || r.error.find("offset ") == std::string::npos)
            beamscope::fuzz::fail(target, "an error that does not name the file and offset");
        return;
    }
    if (!r.error.empty())
        beamscope::fuzz::fail(target, "a checkpoint together with an error");
    const auto again = serializeCheckpoint(*r.checkpoint);
    if (again.size() != bytes.size() || std::memcmp(again.data(), bytes.data(), bytes.size()) != 0)
        beamscope::fuzz::fail(target, "a checkpoint that does not serialize back to its bytes");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check({reinterpret_cast<const char *>(data), size});
    std::vector<char> sealed(data, data + size);
    const uint64_t sum = fnv1a(data, size);
    const char *p = reinterpret_cast<const char *>(&sum);
    sealed.insert(sealed.end(), p, p + sizeof sum);
    check(sealed);
    return 0;
}
