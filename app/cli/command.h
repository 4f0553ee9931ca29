#pragma once
// beamscope-cli's command table. Each cmd_*.cpp registers its commands with a
// static CommandRegistration, so main.cpp never changes when a command is added.
// main.cpp makes each command a CLI11 subcommand ("weights inspect": the
// subcommand inspect of the subcommand weights), lets the command declare its
// options on it, parses, and runs the one given.
//
// Exit status contract (ARCHITECTURE.md): 0 success, 1 invalid input or a
// failed check (message on stderr naming file and offset/field), 2 usage error.

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace beamscope::cli {

enum ExitCode { kSuccess = 0, kFailure = 1, kUsage = 2 };

// Runs a command once its options parsed; gets the arguments after the
// command's name as given (retrain --slurm passes them on to its jobs).
using CommandRun = std::function<int(const std::vector<std::string> &args)>;

struct Command {
    std::string group;    // "weights", or "" for a top-level command such as "predict"
    std::string name;     // "inspect"
    std::string synopsis; // "PATH [--json]"
    std::string summary;  // one line for the command list
    // Declares the command's options on its subcommand, bound to storage the
    // returned run reads (so it must outlive parsing: a shared_ptr both hold).
    std::function<CommandRun(CLI::App &)> define;
};

std::vector<Command> &commandTable();

struct CommandRegistration {
    explicit CommandRegistration(Command command) { commandTable().push_back(std::move(command)); }
};

// Prints "usage: beamscope-cli <group> <name> <synopsis>" plus why, returns kUsage.
int usageError(const Command &command, const std::string &why);
int usageError(const std::string &group, const std::string &name, const std::string &why);

} // namespace beamscope::cli
