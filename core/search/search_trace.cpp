#include "core/search/search_trace.h"

#include <algorithm>
#include <type_traits>

#include "core/search/schedule_features.h"
#include "core/util/atomic_file.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace beamscope::search {

int64_t SearchTrace::add(TraceNode node)
{
    if (m_nodes.size() >= m_cap) {
        summary.nodesDropped++;
        return -1;
    }
    node.id = static_cast<int64_t>(m_nodes.size());
    m_nodes.push_back(std::move(node));
    return m_nodes.back().id;
}

TraceNode *SearchTrace::find(int64_t id)
{
    return id >= 0 && id < static_cast<int64_t>(m_nodes.size()) ? &m_nodes[static_cast<size_t>(id)] : nullptr;
}

const TraceNode *SearchTrace::find(int64_t id) const
{
    return id >= 0 && id < static_cast<int64_t>(m_nodes.size()) ? &m_nodes[static_cast<size_t>(id)] : nullptr;
}

Json TraceParams::toJson() const
{
    Json j = Json::object();
    j["beam_size"] = beamSize;
    j["num_passes"] = numPasses;
    j["random_dropout"] = randomDropout;
    j["random_dropout_seed"] = randomDropoutSeed;
    j["search_space_options"] = searchSpaceOptions;
    j["disable_subtiling"] = disableSubtiling;
    j["randomize_tilings"] = randomizeTilings;
    j["freeze_inline_compute_root"] = freezeInlineComputeRoot;
    j["pre_pass"] = prePass;
    j["halide_steps"] = halideSteps;
    j["start_depth"] = startDepth;
    j["parallelism"] = parallelism;
    j["shared_memory_limit_kb"] = sharedMemoryLimitKb;
    j["shared_memory_sm_limit_kb"] = sharedMemorySmLimitKb;
    j["active_block_limit"] = activeBlockLimit;
    j["active_warp_limit"] = activeWarpLimit;
    if (!frozen.empty()) {
        Json names = Json::array();
        for (const std::string &n : frozen)
            names.push(Json(n));
        j["frozen"] = names;
    }
    if (!profile.empty())
        j["profile"] = profile;
    if (!weights.empty())
        j["weights"] = weights;
    for (const auto &[key, value] : {std::pair<const char *, const std::string *>{"weights_sha256", &weightsSha256},
                                     {"generator", &generator},
                                     {"generator_library", &generatorLibrary},
                                     {"generator_executable", &generatorExecutable},
                                     {"target", &target},
                                     {"machine_params", &machineParams}})
        if (!value->empty())
            j[key] = *value;
    if (!generatorParams.empty()) {
        Json params = Json::object();
        for (const auto &[k, v] : generatorParams)
            params[k] = v;
        j["generator_params"] = params;
    }
    return j;
}

