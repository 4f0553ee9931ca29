#pragma once
// Pipelines from a user's Halide 14 generator library (a .so built against
// Debian's Halide 14 whose static initialisers register generators with
// Halide's GeneratorRegistry). Loading is dlopen; generators registered by the
// library are those that appear in the registry once it is loaded. A library
// rebuilt at the same path is loaded again, from a fresh copy, so a search
// never runs code the file no longer holds.

#include "core/pipelines/pipeline.h"

#include <map>
#include <stdexcept>

namespace beamscope::pipelines {

class GeneratorError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The library's absolute path: a bare file name is one in the current folder,
// never one found on the system library path.
std::string absoluteLibraryPath(const std::string &path);

// Loads the library (again when the file changed since it was last loaded)
// and returns the names of the generators it registered. Throws
// GeneratorError naming the file on failure.
std::vector<std::string> loadGeneratorLibrary(const std::string &path);

// Builds generator `name` from the library at `path` with generator params
// (`k=v` as a map; unknown keys are an error naming them) for the host
// target, without lowering it. Every output must have estimates on every dimension and every
// input estimates (GeneratorError naming what is missing).
PipelineInstance buildGenerator(const std::string &path, const std::string &name,
                                const std::map<std::string, std::string> &params);

// Parses `k=v` entries (core/util/key_value.h); throws GeneratorError on a
// malformed entry or a key given twice.
std::map<std::string, std::string> parseGeneratorParams(const std::vector<std::string> &entries);

} // namespace beamscope::pipelines
