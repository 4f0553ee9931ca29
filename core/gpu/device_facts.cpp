#include "core/gpu/device_facts.h"

#include <algorithm>
#include <cctype>

namespace beamscope::gpu {

double DeviceFacts::memoryBandwidthGBps() const
{
    return 2.0 * static_cast<double>(memoryClockKHz) * 1e3 * (static_cast<double>(memoryBusWidthBits) / 8.0) / 1e9;
}

Json DeviceFacts::toJson() const
{
    Json j = Json::object();
    j["name"] = name;
    j["compute_capability"] = std::to_string(computeMajor) + "." + std::to_string(computeMinor);
    j["sm_count"] = smCount;
    j["shared_memory_per_block_bytes"] = sharedMemoryPerBlockBytes;
    j["shared_memory_per_block_optin_bytes"] = sharedMemoryPerBlockOptinBytes;
    j["shared_memory_per_sm_bytes"] = sharedMemoryPerSmBytes;
    j["registers_per_block"] = registersPerBlock;
    j["registers_per_sm"] = registersPerSm;
    j["warp_size"] = warpSize;
    j["max_threads_per_block"] = maxThreadsPerBlock;
    j["max_threads_per_sm"] = maxThreadsPerSm;
    j["max_blocks_per_sm"] = maxBlocksPerSm;
    j["clock_khz"] = clockKHz;
    j["memory_clock_khz"] = memoryClockKHz;
    j["memory_bus_width_bits"] = memoryBusWidthBits;
    j["memory_bandwidth_gbps"] = memoryBandwidthGBps();
    j["l2_cache_bytes"] = l2CacheBytes;
    j["global_memory_bytes"] = static_cast<int64_t>(globalMemoryBytes);
    return j;
}

namespace {

// Numbers as the CUDA runtime reports them on these boards (cudaDeviceProp /
// deviceQuery), which match NVIDIA's published whitepapers and datasheets.
DeviceFacts profile(std::string name, int major, int minor, int sms, int smemOptinKb, int smemSmKb, int clockMHz,
                    int memClockMHz, int busBits, int l2Mb, long long memMiB)
{
    DeviceFacts d;
    d.name = std::move(name);
    d.computeMajor = major;
    d.computeMinor = minor;
    d.smCount = sms;
    d.sharedMemoryPerBlockBytes = 48 * 1024; // every generation since Kepler without opt-in
    d.sharedMemoryPerBlockOptinBytes = smemOptinKb * 1024;
    d.sharedMemoryPerSmBytes = smemSmKb * 1024;
    d.registersPerBlock = 65536;
    d.registersPerSm = 65536;
    d.warpSize = 32;
    d.maxThreadsPerBlock = 1024;
    d.maxThreadsPerSm = 2048;
    d.maxBlocksPerSm = 32;
    d.clockKHz = clockMHz * 1000;
    d.memoryClockKHz = memClockMHz * 1000;
    d.memoryBusWidthBits = busBits;
    d.l2CacheBytes = l2Mb * 1024 * 1024;
    d.globalMemoryBytes = memMiB * 1024 * 1024;
    return d;
}

struct NamedProfile {
    const char *shortName;
    DeviceFacts facts;
};

const std::vector<NamedProfile> &namedProfiles()
{
    static const std::vector<NamedProfile> profiles = {
        // V100 SXM2 16GB (Volta whitepaper): 80 SMs, 96 KB shared per SM, 6 MB L2, HBM2 4096-bit at 877 MHz (~900 GB/s).
        {"V100", profile("Tesla V100-SXM2-16GB", 7, 0, 80, 96, 96, 1530, 877, 4096, 6, 16160)},
        // A100 SXM4 40GB (Ampere whitepaper): 108 SMs, 164 KB shared per SM (163 KB per block opt-in), 40 MB L2, 1555 GB/s.
        {"A100", profile("NVIDIA A100-SXM4-40GB", 8, 0, 108, 163, 164, 1410, 1215, 5120, 40, 40536)},
        // H100 SXM5 80GB (Hopper whitepaper): 132 SMs, 228 KB shared per SM (227 KB per block opt-in), 50 MB L2, HBM3 3.35 TB/s.
        {"H100", profile("NVIDIA H100 80GB HBM3", 9, 0, 132, 227, 228, 1980, 2619, 5120, 50, 81559)},
        // H200 SXM 141GB (datasheet): the H100's SMs with HBM3e on a 6144-bit bus, 4.8 TB/s.
        {"H200", profile("NVIDIA H200", 9, 0, 132, 227, 228, 1980, 3125, 6144, 50, 143771)},
    };
    return profiles;
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

} // namespace

const std::vector<DeviceFacts> &referenceProfiles()
{
    static const std::vector<DeviceFacts> facts = [] {
        std::vector<DeviceFacts> out;
        for (const auto &p : namedProfiles())
            out.push_back(p.facts);
        return out;
    }();
    return facts;
}

std::vector<std::string> profileNames()
{
    std::vector<std::string> names;
    for (const auto &p : namedProfiles())
        names.emplace_back(p.shortName);
    return names;
}

std::optional<DeviceFacts> findProfile(const std::string &name)
{
    const std::string wanted = lower(name);
    for (const auto &p : namedProfiles())
        if (lower(p.shortName) == wanted || lower(p.facts.name) == wanted)
            return p.facts;
    return std::nullopt;
}

std::optional<DeviceFacts> resolveProfile(const std::string &name, std::string &error)
{
    if (name == "local") {
        const LocalDeviceQuery q = queryLocalDevice();
        if (!q.device)
            error = "local: " + q.status;
        return q.device;
    }
    std::optional<DeviceFacts> facts = findProfile(name);
    if (!facts) {
        std::string names;
        for (const std::string &n : profileNames())
            names += (names.empty() ? "" : ", ") + n;
        error = "unknown profile '" + name + "' (expected local or one of " + names + ")";
    }
    return facts;
}

} // namespace beamscope::gpu
