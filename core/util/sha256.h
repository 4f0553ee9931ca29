#pragma once
// SHA-256 (FIPS 180-4) of bytes or of a file, with no external library: the CLI
// prints it so a user can tell which weights file they hold.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

namespace beamscope {

// Incremental hasher: update() any number of times, then digest() once.
class Sha256 {
public:
    Sha256();
    void update(std::span<const char> bytes);
    void update(const void *data, size_t size);
    std::array<uint8_t, 32> digest(); // finishes the hash; the object is spent afterwards

private:
    void compressBlock(const uint8_t *block);

    std::array<uint32_t, 8> m_state;
    std::array<uint8_t, 64> m_buffer{};
    size_t m_buffered = 0;
    uint64_t m_totalBytes = 0;
};

std::array<uint8_t, 32> sha256(std::span<const char> bytes);
// Lower-case hex, 64 characters.
std::string sha256Hex(std::span<const char> bytes);
std::string toHex(std::span<const uint8_t> bytes);
// The hex digest of a file's contents, or nothing when it cannot be read.
std::optional<std::string> sha256FileHex(const std::filesystem::path &path);

} // namespace beamscope
