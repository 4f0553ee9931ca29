#pragma once
// Reading text that may be stored gzipped. Recorded data (Halide's search trees
// of its apps, say) is kept as `name.gz` where it is large; readers ask for
// `name` and get the text either way.

#include <filesystem>
#include <optional>
#include <string>

namespace beamscope {

// The text of `path`, or when only `path` + ".gz" exists its decompressed
// text; nothing when neither can be read or the gzip stream is damaged (then
// `error`, when given, says which file and why).
std::optional<std::string> readTextFileOrGzipped(const std::filesystem::path &path, std::string *error = nullptr);

// `path` when it exists, else `path` + ".gz" when that exists, else `path`.
std::filesystem::path existingOrGzipped(const std::filesystem::path &path);

} // namespace beamscope
