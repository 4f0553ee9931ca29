// Autotune throughput on this machine: one batch of a few golden pipelines
// (core/autotune, OpenCL on PoCL unless --target cuda), run twice from an
// empty compile cache, with one compile process and with --jobs; prints the
// per-sample cost split into search, compile and measure (medians), samples
// per hour, and the compile parallelism reached (compile wall time with one
// job divided by that with --jobs). A first run with --jobs, not counted,
// warms what the compilers read (headers, libraries), so that neither
// measured run pays for it. PoCL's kernel cache is off (unless the caller
// set POCL_KERNEL_CACHE): every schedule is new to an autotune run, so its
// kernels are built when it is measured, and the warm-up must not save the
// measured runs that work.
//
// usage: bench_autotune [--target opencl|cuda] [--jobs N] [--batch-size N] [--app NAME]...
//   defaults: opencl, jobs = hardware threads, batch size 8, box_blur conv_relu select_cast matmul

#include "core/autotune/autotune.h"
#include "core/gpu/device_facts.h"
#include "core/weights/shipped_weights.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>

using namespace beamscope;
namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Figures {
    double wall = 0, compileWall = 0;
    size_t samples = 0;
    std::vector<double> search, compile, measure;
};

Figures runOnce(autotune::AutotuneOptions o, int jobs, const fs::path &scratch)
{
    o.jobs = jobs;
    o.outDir = scratch / ("jobs" + std::to_string(jobs));
    o.cacheDir = scratch / ("cache" + std::to_string(jobs));
    const auto t0 = std::chrono::steady_clock::now();
    const autotune::AutotuneResult r = autotune::runAutotune(o);
    Figures f;
    f.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok) {
        std::fprintf(stderr, "bench_autotune: %s\n", r.error.c_str());
        std::exit(1);
    }
    for (const auto &b : r.batches)
        f.compileWall += b.compileSeconds;
    for (const auto &rec : r.records) {
        f.search.push_back(rec.searchSeconds);
        if (rec.status == autotune::Status::Duplicate)
            continue;
        f.compile.push_back(rec.compileSeconds);
        f.measure.push_back(rec.measureSeconds);
        if (rec.status == autotune::Status::Ok)
            f.samples++;
    }
    return f;
}

} // namespace

int main(int argc, char **argv)
{
    std::string target = "opencl";
    int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    int batchSize = 8;
    std::vector<std::string> apps;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--target")
            target = v;
        else if (a == "--jobs")
            jobs = std::atoi(v.c_str());
        else if (a == "--batch-size")
            batchSize = std::atoi(v.c_str());
        else if (a == "--app")
            apps.push_back(v);
        else {
            std::fprintf(stderr,
                         "usage: bench_autotune [--target opencl|cuda] [--jobs N] [--batch-size N] [--app NAME]...\n");
            return 2;
        }
    }
    if (apps.empty())
        apps = {"box_blur", "conv_relu", "select_cast", "matmul"};

    autotune::AutotuneOptions o;
    o.target = target == "cuda" ? bench::TargetKind::Cuda : bench::TargetKind::OpenCL;
    o.device = *gpu::findProfile("v100");
    o.deviceSource = "v100";
    if (o.target == bench::TargetKind::Cuda) {
        const gpu::LocalDeviceQuery q = gpu::queryLocalDevice();
        if (!q.device) {
            std::fprintf(stderr, "bench_autotune: --target cuda: %s\n", q.status.c_str());
            return 1;
        }
        o.device = *q.device;
        o.deviceSource = "local";
        o.cudaCapability = bench::halideCudaCapability(q.device->computeCapability());
    }
    o.weightsPath = *weights::shippedBaselineWeights();
    o.batchSize = batchSize;
    o.firstBeamSize = 8;
    o.retrain = false;
    o.run.reps = 3;
    o.run.scale = 0.25;
    for (const std::string &a : apps) {
        auto info = pipelines::findPipeline(a);
        if (!info) {
            std::fprintf(stderr, "bench_autotune: unknown pipeline %s\n", a.c_str());
            return 1;
        }
        o.pipelines.push_back({a, "app " + a, info->build});
    }
    ::setenv("POCL_KERNEL_CACHE", "0", 0); // the worker inherits it
    char pattern[] = "/tmp/bench_autotune-XXXXXX";
    const char *scratch = ::mkdtemp(pattern);
    if (!scratch)
        return 1;

    std::printf("autotune bench: %zu pipelines x %d schedules, target %s, scale 0.25, 3 reps, sample 0 at beam 8\n",
                o.pipelines.size(), batchSize, target.c_str());
    runOnce(o, std::max(2, jobs), fs::path(scratch) / "warm-up");
    const Figures one = runOnce(o, 1, scratch);
    const Figures many = jobs > 1 ? runOnce(o, jobs, scratch) : one;
    for (const auto &[label, f, j] : {std::tuple{"1 job", &one, 1}, std::tuple{"jobs", &many, jobs}}) {
        std::printf("%-6s %2d: wall %7.1f s, %zu samples, %6.0f samples/hour; per sample (median): search %.3f s, "
                    "compile %.2f s, measure %.2f s; compile wall %.1f s\n",
                    label, j, f->wall, f->samples, f->samples / f->wall * 3600, median(f->search), median(f->compile),
                    median(f->measure), f->compileWall);
    }
    std::printf("compile parallelism: %.2fx with %d jobs (compile wall time, 1 job / %d jobs)\n",
                one.compileWall / std::max(1e-9, many.compileWall), jobs, jobs);
    std::printf("%s\n", o.target == bench::TargetKind::OpenCL
                            ? "times are OpenCL-device times (PoCL's CPU device where there is no GPU)"
                            : "times are CUDA times on the local GPU");
    std::error_code ec;
    fs::remove_all(scratch, ec);
    return 0;
}
