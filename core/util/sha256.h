#pragma once
// SHA-256 of bytes or of a file, through OpenSSL's libcrypto (EVP): the CLI prints
// it so a user can tell which weights file they hold, and shipped files are
// recognised by it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

struct evp_md_ctx_st; // OpenSSL's EVP_MD_CTX, kept out of every includer

namespace beamscope {

// Incremental hasher: update() any number of times, then digest() once.
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(Sha256 &&) noexcept;
    Sha256 &operator=(Sha256 &&) noexcept;
    Sha256(const Sha256 &) = delete;
    Sha256 &operator=(const Sha256 &) = delete;

    void update(std::span<const char> bytes);
    void update(const void *data, size_t size);
    std::array<uint8_t, 32> digest(); // finishes the hash; the object is spent afterwards

private:
    struct FreeContext {
        void operator()(evp_md_ctx_st *context) const;
    };
    std::unique_ptr<evp_md_ctx_st, FreeContext> m_context;
};

std::array<uint8_t, 32> sha256(std::span<const char> bytes);
// Lower-case hex, 64 characters.
std::string sha256Hex(std::span<const char> bytes);
std::string toHex(std::span<const uint8_t> bytes);
// The hex digest of a file's contents, or nothing when it cannot be read.
std::optional<std::string> sha256FileHex(const std::filesystem::path &path);

} // namespace beamscope
