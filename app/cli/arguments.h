#pragma once
// The glue between the commands and CLI11: flags and text options declared
// the same way by every command, the options several commands share, and
// one function that parses a command line and says, in the project's words,
// what is wrong with it. Options are written --name value or --name=value;
// a repeated option's last value counts unless it is declared repeatable.
// Used by beamscope-cli and beamscope-bench-worker (CLI11 and std only).

#include "app/cli/option_values.h"

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace beamscope::cli {

// --name alone; --name=value is refused (parseCommandLine says so).
CLI::Option *addFlag(CLI::App &app, const std::string &name, bool &target, const std::string &help);
// --json: the result as one JSON document on stdout.
CLI::Option *addJsonFlag(CLI::App &app, bool &target);
// --name TEXT; `target` stays empty when the option is not given.
CLI::Option *addText(CLI::App &app, const std::string &name, std::optional<std::string> &target,
                     const std::string &help);
// --name TEXT into a string holding its default, which the help shows.
CLI::Option *addText(CLI::App &app, const std::string &name, std::string &target, const std::string &help);
// --name TEXT, repeatable, one value each time (--param k=v --param k2=v2).
CLI::Option *addRepeated(CLI::App &app, const std::string &name, std::vector<std::string> &target,
                         const std::string &help);

// --weights W and --weights-dir DIR of the search commands (cost_model_loading.h chooses between them).
struct WeightsOptions {
    std::optional<std::string> weights, weightsDir;
};
void addWeightsOptions(CLI::App &app, WeightsOptions &options);

// --samples DIR... (required, repeatable, each taking every path up to the
// next option), plus any path given on its own: predict, retrain, compare-weights.
struct SampleRoots {
    std::vector<std::string> samples, loose;
    std::vector<std::filesystem::path> paths() const;
};
void addSampleRoots(CLI::App &app, SampleRoots &roots);

struct ParseOutcome {
    enum class Kind { Parsed, Help, Usage };
    Kind kind = Kind::Parsed;
    std::string text; // Help: the help of the command asked about; Usage: what is wrong
    // The deepest (sub)command the arguments reached: the one to show the usage of.
    const CLI::App *command = nullptr;
};

// Parses `args` (without the program name) with `app`. A CLI11 error, a flag
// given a value or an argument no option takes becomes Usage with a
// message naming the option and, for a bad value, what it expects and what
// it was given ("unknown option --x", "option --beam needs a value",
// "--beam: expected an integer in 1..100000, found 99999999999"). It lets
// every (sub)command of `app` keep the arguments it does not know, so those
// are reported here in those words rather than in CLI11's.
ParseOutcome parseCommandLine(CLI::App &app, const std::vector<std::string> &args);

// The raw arguments without the named options (flags alone, valued ones with
// their value, "--name value" or "--name=value"): what a command passes on to
// the jobs it submits.
std::vector<std::string> withoutOptions(const std::vector<std::string> &args, const std::set<std::string> &flags,
                                        const std::set<std::string> &valued);

} // namespace beamscope::cli
