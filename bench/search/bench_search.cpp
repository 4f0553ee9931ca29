// Search speed on Halide's sixteen apps: Beamscope's whole autoschedule call (the FunctionDAG, the
// pipeline's features, the search and the winner's features: what Halide's search time covers)
// at beam 32 with each app's own weights and with the baseline, on one thread and on every
// thread, beside Halide v19's one-core time for the same app and weights
// (tests/fixtures/halide/real_apps/halide_times.tsv). Each run is a child process, so that its
// peak resident memory (wait4's ru_maxrss) is its own.
//
// usage: bench_search [--apps a,b,...] [--weights own,baseline] [--threads 1,0] [--beam N]
//                     [--repeats N] [--repeat-below SECONDS] [--golden-pipelines]
//   --threads: the thread counts to run (0: one per core; default "1,0")
//   --repeats: runs per row when the first takes less than --repeat-below (default 3 below 20 s);
//              the median is printed
//   --golden-pipelines: the six golden pipelines at beams 1 and 32 under the baseline, beside
//              Halide's apply_autoscheduler median (tests/fixtures/halide/pipelines/summary.json)

#include "core/pipelines/pipeline.h"
#include "core/search/autoschedule.h"
#include "core/util/json.h"
#include "core/util/key_value.h"
#include "core/util/median.h"
#include "core/util/parallel_for.h"
#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

using namespace beamscope;

namespace {

struct Run {
    bool ok = false;
    double seconds = 0; // the whole autoschedule call
    int64_t states = 0; // states the cost model costed
    double cost = 0;
    double peakMiB = 0;
    search::SearchPhases phases; // of the beam search inside the call
};

// One autoschedule call in a child process; its figures come back through a pipe.
Run runInChild(const pipelines::PipelineInfo &info, const std::string &weightsName, int beam, int threads)
{
    int fds[2];
    if (pipe(fds) != 0)
        return {};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        std::string why;
        const auto path = weights::resolveWeightsArgument(weightsName, std::nullopt, why);
        auto loaded = weights::loadWeights(path);
        if (!loaded.ok())
            _exit(2);
        const model::CostModel model(*loaded.weights);
        search::AutoscheduleParams params;
        params.beamSize = beam;
        params.threads = threads;
        pipelines::PipelineInstance instance = info.build();
        const auto start = std::chrono::steady_clock::now();
        const search::AutoscheduleOutcome out =
            search::autoschedule(info.name, instance.outputs, model, params, nullptr, nullptr);
        Run r;
        r.ok = true;
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        r.states = out.result.statesEvaluated;
        r.cost = out.result.cost;
        r.phases = out.result.phases;
        const ssize_t written = write(fds[1], &r, sizeof r);
        _exit(written == static_cast<ssize_t>(sizeof r) ? 0 : 3);
    }
    close(fds[1]);
    Run r;
    if (pid < 0 || read(fds[0], &r, sizeof r) != static_cast<ssize_t>(sizeof r))
        r.ok = false;
    close(fds[0]);
    int status = 0;
    struct rusage usage {};
    if (pid > 0 && wait4(pid, &status, 0, &usage) == pid)
        r.peakMiB = static_cast<double>(usage.ru_maxrss) / 1024.0; // kilobytes on Linux
    r.ok = r.ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return r;
}

// Halide's one-core beam-32 seconds, keyed by "app/weights" (empty: no figure).
std::map<std::string, double> halideTimes(const std::string &goldenDir)
{
    std::map<std::string, double> out;
    std::ifstream in(goldenDir + "/real_apps/halide_times.tsv");
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::stringstream ss(line);
        std::string app, weights, seconds;
        std::getline(ss, app, '\t');
        std::getline(ss, weights, '\t');
        std::getline(ss, seconds, '\t');
        if (!seconds.empty())
            out[app + "/" + weights] = std::atof(seconds.c_str());
    }
    return out;
}

