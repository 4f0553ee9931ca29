#pragma once
// Writes that never damage what the user owns: data goes to a temporary file
// in the destination's folder and is renamed into place only when complete.

#include <filesystem>
#include <optional>
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
WriteResult writeFileAtomically(const std::filesystem::path &path, std::span<const char> bytes, Overwrite overwrite);

// Replaces path with text, atomically, creating its folder first: for files
// a program owns (run folders' records, manifests, scripts).
WriteResult replaceTextFile(const std::filesystem::path &path, const std::string &text);

// The whole file, or nothing when it cannot be read.
std::optional<std::string> readTextFile(const std::filesystem::path &path);

} // namespace beamscope
