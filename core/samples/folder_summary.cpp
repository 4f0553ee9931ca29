#include "core/samples/folder_summary.h"

#include "core/util/median.h"

#include "core/samples/run_folder.h"
#include "core/util/atomic_file.h"

#include <algorithm>

namespace beamscope::samples {

namespace {

constexpr size_t kFailuresListed = 5;

Json countsJson(const std::map<std::string, int> &counts)
{
    Json j = Json::object();
    for (const auto &[k, v] : counts)
        j[k] = v;
    return j;
}

} // namespace

FolderSummary summarizeFolder(const std::filesystem::path &root)
{
    FolderSummary s;
    const LoadedSamples loaded = loadSamples({root});
    s.errors = loaded.errors;
    s.skipped = loaded.dataset.skipped.size();
    std::map<std::string, size_t> index;
    for (const PipelineSet &p : loaded.dataset.pipelines) {
        PipelineSummary ps;
        ps.pipeline = p.app.empty() ? "pipeline " + std::to_string(p.pipelineId) : p.app;
        ps.pipelineId = p.pipelineId;
        ps.stages = p.stageCount;
        ps.schedules = p.schedules.size();
        ps.samples = p.runCount();
        std::vector<double> best;
        for (const ScheduleEntry &e : p.schedules)
            best.push_back(e.bestRuntimeMs());
        if (!best.empty()) {
            ps.minMs = *std::min_element(best.begin(), best.end());
            ps.maxMs = *std::max_element(best.begin(), best.end());
            ps.medianMs = median(best);
        }
        index[ps.pipeline] = s.pipelines.size();
        s.pipelines.push_back(ps);
    }

    const RunFolder folder(root);
    for (const ScheduleRecord &r : folder.readRecords(&s.errors)) {
        s.attempts[statusName(r.status)]++;
        auto it = index.find(r.pipeline);
        if (it == index.end()) {
            // A pipeline with attempts but no sample yet (every schedule failed).
            PipelineSummary ps;
            ps.pipeline = r.pipeline;
            ps.pipelineId = r.pipelineId;
            it = index.emplace(r.pipeline, s.pipelines.size()).first;
            s.pipelines.push_back(ps);
        }
        PipelineSummary &ps = s.pipelines[it->second];
        ps.attempts[statusName(r.status)]++;
        if (r.status != Status::Ok && r.status != Status::Duplicate && ps.failures.size() < kFailuresListed)
            ps.failures.push_back(std::to_string(r.scheduleId) + " " + statusName(r.status) + ": " +
                                  r.message.substr(0, 200));
    }

    if (const std::optional<std::string> text = readTextFile(folder.manifest())) {
        const JsonParseResult parsed = parseJson(*text);
        if (!parsed.value) {
            s.errors.push_back(folder.manifest().string() + ": " + parsed.error);
        } else {
            Json p = Json::object();
            for (const char *key : {"device", "starting_weights", "beamscope_version", "beamscope_commit", "host"})
                if (const Json *v = parsed.value->find(key))
                    p[key] = *v;
            s.provenance = p;
        }
    }
    return s;
}

Json FolderSummary::toJson() const
{
    Json j = Json::object();
    Json list = Json::array();
    for (const PipelineSummary &p : pipelines) {
        Json e = Json::object();
        e["pipeline"] = p.pipeline;
        e["pipeline_id"] = static_cast<int64_t>(p.pipelineId);
        e["stages"] = p.stages;
        e["schedules"] = static_cast<uint64_t>(p.schedules);
        e["samples"] = static_cast<uint64_t>(p.samples);
        if (p.schedules) {
            e["min_ms"] = p.minMs;
            e["median_ms"] = p.medianMs;
            e["max_ms"] = p.maxMs;
        }
        e["attempts"] = countsJson(p.attempts);
        Json f = Json::array();
        for (const std::string &line : p.failures)
            f.push(line);
        e["failures"] = f;
        list.push(e);
    }
    j["pipelines"] = list;
    j["attempts"] = countsJson(attempts);
    j["skipped_samples"] = static_cast<uint64_t>(skipped);
    j["provenance"] = provenance;
    Json e = Json::array();
    for (const std::string &line : errors)
        e.push(line);
    j["errors"] = e;
    return j;
}

} // namespace beamscope::samples
