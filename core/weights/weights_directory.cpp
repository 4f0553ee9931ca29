// The legacy six-file directory: raw little-endian float32 files with fixed
// names and no header, so every check is on file sizes.

#include "core/weights/weights.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <fstream>

namespace beamscope::weights {

namespace {

std::string bytesText(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

Diagnostic directoryError(DiagnosticKind kind, const std::filesystem::path &path, std::string field,
                          std::string expected, std::string found)
{
    Diagnostic d;
    d.kind = kind;
    d.path = path.string();
    d.field = std::move(field);
    d.expected = std::move(expected);
    d.found = std::move(found);
    d.message = "expected " + d.expected + ", found " + d.found;
    return d;
}

std::string expectedSizeText(int index)
{
    const auto &anderson = tensorSpecs(Network::Anderson2021)[index];
    const auto &adams = tensorSpecs(Network::Adams2019)[index];
    const uint64_t a = 4 * elementCount(anderson.shape), b = 4 * elementCount(adams.shape);
    if (a == b)
        return bytesText(a) + " (" + formatShape(anderson.shape) + " float32)";
    return bytesText(a) + " (anderson2021, " + formatShape(anderson.shape) + " float32) or " + bytesText(b) +
           " (adams2019, " + formatShape(adams.shape) + " float32)";
}

} // namespace

bool holdsLegacyWeightsFiles(const std::filesystem::path &dir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        return false;
    for (const auto &spec : tensorSpecs(Network::Anderson2021))
        if (std::filesystem::exists(dir / spec.legacyFile, ec))
            return true;
    return false;
}

LoadResult loadWeightsDirectory(const std::filesystem::path &dir)
{
    LoadResult result;
    result.form = Form::Directory;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
        result.diagnostics.push_back(
            directoryError(DiagnosticKind::Io, dir, {}, "a directory of six legacy .data files",
                           std::filesystem::exists(dir, ec) ? "something else" : "no such directory"));
        return result;
    }

    // head2_conv1_weight.data's size says which network the directory holds.
    std::optional<Network> network;
    std::array<std::optional<uint64_t>, kTensorCount> sizes;
    for (int i = 0; i < kTensorCount; i++) {
        const auto &spec = tensorSpecs(Network::Anderson2021)[i];
        const auto member = dir / spec.legacyFile;
        const std::string field = "buffer " + std::to_string(i) + " (" + spec.name + ") file";
        if (!std::filesystem::is_regular_file(member, ec)) {
            result.diagnostics.push_back(directoryError(
                DiagnosticKind::MissingFile, member, field, "a file of " + expectedSizeText(i),
                std::filesystem::exists(member, ec) ? "something that is not a regular file" : "no such file"));
            continue;
        }
        const uint64_t size = std::filesystem::file_size(member, ec);
        if (ec) {
            result.diagnostics.push_back(
                directoryError(DiagnosticKind::Io, member, field, "a readable file", ec.message()));
            continue;
        }
        sizes[i] = size;
        result.sizeBytes += size;
        if (i == Head2Filter) {
            for (Network n : {Network::Anderson2021, Network::Adams2019})
                if (size == 4 * elementCount(tensorSpecs(n)[i].shape))
                    network = n;
        }
    }
    for (int i = 0; i < kTensorCount; i++) {
        if (!sizes[i])
            continue;
        const auto &spec = tensorSpecs(network.value_or(Network::Anderson2021))[i];
        const bool fits = i == Head2Filter ? network.has_value() : *sizes[i] == 4 * elementCount(spec.shape);
        if (!fits)
            result.diagnostics.push_back(
                directoryError(DiagnosticKind::FileSize, dir / spec.legacyFile,
                               "buffer " + std::to_string(i) + " (" + spec.name + ") file size", expectedSizeText(i),
                               bytesText(*sizes[i])));
    }
    if (result.firstError() || !network)
        return result;

    Weights w = zeroWeights(*network); // versions: Halide reads a directory as "current", 3/3
    for (int i = 0; i < kTensorCount; i++) {
        const auto member = dir / tensorSpecs(*network)[i].legacyFile;
        std::ifstream in(member, std::ios::binary);
        auto &data = w.tensors[i].data;
        in.read(reinterpret_cast<char *>(data.data()), static_cast<std::streamsize>(4 * data.size()));
        if (!in || static_cast<uint64_t>(in.gcount()) != 4 * data.size()) {
            result.diagnostics.push_back(
                directoryError(DiagnosticKind::Io, member, "buffer " + std::to_string(i), bytesText(4 * data.size()),
                               "a read error after " + bytesText(static_cast<uint64_t>(in.gcount()))));
            return result;
        }
    }
    result.weights = std::move(w);
    addValueErrors(result, dir.string());
    return result;
}

namespace {

std::span<const char> tensorBytes(const Tensor &t)
{
    return {reinterpret_cast<const char *>(t.data.data()), 4 * t.data.size()};
}

} // namespace

WriteResult saveWeightsDirectory(const Weights &w, const std::filesystem::path &dir, Overwrite overwrite)
{
    if (auto problem = shapeProblem(w); !problem.empty())
        return {false, dir.string() + ": not written: " + problem};
    const auto &specs = tensorSpecs(w.network);
    std::error_code ec;

    if (std::filesystem::exists(dir, ec)) {
        if (!std::filesystem::is_directory(dir, ec))
            return {false, dir.string() + ": exists and is not a directory"};
        if (overwrite == Overwrite::Refuse)
            for (const auto &spec : specs)
                if (std::filesystem::exists(dir / spec.legacyFile, ec))
                    return {false, (dir / spec.legacyFile).string() + ": already exists (use --force to replace it)"};
        // Into an existing directory each member is replaced atomically on its own.
        for (int i = 0; i < kTensorCount; i++) {
            auto written = writeFileAtomically(dir / specs[i].legacyFile, tensorBytes(w.tensors[i]), overwrite);
            if (!written.ok)
                return written;
        }
        return {true, {}};
    }

    // A new directory appears whole or not at all: fill a temporary sibling, then rename it.
    const auto absolute = std::filesystem::absolute(dir, ec);
    const auto target = absolute.filename().empty() ? absolute.parent_path() : absolute;
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec)
        return {false, "cannot create " + target.parent_path().string() + ": " + ec.message()};
    std::string pattern = (target.parent_path() / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    if (!::mkdtemp(pattern.data()))
        return {false, "cannot create a temporary directory next to " + dir.string() + ": " + std::strerror(errno)};
    const std::filesystem::path temp = pattern;
    std::string error;
    for (int i = 0; i < kTensorCount && error.empty(); i++) {
        auto written = writeFileAtomically(temp / specs[i].legacyFile, tensorBytes(w.tensors[i]), Overwrite::Refuse);
        if (!written.ok)
            error = written.error;
    }
    if (error.empty()) {
        std::filesystem::permissions(temp,
                                     std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                         std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                         std::filesystem::perms::others_exec,
                                     ec);
        if (::rename(temp.c_str(), target.c_str()) != 0)
            error = "cannot rename the temporary directory onto " + dir.string() + ": " + std::strerror(errno);
    }
    if (!error.empty()) {
        std::filesystem::remove_all(temp, ec);
        return {false, error};
    }
    return {true, {}};
}

} // namespace beamscope::weights