int benchApps(const std::vector<std::string> &apps, const std::vector<std::string> &weightsKinds,
              const std::vector<int> &threadCounts, int beam, int repeats, double repeatBelow,
              const std::string &goldenDir)
{
    const std::map<std::string, double> halide = halideTimes(goldenDir);
    std::printf("# beam %d; threads 0 = %d (one per core); allocator %s; ratio (beam 32) = seconds / Halide's one-core "
                "seconds\n",
                beam, defaultThreadCount(), BEAMSCOPE_ALLOCATOR);
    std::printf("# phases (the last run's beam search, seconds): expand = generating and featurizing children, model "
                "= the cost model, record = costs and trace, select = hashes, queue, next beam; feat_thr = "
                "featurization seconds summed over threads\n");
    std::printf("%-26s %-26s %3s %9s %10s %10s %14s %9s %8s %9s %5s %8s %8s %8s %8s %9s\n", "app", "weights", "thr",
                "seconds", "states", "us/state", "cost", "halide_s", "ratio", "peak_MiB", "runs", "expand", "model",
                "record", "select", "feat_thr");
    int failures = 0;
    for (const pipelines::PipelineInfo &info : pipelines::builtinPipelines()) {
        if (info.origin != pipelines::Origin::App)
            continue;
        if (!apps.empty() && std::find(apps.begin(), apps.end(), info.name) == apps.end())
            continue;
        for (const std::string &kind : weightsKinds) {
            const std::string weightsName = kind == "own" ? info.name : kind;
            for (int threads : threadCounts) {
                std::vector<double> seconds;
                Run last;
                double peak = 0;
                for (int r = 0; r < repeats; r++) {
                    last = runInChild(info, weightsName, beam, threads);
                    if (!last.ok)
                        break;
                    seconds.push_back(last.seconds);
                    peak = std::max(peak, last.peakMiB);
                    if (last.seconds >= repeatBelow)
                        break;
                }
                if (!last.ok) {
                    std::printf("%-26s %-26s %3d  failed\n", info.name.c_str(), weightsName.c_str(), threads);
                    failures++;
                    continue;
                }
                const double s = median(seconds);
                std::printf("%-26s %-26s %3d %9.3f %10lld %10.2f %14.9g", info.name.c_str(), weightsName.c_str(),
                            threads, s, static_cast<long long>(last.states),
                            1e6 * s / double(std::max<int64_t>(1, last.states)), last.cost);
                const auto h = halide.find(info.name + "/" + weightsName);
                if (h != halide.end() && beam == 32)
                    std::printf(" %9.2f %8.3f", h->second, s / h->second);
                else
                    std::printf(" %9s %8s", "-", "-");
                const search::SearchPhases &p = last.phases;
                std::printf(" %9.0f %5zu %8.2f %8.2f %8.2f %8.2f %9.2f\n", peak, seconds.size(), p.expand, p.model,
                            p.record, p.select, p.featurizeThreadSeconds);
                std::fflush(stdout);
            }
        }
    }
    return failures == 0 ? 0 : 1;
}

// The six golden pipelines beside Halide's own search of them on its machine.
int benchGoldenPipelines(const std::string &goldenDir, int repeats)
{
    std::map<std::string, Json> golden; // "pipeline/beam"
    {
        std::ifstream in(goldenDir + "/pipelines/summary.json");
        std::stringstream ss;
        ss << in.rdbuf();
        if (auto j = parseJson(ss.str()); j.value)
            for (const Json &r : j.value->items())
                golden[r.find("pipeline")->toString() + "/" + std::to_string(r.find("beam_size")->toInt())] = r;
    }
    std::printf("%-20s %5s %10s %10s %10s | %10s %10s %8s\n", "pipeline", "beam", "seconds", "states", "cost",
                "halide_s", "h_states", "ratio");
    for (const pipelines::PipelineInfo &info : pipelines::builtinPipelines()) {
        if (info.origin != pipelines::Origin::Golden)
            continue;
        for (int beam : {1, 32}) {
            std::vector<double> seconds;
            Run last;
            for (int r = 0; r < repeats; r++) {
                last = runInChild(info, "baseline", beam, 1);
                seconds.push_back(last.seconds);
            }
            const double s = median(seconds);
            std::printf("%-20s %5d %10.4f %10lld %10.4f", info.name.c_str(), beam, s,
                        static_cast<long long>(last.states), last.cost);
            const auto g = golden.find(info.name + "/" + std::to_string(beam));
            if (g != golden.end()) {
                const double hs = g->second.find("apply_autoscheduler_seconds_median")->toNumber();
                std::printf(" | %10.4f %10lld %8.2f\n", hs,
                            static_cast<long long>(g->second.find("num_schedules_evaluated_by_cost_model")->toInt()),
                            s / hs);
            } else {
                std::printf(" |\n");
            }
            std::fflush(stdout);
        }
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::string> apps, weightsKinds{"own", "baseline"};
    std::vector<int> threadCounts{1, 0};
    int beam = 32, repeats = 3;
    double repeatBelow = 20;
    bool goldenPipelines = false;
    for (int i = 1; i < argc; i++) {
        const std::string k = argv[i];
        const std::string v = i + 1 < argc ? argv[i + 1] : "";
        if (k == "--golden-pipelines") {
            goldenPipelines = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "bench_search: %s needs a value\n", k.c_str());
            return 2;
        }
        i++;
        if (k == "--apps")
            apps = splitCommaList(v);
        else if (k == "--weights")
            weightsKinds = splitCommaList(v);
        else if (k == "--threads") {
            threadCounts.clear();
            for (const std::string &t : splitCommaList(v))
                threadCounts.push_back(std::max(0, std::atoi(t.c_str())));
        } else if (k == "--beam")
            beam = std::max(1, std::atoi(v.c_str()));
        else if (k == "--repeats")
            repeats = std::max(1, std::atoi(v.c_str()));
        else if (k == "--repeat-below")
            repeatBelow = std::atof(v.c_str());
        else {
            std::fprintf(stderr, "bench_search: unknown option %s\n", k.c_str());
            return 2;
        }
    }
    if (goldenPipelines)
        return benchGoldenPipelines(BEAMSCOPE_GOLDEN_DIR, repeats);
    return benchApps(apps, weightsKinds, threadCounts, beam, repeats, repeatBelow, BEAMSCOPE_GOLDEN_DIR);
}
