#pragma once
// KEY=VALUE lists as the command line takes them (generator parameters,
// `--param k=v`). Plain text, no Halide: core/pipelines hands the result to
// Halide's GeneratorRegistry, and the fuzzer can reach this without it.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace beamscope {

// "k=v": the key is a name as Halide accepts for generator parameters
// (letters, digits and '_', not starting with a digit); the value is the rest
// after the first '=' and may be empty or hold '='. On failure returns nothing
// and sets *error to "generator param \"TEXT\": expected ..., found ...".
std::optional<std::pair<std::string, std::string>> parseKeyValue(std::string_view text, std::string *error);

// Every entry of a list; a key given twice is an error (which one should win
// is the user's to say), as is any malformed entry.
std::optional<std::map<std::string, std::string>> parseKeyValues(const std::vector<std::string> &entries,
                                                                 std::string *error);

// The items of a comma-separated command-line list ("a,b,,c" -> a, b, c): empty items are dropped.
std::vector<std::string> splitCommaList(const std::string &list);

} // namespace beamscope
