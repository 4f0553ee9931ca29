#pragma once
// An autotune run folder read back as the request that made it, so a run is
// resumed with its own settings (the explorer's Autotune workspace fills its
// form from it) and a request that differs is refused with the setting named.
// Halide-free: it reads the folder's manifest.json only (autotune.cpp writes it).

#include "core/autotune/autotune_request.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::autotune {

struct RecordedRun {
    AutotuneRequest request; // outDir is the folder; batches is the number of batches the folder holds
    std::string startingWeightsSha256;
    // Where the starting weights are now: the manifest's path when its content still matches, else a
    // shipped file with that content; empty when neither is here (weightsNote says so).
    std::string weightsNote;
};

// Nothing, with `error` naming the file and field, when the folder holds no readable manifest.
std::optional<RecordedRun> readRecordedRun(const std::filesystem::path &folder, std::string &error);

// One setting a request asks for otherwise than the run recorded. `key` is the
// manifest's parameter name ("seed", "benchmark_reps"); was/now as text.
struct SettingDifference {
    std::string key, was, now;
};

// The settings that make a run (those its manifest checks on resume), compared.
// Batches is not one: a resumed run may be given more.
std::vector<SettingDifference> differingSettings(const RecordedRun &run, const AutotuneRequest &request);

} // namespace beamscope::autotune