std::optional<TraceParams> TraceParams::fromJson(const Json &j, std::string *error)
{
    TraceParams p;
    if (!j.isObject()) {
        *error = "expected an object, found " + j.dump();
        return std::nullopt;
    }
    bool ok = true;
    const auto wrong = [&](const char *key, const char *expected, const Json &v) {
        *error = std::string("field \"") + key + "\": expected " + expected + ", found " + v.dump();
        ok = false;
    };
    const auto integer = [&](const char *key, auto &into) {
        if (const Json *v = j.find(key); v && ok) {
            using T = std::remove_reference_t<decltype(into)>;
            if (!v->isInteger())
                return wrong(key, "an integer", *v);
            if constexpr (std::is_same_v<T, uint64_t>)
                into = v->toUint64(); // a seed: all 64 bits
            else
                into = static_cast<T>(v->toInt());
        }
    };
    const auto flag = [&](const char *key, bool &into) {
        if (const Json *v = j.find(key); v && ok) {
            if (!v->isBool())
                return wrong(key, "true or false", *v);
            into = v->toBool();
        }
    };
    const auto text = [&](const char *key, std::string &into) {
        if (const Json *v = j.find(key); v && ok) {
            if (!v->isString())
                return wrong(key, "a string", *v);
            into = v->toString();
        }
    };
    integer("beam_size", p.beamSize);
    integer("num_passes", p.numPasses);
    integer("random_dropout", p.randomDropout);
    integer("random_dropout_seed", p.randomDropoutSeed);
    text("search_space_options", p.searchSpaceOptions);
    flag("disable_subtiling", p.disableSubtiling);
    flag("randomize_tilings", p.randomizeTilings);
    flag("freeze_inline_compute_root", p.freezeInlineComputeRoot);
    flag("pre_pass", p.prePass);
    flag("halide_steps", p.halideSteps);
    integer("start_depth", p.startDepth);
    integer("parallelism", p.parallelism);
    integer("shared_memory_limit_kb", p.sharedMemoryLimitKb);
    integer("shared_memory_sm_limit_kb", p.sharedMemorySmLimitKb);
    integer("active_block_limit", p.activeBlockLimit);
    integer("active_warp_limit", p.activeWarpLimit);
    text("profile", p.profile);
    text("weights", p.weights);
    text("weights_sha256", p.weightsSha256);
    text("generator", p.generator);
    text("generator_library", p.generatorLibrary);
    text("generator_executable", p.generatorExecutable);
    text("target", p.target);
    text("machine_params", p.machineParams);
    if (const Json *v = j.find("generator_params"); v && ok) {
        if (!v->isObject())
            wrong("generator_params", "an object of strings", *v);
        for (const auto &[k, value] : v->members()) {
            if (!ok)
                break;
            if (!value.isString())
                wrong("generator_params", "an object of strings", *v);
            else
                p.generatorParams[k] = value.toString();
        }
    }
    if (const Json *v = j.find("frozen"); v && ok) {
        if (!v->isArray())
            wrong("frozen", "an array of Func names", *v);
        for (const Json &n : v->items()) {
            if (!ok)
                break;
            if (!n.isString())
                wrong("frozen", "an array of Func names", *v);
            else
                p.frozen.push_back(n.toString());
        }
    }
    if (!ok)
        return std::nullopt;
    return p;
}

std::vector<Json> SearchTrace::decisionsTo(int64_t id) const
{
    return decisionPath(find(id), [this](int64_t parent) { return find(parent); });
}

std::vector<Json> decisionPath(const TraceNode *node, const std::function<const TraceNode *(int64_t)> &find)
{
    std::vector<Json> decisions;
    for (const TraceNode *n = node; n; n = find(n->parent))
        decisions.push_back(n->detail);
    std::reverse(decisions.begin(), decisions.end());
    return decisions;
}

std::string SearchTrace::serialize() const
{
    std::string out;
    Json header = Json::object();
    header["format"] = "beamscope-search-trace";
    header["version"] = kTraceVersion;
    header["pipeline"] = pipeline;
    Json stages = Json::array();
    for (const std::string &s : stageNames)
        stages.push(Json(s));
    header["stages"] = stages;
    Json names = Json::array();
    for (int i = 0; i < kScheduleFeatureCount; i++)
        names.push(Json(featureName(i)));
    header["feature_names"] = names;
    header["params"] = params.toJson();
    header["cap"] = static_cast<int64_t>(m_cap);
    out += header.dump() + "\n";
    for (const TraceNode &n : m_nodes) {
        Json j = Json::object();
        j["id"] = n.id;
        j["parent"] = n.parent;
        j["pass"] = n.pass;
        j["depth"] = n.depth;
        j["decision"] = n.decision;
        j["detail"] = n.detail;
        j["cost"] = n.cost;
        j["in_beam"] = n.inBeam;
        if (n.fixed)
            j["fixed"] = true;
        if (n.passThrough)
            j["pass_through"] = true;
        if (!n.stageCosts.empty()) {
            Json costs = Json::array();
            for (float c : n.stageCosts)
                costs.push(Json(c));
            j["stage_costs"] = costs;
            Json feats = Json::array();
            for (const auto &f : n.features) {
                Json row = Json::array();
                for (float v : f)
                    row.push(Json(v));
                feats.push(row);
            }
            j["features"] = feats;
            j["loop_nest"] = n.loopNest;
        }
        out += j.dump() + "\n";
    }
    Json s = Json::object();
    Json inner = Json::object();
    inner["best_id"] = summary.bestId;
    inner["best_cost"] = summary.bestCost;
    inner["nodes_recorded"] = static_cast<int64_t>(m_nodes.size());
    inner["nodes_dropped"] = summary.nodesDropped;
    inner["states_evaluated"] = summary.statesEvaluated;
    inner["search_seconds"] = summary.searchSeconds;
    s["summary"] = inner;
    out += s.dump() + "\n";
    return out;
}

