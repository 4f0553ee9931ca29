#include "core/samples/hold_one_out_slurm.h"

#include "core/util/atomic_file.h"

namespace fs = std::filesystem;

namespace beamscope::samples {

namespace {

bool writeText(const fs::path &path, const std::string &text, std::string &error)
{
    const WriteResult w = replaceTextFile(path, text);
    if (!w.ok)
        error = w.error;
    return w.ok;
}

} // namespace

std::optional<HoldOneOutSubmission> submitHoldOneOut(const std::vector<std::string> &apps, const std::string &cli,
                                                     const std::vector<std::string> &retrainArgs,
                                                     const fs::path &outDirIn, const SlurmOptions &slurm,
                                                     std::string &error)
{
    if (apps.empty()) {
        error = "no sample names an app, so there is nothing to hold out";
        return std::nullopt;
    }
    const fs::path out = fs::absolute(outDirIn);
    const fs::path dir = out / "slurm";
    std::string args;
    for (const std::string &a : retrainArgs)
        args += " " + shellQuote(a);
    std::string appList;
    for (const std::string &a : apps)
        appList += a + "\n";
    const std::string task =
        "#!/bin/bash\n"
        "# One held-out app of a hold-one-out training (beamscope-cli retrain --hold-one-out --slurm; docs/slurm.md).\n"
        "#SBATCH --job-name=beamscope-hold-one-out\n"
        "#SBATCH --output=" +
        dir.string() + "/logs/hold-one-out-%A_%a.log\n" + sbatchDirectives(slurm, true) +
        "set -euo pipefail\n"
        "app=\"$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " +
        shellQuote((dir / "apps.txt").string()) +
        ")\"\n"
        "exec " +
        shellQuote(cli) + " retrain" + args + " --hold-one-out --out-dir " + shellQuote(out.string()) +
        " --only-app \"$app\" --resume\n";
    const std::string table = shellQuote((out / "hold-one-out.txt").string());
    const std::string json = shellQuote((out / "hold-one-out.json").string());
    const std::string assemble =
        "#!/bin/bash\n"
        "# The quality table of a hold-one-out training, once every app's task has ended.\n"
        "#SBATCH --job-name=beamscope-hold-one-out-table\n"
        "#SBATCH --output=" +
        dir.string() + "/logs/hold-one-out-table-%j.log\n" + sbatchDirectives(slurm, false) +
        "set -euo pipefail\n"
        "cli=" +
        shellQuote(cli) +
        "\n"
        "\"$cli\" retrain" +
        args + " --hold-one-out --out-dir " + shellQuote(out.string()) + " --resume > " + table +
        ".tmp\n"
        "\"$cli\" retrain" +
        args + " --hold-one-out --out-dir " + shellQuote(out.string()) + " --resume --json > " + json +
        ".tmp\n"
        "mv " +
        table + ".tmp " + table +
        "\n"
        "mv " +
        json + ".tmp " + json + "\n";
    std::error_code ec;
    fs::create_directories(dir / "logs", ec);
    if (!writeText(dir / "apps.txt", appList, error) || !writeText(dir / "hold-one-out.sbatch", task, error) ||
        !writeText(dir / "hold-one-out-table.sbatch", assemble, error))
        return std::nullopt;

    HoldOneOutSubmission s;
    s.apps = apps;
    std::vector<std::string> array = {"--array=0-" + std::to_string(apps.size() - 1)};
    array.insert(array.end(), slurm.sbatchArgs.begin(), slurm.sbatchArgs.end());
    array.push_back((dir / "hold-one-out.sbatch").string());
    const auto arrayJob = sbatch(array, error);
    if (!arrayJob)
        return std::nullopt;
    s.arrayJob = *arrayJob;
    std::vector<std::string> last = {"--dependency=afterany:" + s.arrayJob};
    last.insert(last.end(), slurm.sbatchArgs.begin(), slurm.sbatchArgs.end());
    last.push_back((dir / "hold-one-out-table.sbatch").string());
    const auto assembleJob = sbatch(last, error);
    if (!assembleJob) {
        std::string ignored;
        scancel({s.arrayJob}, ignored);
        return std::nullopt;
    }
    s.assembleJob = *assembleJob;
    return s;
}

} // namespace beamscope::samples
