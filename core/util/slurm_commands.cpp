#include "core/util/slurm_commands.h"

#include "core/util/child_process.h"

#include <sstream>

namespace beamscope {

std::string sbatchDirectives(const SlurmOptions &s, bool withDevices)
{
    std::string d;
    if (!s.partition.empty())
        d += "#SBATCH --partition=" + s.partition + "\n";
    if (!s.account.empty())
        d += "#SBATCH --account=" + s.account + "\n";
    if (!s.time.empty())
        d += "#SBATCH --time=" + s.time + "\n";
    if (withDevices && s.gpusPerTask > 0)
        d += "#SBATCH --gres=gpu:" + std::to_string(s.gpusPerTask) + "\n";
    if (withDevices && s.cpusPerTask > 0)
        d += "#SBATCH --cpus-per-task=" + std::to_string(s.cpusPerTask) + "\n";
    return d;
}

std::string shellQuote(const std::string &word)
{
    std::string out = "'";
    for (char c : word)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::optional<std::string> sbatch(const std::vector<std::string> &args, std::string &error)
{
    std::vector<std::string> argv = {"sbatch", "--parsable"};
    argv.insert(argv.end(), args.begin(), args.end());
    const ChildResult r = runChild(argv, 120);
    if (!r.started) {
        error = "sbatch: " + r.startError + " (is Slurm installed, and is this a submit host?)";
        return std::nullopt;
    }
    if (r.exitCode != 0) {
        error = "sbatch: " + r.err;
        return std::nullopt;
    }
    // --parsable prints "id" or "id;cluster".
    return r.out.substr(0, r.out.find_first_of(";\n"));
}

std::map<std::string, std::string> squeueStates(const std::vector<std::string> &jobIds)
{
    std::map<std::string, std::string> states;
    if (jobIds.empty())
        return states;
    std::string list;
    for (const std::string &id : jobIds)
        list += (list.empty() ? "" : ",") + id;
    const ChildResult q = runChild({"squeue", "-h", "-r", "-o", "%i|%T", "-j", list}, 60);
    std::istringstream lines(q.out);
    for (std::string line; std::getline(lines, line);) {
        const size_t bar = line.find('|');
        if (bar != std::string::npos)
            states[line.substr(0, bar)] = line.substr(bar + 1);
    }
    return states;
}

bool scancel(const std::vector<std::string> &jobIds, std::string &error)
{
    std::vector<std::string> argv = {"scancel"};
    argv.insert(argv.end(), jobIds.begin(), jobIds.end());
    const ChildResult r = runChild(argv, 60);
    if (!r.started || r.exitCode != 0) {
        error = "scancel: " + (r.started ? r.err : r.startError);
        return false;
    }
    return true;
}

} // namespace beamscope
