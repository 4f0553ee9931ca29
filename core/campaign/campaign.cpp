#include "core/campaign/campaign.h"

#include "core/util/median.h"

#include "core/util/atomic_file.h"
#include "core/util/progress.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace beamscope::campaign {

namespace {

std::filesystem::path recordPath(const std::filesystem::path &out, const std::string &pipeline)
{
    return out / "pipelines" / (pipeline + ".json");
}

// Zero rather than NaN for an empty campaign: the summary is JSON.
double medianOrZero(std::vector<double> v) { return v.empty() ? 0 : median(std::move(v)); }

std::string minutes(double seconds)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%d:%02d", static_cast<int>(seconds) / 60, static_cast<int>(seconds) % 60);
    return buf;
}

const std::vector<Outcome> &allOutcomes()
{
    static const std::vector<Outcome> all{Outcome::Correct,     Outcome::NoSchedule,   Outcome::Refused,
                                          Outcome::BeyondBound, Outcome::Crash,        Outcome::Hang,
                                          Outcome::WrongOutput, Outcome::InternalError};
    return all;
}

} // namespace

std::vector<const PipelineToCheck *> pendingPipelines(const CampaignRequest &request)
{
    std::vector<const PipelineToCheck *> out;
    for (size_t i = 0; i < request.pipelines.size(); i++) {
        if (static_cast<int>(i % static_cast<size_t>(request.shardCount)) != request.shardIndex)
            continue;
        if (!std::filesystem::exists(recordPath(request.out, request.pipelines[i].name)))
            out.push_back(&request.pipelines[i]);
    }
    return out;
}

bool runCampaign(const CampaignRequest &request, const model::CostModel &model, Progress *progress, std::string *error)
{
    std::error_code ec;
    std::filesystem::create_directories(request.out / "pipelines", ec);
    if (ec) {
        *error = (request.out / "pipelines").string() + ": cannot create: " + ec.message();
        return false;
    }
    const std::vector<const PipelineToCheck *> pending = pendingPipelines(request);
    const auto started = std::chrono::steady_clock::now();
    for (size_t i = 0; i < pending.size(); i++) {
        if (progress && progress->cancelled())
            break;
        if (progress) {
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            const std::string left = i == 0 ? "" : ", about " + minutes(elapsed / i * (pending.size() - i)) + " left";
            progress->report(double(i) / pending.size(), std::to_string(i) + "/" + std::to_string(pending.size()) +
                                                             " pipelines" + left + ": " + pending[i]->name);
        }
        const PipelineCheck check = checkPipeline(*pending[i], model, request.check, nullptr);
        const WriteResult written =
            replaceTextFile(recordPath(request.out, pending[i]->name), check.toJson().dump(2) + "\n");
        if (!written.ok) {
            *error = written.error;
            return false;
        }
    }
    if (progress)
        progress->report(1.0, std::to_string(pending.size()) + " pipelines checked");
    return true;
}

std::vector<PipelineCheck> readCampaign(const std::filesystem::path &out, std::string *error)
{
    error->clear();
    std::vector<PipelineCheck> records;
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto &entry : std::filesystem::directory_iterator(out / "pipelines", ec))
        if (entry.path().extension() == ".json")
            files.push_back(entry.path());
    if (ec) {
        *error = (out / "pipelines").string() + ": " + ec.message();
        return {};
    }
    std::sort(files.begin(), files.end());
    for (const auto &f : files) {
        const auto text = readTextFile(f);
        std::string why;
        std::optional<Json> json;
        if (text) {
            JsonParseResult parsed = parseJson(*text);
            json = std::move(parsed.value);
            why = parsed.error;
        }
        const auto record = json ? PipelineCheck::fromJson(*json, &why) : std::nullopt;
        if (!record) {
            *error = f.string() + ": " + (text ? why : std::string("cannot read"));
            return {};
        }
        records.push_back(*record);
    }
    return records;
}

