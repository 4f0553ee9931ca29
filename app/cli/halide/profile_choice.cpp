#include "app/cli/halide/profile_choice.h"

namespace beamscope::cli {

std::optional<gpu::DeviceFacts> chooseProfile(const std::string &profile, std::string &error)
{
    if (profile == "local") {
        const gpu::LocalDeviceQuery q = gpu::queryLocalDevice();
        if (!q.device)
            error = "--profile local: " + q.status;
        return q.device;
    }
    std::optional<gpu::DeviceFacts> facts = gpu::findProfile(profile);
    if (!facts) {
        std::string names;
        for (const std::string &n : gpu::profileNames())
            names += (names.empty() ? "" : ", ") + n;
        error = "--profile: unknown profile '" + profile + "' (expected local or one of " + names + ")";
    }
    return facts;
}

} // namespace beamscope::cli
