#pragma once
// Writes that never damage what the user owns: data goes to a temporary file
// in the destination's folder and is renamed into place only when complete.

#include <filesystem>
#include <span>
#include <string>

namespace beamscope {

struct WriteResult {
    bool ok = false;
    std::string error; // names the file and the reason when !ok
};

enum class Overwrite { Refuse, Replace };

// Atomically writes bytes to path. With Overwrite::Refuse an existing path is
// left untouched and reported as an error.
WriteResult writeFileAtomically(const std::filesystem::path &path, std::span<const char> bytes,
                                Overwrite overwrite);

} // namespace beamscope
