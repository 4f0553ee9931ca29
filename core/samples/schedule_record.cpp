#include "core/samples/schedule_record.h"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace beamscope::samples {

namespace {

constexpr std::array<const char *, kStatusCount> kStatusNames = {
    "ok",    "duplicate", "search_failed", "compile_failed", "compile_timeout",
    "crash", "hang",      "wrong_output",  "run_failed"};

std::string hex64(uint64_t v)
{
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
    return buf;
}

// Tabs and newlines in a message would break the TSV row.
std::string oneLine(const std::string &text)
{
    std::string out = text;
    for (char &c : out)
        if (c == '\t' || c == '\n' || c == '\r')
            c = ' ';
    return out;
}

} // namespace

const char *statusName(Status status) { return kStatusNames[static_cast<size_t>(status)]; }

std::optional<Status> parseStatus(const std::string &name)
{
    for (size_t i = 0; i < kStatusNames.size(); i++)
        if (name == kStatusNames[i])
            return static_cast<Status>(i);
    return std::nullopt;
}

int32_t scheduleIdFor(int batch, int index) { return static_cast<int32_t>(batch * 10000 + index); }

Json ScheduleRecord::toJson() const
{
    Json j = Json::object();
    j["pipeline"] = pipeline;
    j["pipeline_id"] = static_cast<int64_t>(pipelineId);
    j["batch"] = batch;
    j["index"] = index;
    j["schedule_id"] = static_cast<int64_t>(scheduleId);
    j["dropout_seed"] = hex64(dropoutSeed);
    j["beam_size"] = beamSize;
    j["random_dropout"] = randomDropout;
    j["predicted_cost"] = predictedCost;
    j["schedule_hash"] = hex64(scheduleHash);
    j["status"] = statusName(status);
    j["message"] = message;
    j["duplicate_of"] = static_cast<int64_t>(duplicateOf);
    j["checked"] = checked;
    j["runtime_ms"] = runtimeMs;
    j["median_ms"] = medianMs;
    j["runs"] = runs;
    j["search_seconds"] = searchSeconds;
    j["compile_seconds"] = compileSeconds;
    j["measure_seconds"] = measureSeconds;
    j["cache_hit"] = cacheHit;
    return j;
}

std::optional<ScheduleRecord> ScheduleRecord::fromJson(const Json &json, std::string *error)
{
    auto fail = [&](const std::string &why) -> std::optional<ScheduleRecord> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    auto number = [&](const char *key, double &out) {
        const Json *v = json.find(key);
        if (!v || !v->isNumber())
            return false;
        out = v->toNumber();
        return true;
    };
    auto hex = [&](const char *key, uint64_t &out) {
        const Json *v = json.find(key);
        if (!v || !v->isString() || v->toString().empty() || v->toString().size() > 16)
            return false;
        char *end = nullptr;
        out = std::strtoull(v->toString().c_str(), &end, 16);
        return *end == '\0';
    };
    ScheduleRecord r;
    double pid = 0, batch = 0, index = 0, sid = 0, beam = 0, dropout = 0, dup = 0, runs = 0;
    if (const Json *p = json.find("pipeline"); p && p->isString())
        r.pipeline = p->toString();
    else
        return fail("field 'pipeline': expected a string");
    for (auto [key, out] : {std::pair{"pipeline_id", &pid},
                            {"batch", &batch},
                            {"index", &index},
                            {"schedule_id", &sid},
                            {"beam_size", &beam},
                            {"random_dropout", &dropout},
                            {"duplicate_of", &dup},
                            {"runs", &runs},
                            {"predicted_cost", &r.predictedCost},
                            {"runtime_ms", &r.runtimeMs},
                            {"median_ms", &r.medianMs},
                            {"search_seconds", &r.searchSeconds},
                            {"compile_seconds", &r.compileSeconds},
                            {"measure_seconds", &r.measureSeconds}})
        if (!number(key, *out))
            return fail(std::string("field '") + key + "': expected a number");
    if (!hex("dropout_seed", r.dropoutSeed))
        return fail("field 'dropout_seed': expected up to 16 hex digits");
    if (!hex("schedule_hash", r.scheduleHash))
        return fail("field 'schedule_hash': expected up to 16 hex digits");
    const Json *status = json.find("status");
    const std::optional<Status> parsed = status ? parseStatus(status->toString()) : std::nullopt;
    if (!parsed)
        return fail("field 'status': expected ok, duplicate, search_failed, compile_failed, compile_timeout, crash, "
                    "hang, wrong_output or run_failed");
    r.status = *parsed;
    r.pipelineId = static_cast<int32_t>(pid);
    r.batch = static_cast<int>(batch);
    r.index = static_cast<int>(index);
    r.scheduleId = static_cast<int32_t>(sid);
    r.beamSize = static_cast<int>(beam);
    r.randomDropout = static_cast<int>(dropout);
    r.duplicateOf = static_cast<int32_t>(dup);
    r.runs = static_cast<int>(runs);
    if (const Json *m = json.find("message"))
        r.message = m->toString();
    if (const Json *c = json.find("checked"))
        r.checked = c->toBool();
    if (const Json *c = json.find("cache_hit"))
        r.cacheHit = c->toBool();
    return r;
}

std::string recordTsvHeader()
{
    return "pipeline\tpipeline_id\tbatch\tindex\tschedule_id\tbeam\tdropout\tpredicted_cost\tstatus\truntime_ms\t"
           "median_ms\tchecked\tschedule_hash\tduplicate_of\tsearch_s\tcompile_s\tmeasure_s\tmessage";
}

std::string recordTsvLine(const ScheduleRecord &r)
{
    std::ostringstream out;
    out.precision(9);
    out << r.pipeline << '\t' << r.pipelineId << '\t' << r.batch << '\t' << r.index << '\t' << r.scheduleId << '\t'
        << r.beamSize << '\t' << r.randomDropout << '\t' << r.predictedCost << '\t' << statusName(r.status) << '\t'
        << r.runtimeMs << '\t' << r.medianMs << '\t' << (r.checked ? 1 : 0) << '\t' << hex64(r.scheduleHash) << '\t'
        << r.duplicateOf << '\t' << r.searchSeconds << '\t' << r.compileSeconds << '\t' << r.measureSeconds << '\t'
        << oneLine(r.message);
    return out.str();
}

} // namespace beamscope::samples
