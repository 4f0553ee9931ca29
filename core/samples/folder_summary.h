#pragma once
// What a folder of samples holds, per pipeline: distinct schedules, runtimes
// (min / median / max), and, for an autotune folder (run_folder.h), the
// schedules that failed by reason and the run's provenance. The figures of
// `beamscope-cli samples summary`.

#include "core/samples/dataset.h"
#include "core/util/json.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace beamscope::samples {

struct PipelineSummary {
    std::string pipeline; // app name, else "pipeline <id>"
    int32_t pipelineId = 0;
    int stages = 0;
    size_t schedules = 0, samples = 0;
    double minMs = 0, medianMs = 0, maxMs = 0; // over the schedules' best runtimes
    std::map<std::string, int> attempts;       // autotune records: status -> count (empty elsewhere)
    std::vector<std::string> failures;         // "<sid> <status>: <message>", first few
};

struct FolderSummary {
    std::vector<PipelineSummary> pipelines;
    std::map<std::string, int> attempts; // all records: status -> count
    Json provenance;                     // manifest.json's device, weights, version (null without one)
    std::vector<std::string> errors;     // listing or record errors
    size_t skipped = 0;                  // implausible samples
    Json toJson() const;
};

FolderSummary summarizeFolder(const std::filesystem::path &root);

} // namespace beamscope::samples
