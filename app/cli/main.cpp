// beamscope-cli: the explorer's features, headless. Dispatches to the commands
// registered in cmd_*.cpp.

#include "app/cli/command.h"

#include <algorithm>
#include <tuple>
#include <iostream>

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

int usageError(const Command &command, const std::string &why)
{
    std::cerr << "beamscope-cli: " << why << "\nusage: beamscope-cli "
              << (command.group.empty() ? "" : command.group + " ") << command.name << " "
              << command.synopsis << "\n";
    return kUsage;
}

namespace {
void printUsage(std::ostream &out)
{
    auto commands = commandTable();
    std::sort(commands.begin(), commands.end(), [](const Command &a, const Command &b) {
        return std::tie(a.group, a.name) < std::tie(b.group, b.name);
    });
    out << "usage: beamscope-cli COMMAND [ARGS]\n\ncommands:\n";
    for (const auto &c : commands) {
        std::string head = (c.group.empty() ? "" : c.group + " ") + c.name + " " + c.synopsis;
        out << "  " << head << "\n      " << c.summary << "\n";
    }
    out << "\nExit status: 0 success, 1 invalid input or failed check, 2 usage error.\n";
}
} // namespace

} // namespace beamscope::cli

int main(int argc, char **argv)
{
    using namespace beamscope::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        printUsage(args.empty() ? std::cerr : std::cout);
        return args.empty() ? kUsage : kSuccess;
    }
    const auto &table = commandTable();
    // A command is "group name" or a top-level "name".
    for (const auto &command : table) {
        if (!command.group.empty() && args.size() >= 2 && args[0] == command.group && args[1] == command.name)
            return command.run(std::vector<std::string>(args.begin() + 2, args.end()));
        if (command.group.empty() && args[0] == command.name)
            return command.run(std::vector<std::string>(args.begin() + 1, args.end()));
    }
    std::cerr << "beamscope-cli: unknown command '" << args[0] << (args.size() > 1 ? " " + args[1] : "") << "'\n";
    printUsage(std::cerr);
    return kUsage;
}
