#pragma once
// A correctness campaign: many pipelines (seeded random pipelines, a library of
// generators, built-in apps), each checked by checkPipeline (beam_check.h),
// one record per pipeline in OUT/pipelines/<name>.json, written atomically
// once its check is done. A rerun skips what is recorded, so a killed
// campaign resumes where it stopped; a shard (K of T) takes every T-th
// pipeline, so Slurm array tasks share one folder. The summary (outcomes by
// class and by stage kind, times, peak memory) is made from the records.

#include "core/campaign/beam_check.h"

#include <filesystem>

namespace beamscope::campaign {

struct CampaignRequest {
    std::filesystem::path out;
    std::vector<PipelineToCheck> pipelines;
    BeamCheckOptions check;
    int shardIndex = 0, shardCount = 1;
};

// The pipelines of `request` this shard checks that have no record yet.
std::vector<const PipelineToCheck *> pendingPipelines(const CampaignRequest &request);

// Checks the pending pipelines one after another; progress counts pipelines and
// says the time left. Returns false with `error` set when a record cannot be
// written. Stops between pipelines when progress is cancelled.
bool runCampaign(const CampaignRequest &request, const model::CostModel &model, Progress *progress, std::string *error);

// Every record in a campaign folder, sorted by pipeline name; an unreadable
// record is an error naming the file and what is wrong.
std::vector<PipelineCheck> readCampaign(const std::filesystem::path &out, std::string *error);

// The outcome tables of a set of records.
Json summaryJson(const std::vector<PipelineCheck> &records);
std::string summaryMarkdown(const std::vector<PipelineCheck> &records);

} // namespace beamscope::campaign
