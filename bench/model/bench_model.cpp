// beamscope-bench-model: speed of the Anderson2021 cost model.
//   inference: stage evaluations per second at batch 1, 32 and 1024 with 13
//              stages, on 1 thread and on all hardware threads (median of runs);
//   training:  samples per second of trainStep on a batch of 64 x 13 stages.
// Usage: beamscope-bench-model [--weights FILE] [--runs N]
// Without --weights the network is filled with deterministic pseudo-random
// values (speed does not depend on the values).

#include "core/model/cost_model.h"
#include "core/model/network_kernel.h"
#include "core/model/training.h"
#include "core/weights/weights.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <time.h>

using namespace beamscope;
using Clock = std::chrono::steady_clock;

namespace {

struct Rng {
    uint64_t state;
    double uniform()
    {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>((state >> 32) >> 8) / 16777216.0;
    }
};

std::vector<float> features(Rng &rng, size_t count, bool schedule)
{
    std::vector<float> out(count);
    for (size_t i = 0; i < count; ++i) {
        const double u = rng.uniform();
        if (!schedule)
            out[i] = u < 0.7 ? 0.0f : static_cast<float>(1 + static_cast<int>(8 * rng.uniform()));
        else {
            const int c = static_cast<int>(i % 73);
            const bool fraction =
                c == 52 || c == 53 || c == 55 || c == 56 || (c >= 62 && c <= 65) || (c >= 67 && c <= 70);
            out[i] = fraction ? static_cast<float>(0.25 + 0.75 * u)
                              : static_cast<float>(u < 0.25 ? 0 : 1 + 1e4 * rng.uniform());
        }
    }
    return out;
}

// CPU time of the calling thread: on a shared machine this excludes the time
// other processes had the core, unlike wall time.
double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double processCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    std::string weightsPath;
    int runs = 15;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--weights") == 0 && i + 1 < argc)
            weightsPath = argv[++i];
        else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: %s [--weights FILE] [--runs N]\n", argv[0]);
            return 2;
        }
    }

    weights::Weights w = weights::zeroWeights(weights::Network::Anderson2021);
    if (!weightsPath.empty()) {
        auto loaded = weights::loadWeights(weightsPath);
        if (!loaded.ok()) {
            std::fprintf(stderr, "%s\n",
                         loaded.firstError() ? loaded.firstError()->format().c_str() : weightsPath.c_str());
            return 1;
        }
        w = *loaded.weights;
    } else {
        Rng rng{7};
        for (auto &t : w.tensors)
            for (float &v : t.data)
                v = static_cast<float>(rng.uniform() - 0.4);
    }

    const model::CostModel costModel(w);
    const int stages = 13;
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    std::printf("kernel: %s, hardware threads: %u, runs per figure: %d (median)\n",
                model::networkKernelName(model::selectNetworkKernel()), hardware, runs);

    Rng rng{11};
    const auto pf = features(rng, static_cast<size_t>(stages) * 280, false);
    const auto sf = features(rng, static_cast<size_t>(1024) * stages * 73, true);
    const model::PipelineEmbedding pipeline = costModel.embedPipeline(pf, stages);

    std::printf("inference, %d stages:\n", stages);
    for (int batch : {1, 32, 1024}) {
        for (int threads : {1, static_cast<int>(hardware)}) {
            if (threads > 1 && batch < 32)
                continue;
            std::vector<float> predictions(static_cast<size_t>(batch)), costs(static_cast<size_t>(batch) * stages);
            // Repeat small batches so each timed run lasts long enough to measure.
            const int repeats = std::max(1, 20000 / (batch * stages));
            std::vector<double> rates, cpuRates;
            for (int r = 0; r < runs + 1; ++r) {
                const auto start = Clock::now();
                const double cpuStart = threads == 1 ? threadCpuSeconds() : processCpuSeconds();
                for (int k = 0; k < repeats; ++k)
                    costModel.evaluate(pipeline, sf, batch, 80, predictions, costs, 0, threads);
                const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
                const double cpu = (threads == 1 ? threadCpuSeconds() : processCpuSeconds()) - cpuStart;
                if (r > 0) { // the first run warms caches
                    rates.push_back(double(batch) * stages * repeats / seconds);
                    cpuRates.push_back(double(batch) * stages * repeats / cpu);
                }
            }
            if (threads == 1)
                std::printf("  batch %4d, 1 thread:  %.3g stage evaluations/s (wall), %.3g per CPU second\n", batch,
                            median(rates), median(cpuRates));
            else
                std::printf("  batch %4d, %d threads: %.3g stage evaluations/s (wall), %.3g per CPU second of all "
                            "threads\n",
                            batch, threads, median(rates), median(cpuRates));
        }
    }

    // Embedding a pipeline (done once per pipeline by the search).
    {
        std::vector<double> times;
        for (int r = 0; r < runs; ++r) {
            const auto start = Clock::now();
            for (int k = 0; k < 100; ++k)
                (void)costModel.embedPipeline(pf, stages);
            times.push_back(std::chrono::duration<double>(Clock::now() - start).count() / 100);
        }
        std::printf("pipeline embedding (13 stages): %.3g us\n", median(times) * 1e6);
    }

    // Training: one ADAM step on a batch of 64 schedules.
    {
        const int batch = 64;
        std::vector<float> runtimes(batch);
        for (float &t : runtimes)
            t = static_cast<float>(0.1 + rng.uniform());
        model::TrainingBatch b;
        b.numStages = stages;
        b.batchSize = batch;
        b.pipelineFeatures = pf;
        b.scheduleFeatures = std::span<const float>(sf).first(static_cast<size_t>(batch) * stages * 73);
        b.trueRuntimes = runtimes;
        model::TrainingState state = model::TrainingState::start(w);
        std::vector<double> rates;
        for (int r = 0; r < std::max(3, runs / 3) + 1; ++r) {
            const auto start = Clock::now();
            model::trainStep(state, b, 1e-4f);
            const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
            if (r > 0)
                rates.push_back(batch / seconds);
        }
        std::printf(
            "training, batch %d x %d stages, 1 thread: %.3g samples/s (%.3g stage evaluations/s forward+backward)\n",
            batch, stages, median(rates), median(rates) * stages);
    }
    return 0;
}
