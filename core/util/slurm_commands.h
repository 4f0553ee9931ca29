#pragma once
// The Slurm commands Beamscope runs (sbatch, squeue, scancel) and the options
// of the jobs it submits, shared by the autotune loop's job arrays
// (core/autotune/slurm.h) and hold-one-out training's (core/samples/hold_one_out_slurm.h).

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace beamscope {

struct SlurmOptions {
    int tasks = 2; // array tasks per batch (autotune)
    std::string partition, account, time;
    int gpusPerTask = 0;                 // --gres=gpu:N (0: none, e.g. OpenCL on CPU partitions)
    int cpusPerTask = 0;                 // --cpus-per-task (0: Slurm's default)
    std::vector<std::string> sbatchArgs; // passed to sbatch as they are
    int retries = 2;                     // resubmissions of a failed task
};

// The #SBATCH lines for the options (withDevices: --gres and --cpus-per-task too).
std::string sbatchDirectives(const SlurmOptions &options, bool withDevices);

// A word for a bash script: single-quoted.
std::string shellQuote(const std::string &word);

// sbatch --parsable ARGS...; the job id, or nothing with error set (sbatch's
// message, or that it is not installed).
std::optional<std::string> sbatch(const std::vector<std::string> &args, std::string &error);

// squeue's state of each listed job; array tasks one by one ("123_4" ->
// "RUNNING"); jobs that have left the queue are absent.
std::map<std::string, std::string> squeueStates(const std::vector<std::string> &jobIds);

// scancel of the jobs; false with error set when scancel fails.
bool scancel(const std::vector<std::string> &jobIds, std::string &error);

} // namespace beamscope
