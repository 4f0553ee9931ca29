#pragma once
// The sha256 a weights file or legacy directory is known by, in the CLI
// (`weights inspect`) and the explorer (the Weights workspace) alike.

#include "core/weights/weights.h"

#include <filesystem>
#include <optional>
#include <string>

namespace beamscope::weights {

// A file's own digest; a directory's is that of the equivalent hwf1 bytes, so
// a file and the directory converted from it have the same sha256. Empty when
// the file cannot be read, or a directory did not load.
std::optional<std::string> weightsDigest(const std::filesystem::path &path, const LoadResult &loaded);

} // namespace beamscope::weights
