#include "core/util/sha256.h"

#include <fstream>
#include <openssl/evp.h>
#include <stdexcept>
#include <vector>

namespace beamscope {

// libcrypto fails here only when it cannot allocate or its default provider is
// missing; neither is an input error, so it is thrown rather than reported.
static void require(bool ok, const char *what)
{
    if (!ok)
        throw std::runtime_error(std::string("libcrypto: ") + what + " failed for SHA-256");
}

void Sha256::FreeContext::operator()(evp_md_ctx_st *context) const { EVP_MD_CTX_free(context); }

Sha256::Sha256() : m_context(EVP_MD_CTX_new())
{
    require(m_context != nullptr, "EVP_MD_CTX_new");
    require(EVP_DigestInit_ex(m_context.get(), EVP_sha256(), nullptr) == 1, "EVP_DigestInit_ex");
}

Sha256::~Sha256() = default;
Sha256::Sha256(Sha256 &&) noexcept = default;
Sha256 &Sha256::operator=(Sha256 &&) noexcept = default;

void Sha256::update(std::span<const char> bytes) { update(bytes.data(), bytes.size()); }

void Sha256::update(const void *data, size_t size)
{
    require(EVP_DigestUpdate(m_context.get(), data, size) == 1, "EVP_DigestUpdate");
}

std::array<uint8_t, 32> Sha256::digest()
{
    std::array<uint8_t, 32> out{};
    unsigned int written = 0;
    require(EVP_DigestFinal_ex(m_context.get(), out.data(), &written) == 1 && written == out.size(),
            "EVP_DigestFinal_ex");
    return out;
}

std::array<uint8_t, 32> sha256(std::span<const char> bytes)
{
    Sha256 hasher;
    hasher.update(bytes);
    return hasher.digest();
}

std::string toHex(std::span<const uint8_t> bytes)
{
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (uint8_t b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

std::string sha256Hex(std::span<const char> bytes)
{
    const auto digest = sha256(bytes);
    return toHex(digest);
}

std::optional<std::string> sha256FileHex(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    Sha256 hasher;
    std::vector<char> chunk(1 << 16);
    while (in) {
        in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        const auto got = in.gcount();
        if (got > 0)
            hasher.update(chunk.data(), static_cast<size_t>(got));
    }
    if (in.bad())
        return std::nullopt;
    const auto digest = hasher.digest();
    return toHex(digest);
}

} // namespace beamscope