bool SearchTrace::write(const std::filesystem::path &path, bool overwrite, std::string *error) const
{
    const std::string text = serialize();
    const WriteResult r = writeFileAtomically(path, std::span<const char>(text.data(), text.size()),
                                              overwrite ? Overwrite::Replace : Overwrite::Refuse);
    if (!r.ok && error)
        *error = r.error;
    return r.ok;
}

namespace {
// A stored float: a number, or null where the writer had NaN or an infinity
// (Json writes those as null), read back as NaN rather than as a made-up 0.
bool floatOf(const Json &v, float &out)
{
    if (v.isNull()) {
        out = std::numeric_limits<float>::quiet_NaN();
        return true;
    }
    if (!v.isNumber())
        return false;
    // Beyond float's range the conversion would be undefined; IEEE rounding gives an infinity.
    const double d = v.toNumber();
    const float inf = std::numeric_limits<float>::infinity();
    out = std::fabs(d) > std::numeric_limits<float>::max() ? (d > 0 ? inf : -inf) : static_cast<float>(d);
    return true;
}
} // namespace

std::optional<SearchTrace> SearchTrace::parse(const std::string &text, std::string *error)
{
    auto fail = [&](size_t line, const std::string &what) -> std::optional<SearchTrace> {
        if (error)
            *error = "line " + std::to_string(line) + ": " + what;
        return std::nullopt;
    };
    std::istringstream in(text);
    std::string line;
    size_t lineNo = 0;
    SearchTrace trace;
    bool sawHeader = false, sawSummary = false;
    while (std::getline(in, line)) {
        lineNo++;
        if (line.empty())
            continue;
        JsonParseResult parsed = parseJson(line);
        if (!parsed.value)
            return fail(lineNo, "invalid JSON: " + parsed.error);
        const Json &j = *parsed.value;
        if (!j.isObject())
            return fail(lineNo, "expected a JSON object");
        if (!sawHeader) {
            const Json *format = j.find("format");
            if (!format || format->toString() != "beamscope-search-trace")
                return fail(lineNo, "expected the header with \"format\": \"beamscope-search-trace\"");
            const Json *version = j.find("version");
            if (!version || !version->isNumber() || version->toInt() < 1 || version->toInt() > kTraceVersion)
                return fail(lineNo, "field \"version\": expected 1 to " + std::to_string(kTraceVersion) + ", found " +
                                        (version ? version->dump() : std::string("none")));
            if (const Json *p = j.find("pipeline"))
                trace.pipeline = p->toString();
            if (const Json *st = j.find("stages"))
                for (const Json &s : st->items())
                    trace.stageNames.push_back(s.toString());
            if (const Json *p = j.find("params")) {
                std::string why;
                std::optional<TraceParams> params = TraceParams::fromJson(*p, &why);
                if (!params)
                    return fail(lineNo, "\"params\": " + why);
                trace.params = std::move(*params);
            }
            if (const Json *c = j.find("cap")) {
                if (!c->isInteger() || c->toInt(-1) < 0)
                    return fail(lineNo, "field \"cap\": expected a non-negative integer, found " + c->dump());
                trace.m_cap = static_cast<size_t>(c->toInt());
            }
            sawHeader = true;
            continue;
        }
        if (const Json *s = j.find("summary")) {
            trace.summary.bestId = s->find("best_id") ? s->find("best_id")->toInt(-1) : -1;
            trace.summary.bestCost = s->find("best_cost") ? s->find("best_cost")->toNumber() : 0;
            trace.summary.nodesDropped = s->find("nodes_dropped") ? s->find("nodes_dropped")->toInt() : 0;
            trace.summary.statesEvaluated = s->find("states_evaluated") ? s->find("states_evaluated")->toInt() : 0;
            trace.summary.searchSeconds = s->find("search_seconds") ? s->find("search_seconds")->toNumber() : 0;
            sawSummary = true;
            continue;
        }
        TraceNode n;
        const Json *id = j.find("id");
        if (!id || !id->isNumber())
            return fail(lineNo, "field \"id\": expected a number");
        n.id = id->toInt();
        if (n.id != static_cast<int64_t>(trace.m_nodes.size()))
            return fail(lineNo, "field \"id\": expected " + std::to_string(trace.m_nodes.size()) + ", found " +
                                    std::to_string(n.id));
        const Json *parent = j.find("parent");
        if (!parent || !parent->isNumber())
            return fail(lineNo, "field \"parent\": expected a number");
        n.parent = parent->toInt();
        if (n.parent >= n.id)
            return fail(lineNo, "field \"parent\": refers to a later node " + std::to_string(n.parent));
        if (n.parent < -1)
            return fail(lineNo, "field \"parent\": expected -1 (the root) or an earlier node's id, found " +
                                    std::to_string(n.parent));
        n.pass = static_cast<int>(j.find("pass") ? j.find("pass")->toInt() : 0);
        n.depth = static_cast<int>(j.find("depth") ? j.find("depth")->toInt() : 0);
        if (const Json *d = j.find("decision"))
            n.decision = d->toString();
        if (const Json *d = j.find("detail"))
            n.detail = *d;
        const Json *cost = j.find("cost");
        if (!cost || !cost->isNumber())
            return fail(lineNo, "field \"cost\": expected a number");
        n.cost = cost->toNumber();
        n.inBeam = j.find("in_beam") && j.find("in_beam")->toBool();
        n.fixed = j.find("fixed") && j.find("fixed")->toBool();
        n.passThrough = j.find("pass_through") && j.find("pass_through")->toBool();
        if (const Json *c = j.find("stage_costs"))
            for (const Json &v : c->items()) {
                float value = 0;
                if (!floatOf(v, value))
                    return fail(lineNo, "field \"stage_costs\": expected numbers, found " + v.dump());
                n.stageCosts.push_back(value);
            }
        if (const Json *f = j.find("features")) {
            if (f->size() != n.stageCosts.size())
                return fail(lineNo, "field \"features\": expected one row per stage cost (" +
                                        std::to_string(n.stageCosts.size()) + "), found " + std::to_string(f->size()));
            for (const Json &row : f->items()) {
                if (row.size() != static_cast<size_t>(kScheduleFeatureCount))
                    return fail(lineNo,
                                "field \"features\": expected rows of 73 values, found " + std::to_string(row.size()));
                std::array<float, 73> r{};
                for (size_t i = 0; i < r.size(); i++)
                    if (!floatOf(row.items()[i], r[i]))
                        return fail(lineNo, "field \"features\": expected numbers, found " + row.items()[i].dump());
                n.features.push_back(r);
            }
        }
        if (const Json *l = j.find("loop_nest"))
            n.loopNest = l->toString();
        trace.m_nodes.push_back(std::move(n));
    }
    if (!sawHeader)
        return fail(lineNo, "empty trace: no header line");
    if (!sawSummary)
        return fail(lineNo, "truncated trace: no summary line at the end");
    return trace;
}

std::optional<SearchTrace> SearchTrace::read(const std::filesystem::path &path, std::string *error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (error)
            *error = path.string() + ": cannot open";
        return std::nullopt;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string why;
    auto t = parse(ss.str(), &why);
    if (!t && error)
        *error = path.string() + ": " + why;
    return t;
}

} // namespace beamscope::search
