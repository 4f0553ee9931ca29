// beamscope-cli slurm status DIR / slurm cancel DIR: a Slurm autotune run
// (core/autotune/slurm.h) as squeue and its shards' records tell it, and
// scancel of all its jobs. Wiring only.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/text_table.h"
#include "core/autotune/slurm.h"

#include <iostream>
#include <map>

namespace beamscope::cli {

namespace {

int runStatus(const std::vector<std::string> &raw)
{
    Arguments args(raw, {"json"}, {});
    if (!args.ok())
        return usageError("slurm", "status", args.error());
    if (args.positional().size() != 1)
        return usageError("slurm", "status", "expected the run folder");
    const autotune::SlurmStatus st = autotune::slurmStatus(args.positional().front());
    if (!st.error.empty()) {
        std::cerr << "beamscope-cli slurm status: " << st.error << "\n";
        return kFailure;
    }
    if (args.flag("json")) {
        std::cout << st.toJson().dump(2) << "\n";
        return kSuccess;
    }
    std::map<std::string, int> counts;
    std::vector<std::vector<std::string>> rows = {{"batch", "task", "attempt", "job", "state", "schedules done"}};
    for (const auto &t : st.tasks) {
        counts[t.state]++;
        rows.push_back({std::to_string(t.batch), std::to_string(t.task), std::to_string(t.attempt), t.jobId, t.state,
                        std::to_string(t.records)});
    }
    printTable(std::cout, rows);
    std::cout << "batches complete: " << st.batchesDone << " of " << st.batches << "; merged samples: " << st.samples
              << "\ntasks:";
    for (const auto &[state, n] : counts)
        std::cout << " " << state << " " << n;
    std::cout << "\n";
    for (const std::string &j : st.pendingJobs)
        std::cout << "waiting: " << j << "\n";
    for (const std::string &r : st.resubmitted)
        std::cout << "resubmitted: " << r << "\n";
    for (const std::string &f : st.failedFinally)
        std::cout << "failed after every retry: " << f << "\n";
    return kSuccess;
}

int runCancel(const std::vector<std::string> &raw)
{
    Arguments args(raw, {}, {});
    if (!args.ok())
        return usageError("slurm", "cancel", args.error());
    if (args.positional().size() != 1)
        return usageError("slurm", "cancel", "expected the run folder");
    std::string error;
    const std::vector<std::string> ids = autotune::cancelSlurmRun(args.positional().front(), error);
    if (!error.empty()) {
        std::cerr << "beamscope-cli slurm cancel: " << error << "\n";
        return kFailure;
    }
    std::cerr << "slurm cancel: asked Slurm to cancel " << ids.size() << " job(s); rerun the autotune command with "
              << "--slurm to resubmit what is left\n";
    return kSuccess;
}

const CommandRegistration status{Command{"slurm", "status", "DIR [--json]",
                                         "a Slurm autotune run: tasks pending / running / done / failed, samples so far",
                                         runStatus}};
const CommandRegistration cancel{Command{"slurm", "cancel", "DIR", "scancel every job of a Slurm autotune run", runCancel}};

} // namespace

} // namespace beamscope::cli
