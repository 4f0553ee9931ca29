#include "core/campaign/beam_check.h"

#include "core/bench/float_check.h"
#include "core/bench/isolated_compile.h"
#include "core/bench/targets.h"
#include "core/pipelines/host_target.h"
#include "core/schedule/apply_schedule.h"
#include "core/schedule/device_reference.h"
#include "core/search/autoschedule.h"
#include "core/search/search_trace.h"
#include "core/search/state_from_decisions.h"
#include "core/util/progress.h"

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <fstream>
#include <map>

namespace beamscope::campaign {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

const std::vector<std::pair<Outcome, const char *>> &outcomeNames()
{
    static const std::vector<std::pair<Outcome, const char *>> names{
        {Outcome::Correct, "correct"},
        {Outcome::NoSchedule, "no-schedule"},
        {Outcome::Refused, "refused"},
        {Outcome::BeyondBound, "beyond-bound"},
        {Outcome::Crash, "crash"},
        {Outcome::Hang, "hang"},
        {Outcome::WrongOutput, "wrong-output"},
        {Outcome::InternalError, "internal-error"},
    };
    return names;
}

// Linux keeps the resident peak (VmHWM) until "5" is written to clear_refs.
void resetPeakResident()
{
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
}

double peakResidentMiB()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

std::string shortNumber(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

// The complete states of the search's final beam, cheapest first, the winner
// first of all: rebuilt from the decisions the trace recorded.
std::vector<std::pair<double, search::State>> finalBeam(const search::AutoscheduleOutcome &outcome,
                                                        const search::SearchTrace &trace, size_t count)
{
    std::vector<std::pair<double, search::State>> out;
    out.emplace_back(outcome.result.cost, *outcome.result.best);
    int lastPass = 0, lastDepth = 0;
    for (const search::TraceNode &n : trace.nodes())
        lastPass = std::max(lastPass, n.pass);
    for (const search::TraceNode &n : trace.nodes())
        if (n.pass == lastPass)
            lastDepth = std::max(lastDepth, n.depth);
    // A pass-through node (nothing left to decide) costs what its nearest costed ancestor does.
    auto costOf = [&](const search::TraceNode *n) {
        while (n && n->passThrough)
            n = trace.find(n->parent);
        return n ? n->cost : 0.0;
    };
    std::vector<std::pair<double, const search::TraceNode *>> complete;
    for (const search::TraceNode &n : trace.nodes())
        if (n.pass == lastPass && n.depth == lastDepth)
            complete.emplace_back(costOf(&n), &n);
    std::stable_sort(complete.begin(), complete.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    const std::string winnerNest = outcome.result.best->dump();
    std::vector<std::string> seen{winnerNest};
    for (const auto &[cost, n] : complete) {
        if (out.size() >= count)
            break;
        search::State s = search::stateFromDecisions(*outcome.searchDag, trace.decisionsTo(n->id), outcome.pipeline);
        if (!s.complete())
            continue;
        std::string nest = s.dump();
        if (std::find(seen.begin(), seen.end(), nest) != seen.end())
            continue;
        seen.push_back(std::move(nest));
        out.emplace_back(cost, std::move(s));
    }
    return out;
}

Outcome outcomeOfCompile(const bench::CompiledLibrary &c)
{
    if (c.timedOut)
        return Outcome::BeyondBound;
    if (c.error.find("signal") != std::string::npos || c.error.find("SIG") != std::string::npos)
        return Outcome::Crash;
    return Outcome::Refused;
}

Outcome outcomeOfRun(const bench::Measurement &m)
{
    switch (m.failure) {
    case bench::Failure::None: return Outcome::Correct;
    case bench::Failure::Compile: return Outcome::Refused;
    case bench::Failure::Crash: return Outcome::Crash;
    case bench::Failure::Timeout: return Outcome::Hang;
    case bench::Failure::WrongOutput: return Outcome::WrongOutput;
    case bench::Failure::PipelineError: return Outcome::Refused;
    default: return Outcome::InternalError;
    }
}

} // namespace

const char *outcomeName(Outcome outcome)
{
    for (const auto &[o, name] : outcomeNames())
        if (o == outcome)
            return name;
    return "?";
}

std::optional<Outcome> outcomeFromName(const std::string &name)
{
    for (const auto &[o, n] : outcomeNames())
        if (name == n)
            return o;
    return std::nullopt;
}

bool isDefect(Outcome outcome)
{
    return outcome != Outcome::Correct && outcome != Outcome::NoSchedule && outcome != Outcome::Refused;
}

Json ScheduleCheck::toJson() const
{
    Json j = Json::object();
    j["rank"] = rank;
    j["predicted_cost"] = predictedCost;
    j["outcome"] = std::string(outcomeName(outcome));
    j["message"] = message;
    j["cuda_compiled"] = cudaCompiled;
    j["cuda_error"] = cudaError;
    j["compile_seconds"] = compileSeconds;
    j["run_seconds"] = runSeconds;
    j["mismatches"] = mismatches;
    j["values"] = values;
    j["loop_nest"] = loopNest;
    return j;
}

Json PipelineCheck::toJson() const
{
    Json j = Json::object();
    j["pipeline"] = pipeline;
    j["source"] = source;
    Json kinds = Json::array();
    for (const std::string &k : stageKinds)
        kinds.push(k);
    j["stage_kinds"] = kinds;
    j["stages"] = stages;
    j["outcome"] = std::string(outcomeName(outcome));
    j["message"] = message;
    j["search_seconds"] = searchSeconds;
    j["check_seconds"] = checkSeconds;
    j["peak_search_mib"] = peakSearchMiB;
    Json s = Json::array();
    for (const ScheduleCheck &c : schedules)
        s.push(c.toJson());
    j["schedules"] = s;
    return j;
}

std::optional<PipelineCheck> PipelineCheck::fromJson(const Json &j, std::string *error)
{
    auto fail = [&](const std::string &why) {
        *error = why;
        return std::nullopt;
    };
    if (!j.isObject())
        return fail("expected an object");
    PipelineCheck p;
    auto text = [&](const char *key, std::string &to) {
        const Json *v = j.find(key);
        if (!v || !v->isString())
            return false;
        to = v->toString();
        return true;
    };
    auto number = [&](const Json &o, const char *key, double &to) {
        const Json *v = o.find(key);
        if (!v || !v->isNumber())
            return false;
        to = v->toNumber();
        return true;
    };
    std::string outcome;
    if (!text("pipeline", p.pipeline) || !text("outcome", outcome) || !text("message", p.message) ||
        !text("source", p.source))
        return fail("pipeline, source, outcome and message must be strings");
    const auto o = outcomeFromName(outcome);
    if (!o)
        return fail("outcome: unknown class '" + outcome + "'");
    p.outcome = *o;
    double stages = 0;
    if (!number(j, "search_seconds", p.searchSeconds) || !number(j, "check_seconds", p.checkSeconds) ||
        !number(j, "peak_search_mib", p.peakSearchMiB) || !number(j, "stages", stages))
        return fail("search_seconds, check_seconds, peak_search_mib and stages must be numbers");
    p.stages = static_cast<int>(stages);
    if (const Json *kinds = j.find("stage_kinds"); kinds && kinds->isArray())
        for (const Json &item : kinds->items())
            p.stageKinds.push_back(item.toString());
    const Json *schedules = j.find("schedules");
    if (!schedules || !schedules->isArray())
        return fail("schedules must be an array");
    for (size_t i = 0; i < schedules->size(); i++) {
        const Json &s = schedules->items()[i];
        ScheduleCheck c;
        double rank = 0;
        std::string name;
        if (!s.isObject() || !number(s, "rank", rank) || !number(s, "predicted_cost", c.predictedCost))
            return fail("schedules[" + std::to_string(i) + "]: rank and predicted_cost must be numbers");
        const Json *on = s.find("outcome");
        const auto so = on && on->isString() ? outcomeFromName(on->toString()) : std::nullopt;
        if (!so)
            return fail("schedules[" + std::to_string(i) + "].outcome: expected an outcome class");
        c.rank = static_cast<int>(rank);
        c.outcome = *so;
        if (const Json *m = s.find("message"); m && m->isString())
            c.message = m->toString();
        if (const Json *m = s.find("cuda_compiled"))
            c.cudaCompiled = m->toBool();
        if (const Json *m = s.find("cuda_error"); m && m->isString())
            c.cudaError = m->toString();
        if (const Json *m = s.find("loop_nest"); m && m->isString())
            c.loopNest = m->toString();
        number(s, "compile_seconds", c.compileSeconds);
        number(s, "run_seconds", c.runSeconds);
        number(s, "mismatches", c.mismatches);
        number(s, "values", c.values);
        p.schedules.push_back(std::move(c));
    }
    return p;
}

std::vector<PipelineToCheck> exploringChecksOf(const PipelineToCheck &base, int count, int dropoutPercent,
                                               uint64_t firstSeed)
{
    std::vector<PipelineToCheck> out;
    for (int k = 0; k < count; k++) {
        const uint64_t seed = firstSeed + static_cast<uint64_t>(k);
        PipelineToCheck check = base;
        check.name = base.name + "@dropout" + std::to_string(seed);
        check.source = base.source + "; beam 1, " + std::to_string(dropoutPercent) + "% random dropout, seed " +
                       std::to_string(seed) + ", randomized tilings";
        check.exploring = {seed, dropoutPercent};
        out.push_back(std::move(check));
    }
    return out;
}

PipelineCheck checkPipeline(const PipelineToCheck &pipeline, const model::CostModel &model,
                            const BeamCheckOptions &options, Progress *progress)
{
    PipelineCheck out;
    out.pipeline = pipeline.name;
    out.source = pipeline.source;
    out.stageKinds = pipeline.stageKinds;

    // Search, keeping the tree: the final beam's other states are rebuilt from it.
    const auto searchStarted = Clock::now();
    resetPeakResident();
    pipelines::PipelineInstance instance;
    search::AutoscheduleOutcome outcome;
    search::SearchTrace trace(50'000'000);
    try {
        instance = pipeline.build();
        search::AutoscheduleParams params = options.search;
        if (pipeline.exploring.seed != 0) {
            params.beamSize = 1;
            params.randomDropout = pipeline.exploring.dropoutPercent;
            params.randomDropoutSeed = pipeline.exploring.seed;
            params.randomizeTilings = true;
        }
        if (!options.startLoopNest.empty())
            params.startDecisions = search::partialScheduleDecisions(instance.outputs, options.startLoopNest);
        outcome = search::autoschedule(pipeline.name, instance.outputs, model, params, &trace, nullptr);
    } catch (const Halide::Error &e) {
        out.outcome = Outcome::Refused;
        out.message = std::string("Halide: ") + e.what();
    } catch (const std::exception &e) {
        out.outcome = Outcome::NoSchedule;
        out.message = e.what();
    }
    out.searchSeconds = secondsSince(searchStarted);
    out.peakSearchMiB = peakResidentMiB();
    if (!out.message.empty())
        return out;
    out.stages = static_cast<int>(outcome.stageNames.size());
    if (!outcome.result.best) {
        out.outcome = Outcome::NoSchedule;
        out.message = outcome.result.failure.empty() ? "the search found no complete schedule" : outcome.result.failure;
        return out;
    }

    const auto checkStarted = Clock::now();
    const auto beam = finalBeam(outcome, trace, static_cast<size_t>(std::max(1, options.schedules)));
    const Halide::Target device =
        bench::benchTarget(bench::TargetKind::OpenCL, 0).with_feature(Halide::Target::StrictFloat);
    const Halide::Target cuda = bench::benchTarget(bench::TargetKind::Cuda, bench::kDefaultCudaCapability);
    const Halide::Target host = pipelines::hostTarget().with_feature(Halide::Target::StrictFloat);

    // Per state: the device build, then (when asked) the CUDA build; one host reference last.
    std::vector<bench::CompileRequest> requests;
    std::vector<size_t> cudaIndex(beam.size(), SIZE_MAX);
    for (size_t i = 0; i < beam.size(); i++) {
        const search::State *state = &beam[i].second;
        const bench::Schedule schedule = bench::Schedule::custom(
            "beam" + std::to_string(i), [state](pipelines::PipelineInstance &p, const Halide::Target &) {
                schedule::applySchedule(*state, p.outputs);
            });
        requests.push_back({pipeline.build, schedule, device, {}, {}});
    }
    for (size_t i = 0; i < beam.size(); i++)
        if (options.cudaSchedules < 0 || i < static_cast<size_t>(options.cudaSchedules)) {
            cudaIndex[i] = requests.size();
            requests.push_back({pipeline.build, requests[i].schedule, cuda, {}, {}});
        }
    std::vector<std::string> mathCalls;
    try {
        mathCalls = bench::inexactMathCalls(instance.outputs);
    } catch (const std::exception &) {
    }
    // The references: the host's, exact but for the math library, and, where the pipeline calls
    // it, the device's own (device_reference.h).
    requests.push_back({pipeline.build, bench::Schedule::computeRoot(), host, {}, {}});
    const size_t referenceIndex = requests.size() - 1;
    if (!mathCalls.empty())
        requests.push_back({pipeline.build,
                            bench::Schedule::custom("device_reference",
                                                    [](pipelines::PipelineInstance &p, const Halide::Target &) {
                                                        schedule::applyDeviceReferenceSchedule(p.outputs);
                                                    }),
                            device,
                            {},
                            {}});
    bench::IsolatedCompileOptions compile;
    compile.compile.cacheDir = options.cacheDir;
    compile.compile.jobs = options.jobs;
    compile.timeoutSeconds = options.compileTimeoutSeconds;
    const std::vector<bench::CompiledLibrary> built = bench::compileIsolated(requests, compile, progress);
    const bench::CompiledLibrary &reference = built[referenceIndex];
    const bench::CompiledLibrary *deviceReference = mathCalls.empty() ? nullptr : &built.back();

    for (size_t i = 0; i < beam.size(); i++) {
        ScheduleCheck c;
        c.rank = static_cast<int>(i);
        c.predictedCost = beam[i].first;
        c.loopNest = beam[i].second.halideLoopNest(); // Halide's dump: --loop-nest replays it
        const bench::CompiledLibrary &lib = built[i];
        c.compileSeconds = lib.compileSeconds;
        c.cudaCompiled = cudaIndex[i] != SIZE_MAX;
        if (c.cudaCompiled && !built[cudaIndex[i]].ok)
            c.cudaError = built[cudaIndex[i]].error.substr(0, 2000);
        if (!lib.ok) {
            c.outcome = outcomeOfCompile(lib);
            c.message = "OpenCL compile: " + lib.error.substr(0, 2000);
        } else if (!reference.ok) {
            c.outcome = outcomeOfCompile(reference);
            c.message = "the host reference did not compile: " + reference.error.substr(0, 2000);
        } else {
            bench::RunOptions once = options.run;
            once.reps = 1;
            once.warmup = 0;
            const auto runStarted = Clock::now();
            bench::Measurement m = bench::measure(lib, &reference, once, progress);
            // A run past its limit may be a slow schedule on a loaded machine, not a hang: it
            // gets one more run with five times the time; only one past that is a hang.
            if (m.failure == bench::Failure::Timeout) {
                bench::RunOptions longer = once;
                longer.timeoutSeconds *= 5;
                m = bench::measure(lib, &reference, longer, progress);
                if (m.failure != bench::Failure::Timeout)
                    m.message = (m.message.empty() ? std::string() : m.message + "; ") + "its first run passed the " +
                                std::to_string(static_cast<int>(once.timeoutSeconds)) + " s limit, its second took " +
                                std::to_string(secondsSince(runStarted)) + " s in all";
            }
            c.runSeconds = secondsSince(runStarted);
            if (m.failure == bench::Failure::WrongOutput && bench::withinMathLibraryTolerance(m, mathCalls)) {
                m.failure = bench::Failure::None;
                m.message = "within the math library's tolerance: " + m.tolerance;
            }
            // The host's math library rounds otherwise than the device's: what differs from the host
            // must then equal, exactly, the device's own reference.
            if (m.failure == bench::Failure::WrongOutput && deviceReference && deviceReference->ok) {
                const double hostMismatches = m.mismatches;
                const bench::Measurement onDevice = bench::measure(lib, deviceReference, once, progress);
                if (onDevice.failure == bench::Failure::None) {
                    std::string calls;
                    for (const std::string &f : mathCalls)
                        calls += (calls.empty() ? "" : ", ") + f;
                    m = onDevice;
                    m.message = "equal to the device's compute_root reference; the host's differs in " +
                                std::to_string(static_cast<int64_t>(hostMismatches)) + " values (" + calls +
                                " round otherwise there)";
                } else {
                    m.message += "; against the device's compute_root reference: " + onDevice.message;
                }
            }
            c.outcome = outcomeOfRun(m);
            c.message = m.message.substr(0, 2000);
            // The reference itself failing at a reduced size is the size's fault, not the schedule's: an
            // output whose extent the data decides (a histogram's bins) cannot be scaled.
            if (c.outcome == Outcome::Refused && once.scale != 1.0 &&
                m.message.find("during reference") != std::string::npos)
                c.message += " (the host reference fails at --scale " + shortNumber(once.scale) +
                             ": an output whose extent the data decides, such as a histogram's bins, cannot be "
                             "scaled; check this pipeline at --scale 1)";
            // A kernel whose shared (local) memory exceeds the device's is past a memory bound; the
            // device says so by an error code or, on PoCL, by an assertion that aborts the process.
            if ((c.outcome == Outcome::Crash || c.outcome == Outcome::Refused) &&
                (m.workerLog.find("local_mem_size") != std::string::npos ||
                 m.workerLog.find("CL_OUT_OF_RESOURCES") != std::string::npos ||
                 m.workerLog.find("CUDA_ERROR_OUT_OF_RESOURCES") != std::string::npos)) {
                c.outcome = Outcome::BeyondBound;
                m.message = "a kernel needs more shared (local) memory than the device has: a Func in shared "
                            "memory is larger for some block than for the block the search sized it on (" +
                            m.message + ")";
                c.message = m.message;
            }
            // What the device or Halide's runtime said last, for a crash or a hang.
            if ((c.outcome == Outcome::Crash || c.outcome == Outcome::Hang) && !m.workerLog.empty() &&
                c.message.find(m.workerLog.substr(m.workerLog.size() > 400 ? m.workerLog.size() - 400 : 0)) ==
                    std::string::npos)
                c.message += "; the worker's last words: " +
                             m.workerLog.substr(m.workerLog.size() > 400 ? m.workerLog.size() - 400 : 0);
            // Where to read what Halide made of a schedule that failed (compile.h keeps it in the cache).
            if (c.outcome != Outcome::Correct && !lib.loweredStmt.empty())
                c.message += "; Halide's lowered statement: " + lib.loweredStmt.string();
            c.mismatches = m.mismatches;
            c.values = m.values;
        }
        if (c.outcome == Outcome::Correct && !c.cudaError.empty()) {
            c.outcome = c.cudaError.find("signal") != std::string::npos ? Outcome::Crash : Outcome::Refused;
            c.message = "CUDA compile: " + c.cudaError;
        }
        out.outcome = std::max(out.outcome, c.outcome);
        out.schedules.push_back(std::move(c));
    }
    out.checkSeconds = secondsSince(checkStarted);
    return out;
}

} // namespace beamscope::campaign
