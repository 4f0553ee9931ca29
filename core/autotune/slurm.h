#pragma once
// Autotune on a Slurm cluster (docs/slurm.md): each batch is a job array whose
// tasks are shards of the batch (AutotuneOptions::shardIndex/shardCount),
// each writing a run folder of its own under <out>/slurm/batch_NNNN/task_K,
// and a merge job that depends on the array (afterany, so that it also runs
// when a task failed), gathers the shards into <out> as a local run would
// have written them, resubmits failed tasks up to a limit, retrains, and
// submits the next batch. Slurm does the distribution; the samples, records
// and manifest are those of a local run with the same seeds.
//
// What was submitted is kept in <out>/slurm/plan.json (the command the tasks
// run, the Slurm options) and <out>/slurm/jobs.json (every submission).

#include "core/autotune/autotune_request.h"
#include "core/util/json.h"
#include "core/util/slurm_commands.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::autotune {

using beamscope::SlurmOptions;

struct SlurmPlan {
    std::filesystem::path out;             // the run folder (on a file system every node sees)
    std::string cli;                       // beamscope-cli, absolute
    std::vector<std::string> autotuneArgs; // the autotune command's own options, --out and Slurm ones left out
    int batches = 1;
    SlurmOptions slurm;

    Json toJson() const;
    static std::optional<SlurmPlan> fromJson(const Json &json, std::string *error);
};

std::filesystem::path slurmFolder(const std::filesystem::path &out); // <out>/slurm
std::filesystem::path shardFolder(const std::filesystem::path &out, int batch, int task);

// The two scripts (written into <out>/slurm/ by submitBatch).
std::string arrayScript(const SlurmPlan &plan);
std::string mergeScript(const SlurmPlan &plan);

struct Submission {
    int batch = 0;
    int attempt = 0;
    std::vector<int> tasks;
    std::string arrayJob, mergeJob;
    Json toJson() const;
};

// Writes plan.json and the scripts, submits the array (those tasks of the
// batch) and its merge job, and appends to jobs.json. Empty with error set
// when sbatch is missing or refuses (its message).
std::optional<Submission> submitBatch(const SlurmPlan &plan, int batch, const std::vector<int> &tasks, int attempt,
                                      std::string &error);

std::optional<SlurmPlan> readPlan(const std::filesystem::path &out, std::string &error);
std::vector<Submission> readSubmissions(const std::filesystem::path &out);

// Shards of the batch whose run did not complete (no batch marker in their folder).
std::vector<int> incompleteShards(const std::filesystem::path &out, int batch, int tasks);

struct SlurmTaskState {
    int batch = 0, task = 0, attempt = 0;
    std::string jobId;  // "<array>_<task>"
    std::string state;  // squeue's (PENDING, RUNNING, ...), else "done" or "failed"
    size_t records = 0; // schedules the shard has finished
};

struct SlurmStatus {
    std::vector<SlurmTaskState> tasks;    // the latest submission of each task of each batch
    std::vector<std::string> pendingJobs; // merge jobs still queued or running
    int batchesDone = 0, batches = 0;
    size_t samples = 0;                     // merged samples in <out>
    std::vector<std::string> resubmitted;   // "batch B task K (attempt A)"
    std::vector<std::string> failedFinally; // tasks given up after the retries
    std::string error;
    Json toJson() const;
};

SlurmStatus slurmStatus(const std::filesystem::path &out);

// Prepares the run folder (manifest, apps.tsv, starting weights: the
// parameters every task and merge must share) and submits the first batch
// not yet complete. cli: the beamscope-cli the jobs run (on a path every node
// sees). Empty with error set when the request or sbatch fails; with
// *allComplete set and no error when nothing is left to do.
std::optional<Submission> submitSlurmRun(const AutotuneRequest &request, const SlurmOptions &slurm,
                                         const std::string &cli, std::string &error, bool *allComplete = nullptr);

// The merge job's work for `batch` (attempt `attempt`): resubmits the shards
// that did not complete while attempts remain; else gathers every shard into
// the run folder (what failed for good is named in givenUp), retrains as the
// request asks, and submits the next batch.
struct MergeOutcome {
    bool ok = false;
    std::string error;
    std::optional<Submission> resubmitted; // failed shards sent again: nothing merged yet
    std::vector<int> givenUp;              // shards merged without completing
    AutotuneResult result;                 // the merge as a run of the batch
    std::optional<Submission> next;        // the next batch, submitted
};
MergeOutcome mergeSlurmBatch(AutotuneRequest request, int batch, int attempt, Progress *progress = nullptr,
                             const AutotuneEvents &events = {});

// scancel of every job of the run; the jobs it asked to cancel, or error.
std::vector<std::string> cancelSlurmRun(const std::filesystem::path &out, std::string &error);

} // namespace beamscope::autotune
