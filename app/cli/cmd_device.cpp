// beamscope-cli device: the local GPU (through the CUDA runtime when built
// with the toolkit) beside a reference profile (V100 by default, the GPU
// Halide's weights were trained on), with the search parameters each implies.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "core/gpu/device_facts.h"
#include "core/gpu/search_parameters.h"
#include "core/util/json.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

using namespace beamscope::gpu;

std::string kib(long long bytes) { return std::to_string(bytes / 1024) + " KiB"; }

std::string fixed(double v, const char *unit)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f %s", v, unit);
    return buf;
}

// One column of the side-by-side table (empty cells when no device).
std::vector<std::string> column(const std::optional<DeviceFacts> &d)
{
    if (!d)
        return std::vector<std::string>(21, "-");
    const DeviceSearchParameters p = searchParametersFor(*d);
    return {d->name,
            std::to_string(d->computeMajor) + "." + std::to_string(d->computeMinor),
            std::to_string(d->smCount),
            kib(d->sharedMemoryPerBlockBytes),
            kib(d->sharedMemoryPerBlockOptinBytes),
            kib(d->sharedMemoryPerSmBytes),
            std::to_string(d->registersPerBlock),
            std::to_string(d->registersPerSm),
            std::to_string(d->warpSize),
            std::to_string(d->maxThreadsPerBlock),
            std::to_string(d->maxThreadsPerSm),
            std::to_string(d->maxBlocksPerSm),
            fixed(d->clockKHz / 1000.0, "MHz"),
            fixed(d->memoryClockKHz / 1000.0, "MHz"),
            std::to_string(d->memoryBusWidthBits) + " bit",
            fixed(d->memoryBandwidthGBps(), "GB/s"),
            std::to_string(d->l2CacheBytes / 1024 / 1024) + " MiB",
            std::to_string(p.parallelism),
            std::to_string(p.sharedMemoryLimitKb) + " / " + std::to_string(p.sharedMemorySmLimitKb),
            std::to_string(p.activeBlockLimit),
            std::to_string(p.activeWarpLimit)};
}

const std::vector<std::string> kRowNames = {"name",
                                            "compute capability",
                                            "SMs",
                                            "shared memory / block",
                                            "shared memory / block (opt-in)",
                                            "shared memory / SM",
                                            "registers / block",
                                            "registers / SM",
                                            "warp size",
                                            "max threads / block",
                                            "max threads / SM",
                                            "max blocks / SM",
                                            "SM clock",
                                            "memory clock",
                                            "memory bus",
                                            "memory bandwidth",
                                            "L2 cache",
                                            "search: parallelism",
                                            "search: shared_memory_limit_kb / sm_limit_kb",
                                            "search: active_block_limit",
                                            "search: active_warp_limit"};

struct DeviceOptions {
    bool json = false;
    std::string profile = "V100";
};

int runDevice(const DeviceOptions &options)
{
    const std::string &profileName = options.profile;
    const auto profile = findProfile(profileName);
    if (!profile) {
        std::string known;
        for (const auto &n : profileNames())
            known += (known.empty() ? "" : ", ") + n;
        std::cerr << "beamscope-cli device: --profile: unknown profile '" << profileName << "' (known: " << known
                  << ")\n";
        return kFailure;
    }
    const LocalDeviceQuery local = queryLocalDevice();

    if (options.json) {
        Json j = Json::object();
        Json l = Json::object();
        l["support_built"] = local.supportBuilt;
        l["status"] = local.status;
        l["device_count"] = local.deviceCount;
        l["device"] = local.device ? local.device->toJson() : Json();
        l["search_parameters"] = local.device ? searchParametersFor(*local.device).toJson() : Json();
        j["local"] = l;
        Json r = Json::object();
        r["profile"] = profileName;
        r["device"] = profile->toJson();
        r["search_parameters"] = searchParametersFor(*profile).toJson();
        j["reference"] = r;
        std::cout << j.dump(2) << "\n";
        return kSuccess;
    }

    std::cout << "local: " << local.status << "\n\n";
    const auto localColumn = column(local.device);
    const auto refColumn = column(profile);
    std::vector<std::vector<std::string>> rows = {{"", "local", profileName + " (reference)"}};
    for (size_t i = 0; i < kRowNames.size(); ++i)
        rows.push_back({kRowNames[i], localColumn[i], refColumn[i]});
    size_t w0 = 0, w1 = 0;
    for (const auto &r : rows) {
        w0 = std::max(w0, r[0].size());
        w1 = std::max(w1, r[1].size());
    }
    for (const auto &r : rows)
        std::cout << r[0] << std::string(w0 - r[0].size() + 2, ' ') << r[1] << std::string(w1 - r[1].size() + 2, ' ')
                  << r[2] << "\n";
    return kSuccess;
}

CommandRun defineDevice(CLI::App &app)
{
    auto o = std::make_shared<DeviceOptions>();
    addJsonFlag(app, o->json);
    // Checked when run: an unknown profile is invalid input (exit 1) naming the known ones.
    addText(app, "--profile", o->profile, "the reference profile shown beside the local GPU");
    return [o](const std::vector<std::string> &) { return runDevice(*o); };
}

const CommandRegistration
    registration({"", "device", "[--json] [--profile V100|A100|H100|H200]",
                  "the local GPU beside a reference profile, with the search parameters each implies", defineDevice});

} // namespace

} // namespace beamscope::cli
