// beamscope-cli slurm status DIR / slurm cancel DIR: a Slurm autotune run
// (core/autotune/slurm.h) as squeue and its shards' records tell it, and
// scancel of all its jobs. Wiring only.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/text_table.h"
#include "core/autotune/slurm.h"

#include <iostream>
#include <map>
#include <memory>

namespace beamscope::cli {

namespace {

struct StatusOptions {
    std::string folder;
    bool json = false;
};

int runStatus(const StatusOptions &options)
{
    const autotune::SlurmStatus st = autotune::slurmStatus(options.folder);
    if (!st.error.empty()) {
        std::cerr << "beamscope-cli slurm status: " << st.error << "\n";
        return kFailure;
    }
    if (options.json) {
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

int runCancel(const std::string &folder)
{
    std::string error;
    const std::vector<std::string> ids = autotune::cancelSlurmRun(folder, error);
    if (!error.empty()) {
        std::cerr << "beamscope-cli slurm cancel: " << error << "\n";
        return kFailure;
    }
    std::cerr << "slurm cancel: asked Slurm to cancel " << ids.size() << " job(s); rerun the autotune command with "
              << "--slurm to resubmit what is left\n";
    return kSuccess;
}

CommandRun defineStatus(CLI::App &app)
{
    auto o = std::make_shared<StatusOptions>();
    app.add_option("DIR", o->folder, "the run folder (autotune --out)")->required();
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runStatus(*o); };
}

CommandRun defineCancel(CLI::App &app)
{
    auto folder = std::make_shared<std::string>();
    app.add_option("DIR", *folder, "the run folder (autotune --out)")->required();
    return [folder](const std::vector<std::string> &) { return runCancel(*folder); };
}

const CommandRegistration status{
    Command{"slurm", "status", "DIR [--json]",
            "a Slurm autotune run: tasks pending / running / done / failed, samples so far", defineStatus}};
const CommandRegistration cancel{
    Command{"slurm", "cancel", "DIR", "scancel every job of a Slurm autotune run", defineCancel}};

} // namespace

} // namespace beamscope::cli