Json summaryJson(const std::vector<PipelineCheck> &records)
{
    Json j = Json::object();
    std::map<Outcome, int> byPipeline, bySchedule;
    std::map<std::string, std::map<Outcome, int>> byKind;
    std::vector<double> search, check, peak;
    Json defects = Json::array();
    int schedules = 0;
    for (const PipelineCheck &p : records) {
        byPipeline[p.outcome]++;
        std::set<std::string> kinds(p.stageKinds.begin(), p.stageKinds.end());
        if (kinds.empty())
            kinds.insert("(generator)");
        for (const std::string &k : kinds)
            byKind[k][p.outcome]++;
        for (const ScheduleCheck &s : p.schedules) {
            bySchedule[s.outcome]++;
            schedules++;
            if (isDefect(s.outcome)) {
                Json d = Json::object();
                d["pipeline"] = p.pipeline;
                d["source"] = p.source;
                d["rank"] = s.rank;
                d["outcome"] = std::string(outcomeName(s.outcome));
                d["message"] = s.message.substr(0, 300);
                defects.push(d);
            }
        }
        if (p.schedules.empty() && isDefect(p.outcome)) {
            Json d = Json::object();
            d["pipeline"] = p.pipeline;
            d["source"] = p.source;
            d["outcome"] = std::string(outcomeName(p.outcome));
            d["message"] = p.message.substr(0, 300);
            defects.push(d);
        }
        search.push_back(p.searchSeconds);
        check.push_back(p.checkSeconds);
        peak.push_back(p.peakSearchMiB);
    }
    auto table = [](const std::map<Outcome, int> &m) {
        Json t = Json::object();
        for (Outcome o : allOutcomes())
            t[outcomeName(o)] = m.contains(o) ? m.at(o) : 0;
        return t;
    };
    j["pipelines"] = static_cast<int>(records.size());
    j["schedules"] = schedules;
    j["pipelines_by_outcome"] = table(byPipeline);
    j["schedules_by_outcome"] = table(bySchedule);
    Json kinds = Json::object();
    for (const auto &[k, m] : byKind)
        kinds[k] = table(m);
    j["pipelines_by_stage_kind"] = kinds;
    j["median_search_seconds"] = medianOrZero(search);
    j["median_check_seconds"] = medianOrZero(check);
    double total = 0;
    for (size_t i = 0; i < search.size(); i++)
        total += search[i] + check[i];
    j["total_seconds"] = total;
    j["median_peak_search_mib"] = medianOrZero(peak);
    j["max_peak_search_mib"] = peak.empty() ? 0.0 : *std::max_element(peak.begin(), peak.end());
    j["defects"] = defects;
    return j;
}

std::string summaryMarkdown(const std::vector<PipelineCheck> &records)
{
    const Json j = summaryJson(records);
    std::string md = "# Correctness campaign\n\n";
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%d pipelines, %d schedules. Median search %.2f s, median check %.2f s per pipeline, "
                  "%.1f min in all; peak resident memory while searching: median %.0f MiB, max %.0f MiB.\n\n",
                  static_cast<int>(j.find("pipelines")->toNumber()), static_cast<int>(j.find("schedules")->toNumber()),
                  j.find("median_search_seconds")->toNumber(), j.find("median_check_seconds")->toNumber(),
                  j.find("total_seconds")->toNumber() / 60, j.find("median_peak_search_mib")->toNumber(),
                  j.find("max_peak_search_mib")->toNumber());
    md += buf;
    std::string header = "|", rule = "|";
    for (Outcome o : allOutcomes()) {
        header += std::string(" ") + outcomeName(o) + " |";
        rule += " ---: |";
    }
    auto row = [&](const std::string &label, const Json &t) {
        std::string r = "| " + label + " |";
        for (Outcome o : allOutcomes())
            r += " " + std::to_string(static_cast<int>(t.find(outcomeName(o))->toNumber())) + " |";
        return r + "\n";
    };
    md += "## Outcomes\n\n| |" + header.substr(1) + "\n| --- " + rule + "\n";
    md += row("pipelines (worst schedule)", *j.find("pipelines_by_outcome"));
    md += row("schedules", *j.find("schedules_by_outcome"));
    md += "\n## Pipelines by stage kind (a pipeline counts once under each kind it has)\n\n| kind |" +
          header.substr(1) + "\n| --- " + rule + "\n";
    const Json &kinds = *j.find("pipelines_by_stage_kind");
    for (const auto &[k, t] : kinds.members())
        md += row(k, t);
    const Json &defects = *j.find("defects");
    md += "\n## Defects (crash, hang, wrong output, beyond a bound, internal error)\n\n";
    if (defects.size() == 0)
        md += "None.\n";
    for (size_t i = 0; i < defects.size(); i++) {
        const Json &d = defects.items()[i];
        // The outcome once: a worker's message may already begin with it ("crash: the worker was killed ...").
        const std::string outcome = d.find("outcome")->toString(), message = d.find("message")->toString();
        md += "- " + d.find("pipeline")->toString() + " (" + d.find("source")->toString() + ")" +
              (d.find("rank") ? ", beam state " + d.find("rank")->dump() : std::string()) + ": " +
              (message.rfind(outcome + ": ", 0) == 0 ? message : outcome + ": " + message) + "\n";
    }
    // The honest answers, named: what Halide refused and where no schedule was found.
    md += "\n## Refusals and searches without a schedule\n\n";
    int named = 0;
    for (const PipelineCheck &p : records) {
        if (p.outcome == Outcome::NoSchedule || (p.schedules.empty() && p.outcome == Outcome::Refused)) {
            md += "- " + p.pipeline + ": " + outcomeName(p.outcome) + ": " + p.message.substr(0, 300) + "\n";
            named++;
        }
        for (const ScheduleCheck &s : p.schedules)
            if (s.outcome == Outcome::Refused) {
                md += "- " + p.pipeline + ", beam state " + std::to_string(s.rank) +
                      ": refused: " + s.message.substr(0, 300) + "\n";
                named++;
            }
    }
    if (named == 0)
        md += "None.\n";
    return md;
}

} // namespace beamscope::campaign
