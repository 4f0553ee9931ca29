#include "core/util/gzip_file.h"

#include "core/util/atomic_file.h"

#include <zlib.h>

#include <memory>

namespace beamscope {

std::filesystem::path existingOrGzipped(const std::filesystem::path &path)
{
    std::error_code ec;
    if (std::filesystem::exists(path, ec))
        return path;
    std::filesystem::path gz = path;
    gz += ".gz";
    return std::filesystem::exists(gz, ec) ? gz : path;
}

std::optional<std::string> readTextFileOrGzipped(const std::filesystem::path &path, std::string *error)
{
    const std::filesystem::path found = existingOrGzipped(path);
    const auto fail = [&](const std::string &why) -> std::optional<std::string> {
        if (error)
            *error = found.string() + ": " + why;
        return std::nullopt;
    };
    if (found.extension() != ".gz") {
        std::optional<std::string> text = readTextFile(found);
        return text ? text : fail("cannot read it");
    }
    const std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(found.c_str(), "rb"), gzclose);
    if (!file)
        return fail("cannot open it");
    std::string text;
    char buffer[1 << 16];
    for (;;) {
        const int n = gzread(file.get(), buffer, sizeof buffer);
        if (n < 0) {
            int code = 0;
            const char *message = gzerror(file.get(), &code);
            return fail(std::string("damaged gzip data after ") + std::to_string(text.size()) +
                        " bytes of text: " + (message ? message : "unknown error"));
        }
        if (n == 0)
            break;
        text.append(buffer, static_cast<size_t>(n));
    }
    return text;
}

} // namespace beamscope
