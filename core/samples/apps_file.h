#pragma once
// A sample root's apps.tsv (docs/samples.md): "pipeline_id<TAB>app" per line,
// '#' starts a comment, blank lines are skipped. It names the app of samples
// whose folder layout does not (hold-one-out reads it).

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace beamscope::samples {

// Adds each line's mapping to apps; every bad line adds an error
// "<sourceName>:<line>: <field>: expected ..., found ..." and is left out.
// Returns whether there was none. An id mapped twice to the same app is fine;
// to two apps it is an error.
bool parseAppsTsv(std::string_view text, const std::string &sourceName, std::map<int32_t, std::string> &apps,
                  std::vector<std::string> &errors);

// The same for a file; a file that cannot be read is one error.
bool readAppsTsv(const std::filesystem::path &path, std::map<int32_t, std::string> &apps,
                 std::vector<std::string> &errors);

} // namespace beamscope::samples
