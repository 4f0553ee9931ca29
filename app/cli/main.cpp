// beamscope-cli: the explorer's features, headless. Makes the commands
// registered in cmd_*.cpp CLI11 subcommands, parses, and runs the one given.

#include "app/cli/arguments.h"
#include "app/cli/command.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <tuple>

namespace beamscope::cli {

std::vector<Command> &commandTable()
{
    static std::vector<Command> table;
    return table;
}

int usageError(const std::string &group, const std::string &name, const std::string &why)
{
    for (const auto &command : commandTable())
        if (command.group == group && command.name == name)
            return usageError(command, why);
    std::cerr << "beamscope-cli: " << why << "\n";
    return kUsage;
}

namespace {

std::string usageLine(const Command &command)
{
    return "usage: beamscope-cli " + (command.group.empty() ? "" : command.group + " ") + command.name + " " +
           command.synopsis;
}

const char *const kExitStatus = "Exit status: 0 success, 1 invalid input or failed check, 2 usage error.\n";

// Every command (of one group, when given) with its synopsis and summary.
void printUsage(std::ostream &out, const std::string &group = {})
{
    auto commands = commandTable();
    std::sort(commands.begin(), commands.end(),
              [](const Command &a, const Command &b) { return std::tie(a.group, a.name) < std::tie(b.group, b.name); });
    out << "usage: beamscope-cli " << (group.empty() ? "COMMAND" : group + " COMMAND") << " [ARGS]\n\ncommands:\n";
    for (const auto &c : commands) {
        if (!group.empty() && c.group != group)
            continue;
        std::string head = (c.group.empty() ? "" : c.group + " ") + c.name + " " + c.synopsis;
        out << "  " << head << "\n      " << c.summary << "\n";
    }
    out << "\n" << kExitStatus;
}

// "beamscope-cli weights inspect --help": the synopsis the command list
// shows, the summary, then CLI11's description of each option.
class CommandHelp : public CLI::Formatter {
public:
    explicit CommandHelp(std::string usage) : m_usage(std::move(usage)) {}
    std::string make_help(const CLI::App *app, std::string, CLI::AppFormatMode mode) const override
    {
        // CLI11's sections start with their own blank line.
        return m_usage + "\n\n" + app->get_description() + "\n" + make_positionals(app) + make_groups(app, mode) +
               "\n" + kExitStatus;
    }

private:
    std::string m_usage;
};

struct Defined {
    const Command *command;
    CommandRun run;
};

} // namespace

int usageError(const Command &command, const std::string &why)
{
    std::cerr << "beamscope-cli: " << why << "\n" << usageLine(command) << "\n";
    return kUsage;
}

} // namespace beamscope::cli

int main(int argc, char **argv)
{
    using namespace beamscope::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        printUsage(args.empty() ? std::cerr : std::cout);
        return args.empty() ? kUsage : kSuccess;
    }

    CLI::App root("Halide's learned GPU autoscheduler (Anderson2021) from the command line", "beamscope-cli");
    root.set_help_flag(); // the command list above is the top-level help
    root.require_subcommand(1);
    std::map<std::string, CLI::App *> groups;
    std::map<const CLI::App *, Defined> defined;
    for (const Command &command : commandTable()) {
        CLI::App *parent = &root;
        if (!command.group.empty()) {
            CLI::App *&group = groups[command.group];
            if (!group) {
                group = root.add_subcommand(command.group, "the " + command.group + " commands");
                group->set_help_flag("-h,--help", "list the " + command.group + " commands and exit");
                group->require_subcommand(1);
            }
            parent = group;
        }
        CLI::App *leaf = parent->add_subcommand(command.name, command.summary);
        leaf->set_help_flag("-h,--help", "print this help and exit");
        leaf->formatter(std::make_shared<CommandHelp>(usageLine(command)));
        defined[leaf] = {&command, command.define(*leaf)};
    }

    const ParseOutcome outcome = parseCommandLine(root, args);
    const auto found = defined.find(outcome.command);
    if (found == defined.end()) {
        // Not as far as a command: "beamscope-cli bogus", "beamscope-cli weights", "beamscope-cli weights --help".
        const bool group = outcome.command != &root;
        if (group && outcome.kind == ParseOutcome::Kind::Help) {
            printUsage(std::cout, outcome.command->get_name());
            return kSuccess;
        }
        std::cerr << "beamscope-cli: unknown command '" << args[0] << (args.size() > 1 ? " " + args[1] : "") << "'\n";
        printUsage(std::cerr, group ? outcome.command->get_name() : "");
        return kUsage;
    }
    const Defined &command = found->second;
    switch (outcome.kind) {
    case ParseOutcome::Kind::Help: std::cout << outcome.text; return kSuccess;
    case ParseOutcome::Kind::Usage: return usageError(*command.command, outcome.text);
    case ParseOutcome::Kind::Parsed: break;
    }
    const size_t words = command.command->group.empty() ? 1 : 2;
    return command.run(std::vector<std::string>(args.begin() + static_cast<std::ptrdiff_t>(words), args.end()));
}
