#include "core/util/atomic_file.h"

#include <cerrno>
#include <fstream>
#include <sstream>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace beamscope {

namespace {
std::string systemError(const std::string &what, const std::filesystem::path &path)
{
    return what + " " + path.string() + ": " + std::strerror(errno);
}
} // namespace

WriteResult writeFileAtomically(const std::filesystem::path &path, std::span<const char> bytes, Overwrite overwrite)
{
    std::error_code ec;
    if (overwrite == Overwrite::Refuse && std::filesystem::exists(path, ec))
        return {false, path.string() + ": already exists (use --force to replace it)"};

    const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    std::string pattern = (folder / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0)
        return {false, systemError("cannot create a temporary file next to", path)};

    size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            auto error = systemError("cannot write", pattern);
            ::close(fd);
            ::unlink(pattern.c_str());
            return {false, error};
        }
        written += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0 || ::fchmod(fd, 0644) != 0) {
        auto error = systemError("cannot flush", pattern);
        ::close(fd);
        ::unlink(pattern.c_str());
        return {false, error};
    }
    ::close(fd);
    if (::rename(pattern.c_str(), path.c_str()) != 0) {
        auto error = systemError("cannot rename the temporary file onto", path);
        ::unlink(pattern.c_str());
        return {false, error};
    }
    return {true, {}};
}

WriteResult replaceTextFile(const std::filesystem::path &path, const std::string &text)
{
    std::error_code ec;
    if (path.has_parent_path())
        std::filesystem::create_directories(path.parent_path(), ec);
    return writeFileAtomically(path, std::span<const char>(text.data(), text.size()), Overwrite::Replace);
}

std::optional<std::string> readTextFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace beamscope
