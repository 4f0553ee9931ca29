#include "core/autotune/autotune.h"

#include "core/util/child_process.h"
#include "core/bench/compile.h"
#include "core/bench/float_check.h"
#include "core/bench/isolated_compile.h"
#include "core/model/cost_model_file.h"
#include "core/pipelines/host_target.h"
#include "core/samples/sample.h"
#include "core/samples/training_loop.h"
#include "core/schedule/apply_schedule.h"
#include "core/schedule/emit_source.h"
#include "core/search/autoschedule.h"
#include "core/search/device_limits.h"
#include "core/search/featurization.h"
#include "core/util/build_info.h"
#include "core/util/progress.h"
#include "core/util/sha256.h"
#include "core/weights/weights.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace beamscope::autotune {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The dropout seed of sample `index` of `batch`: Halide's "%04d%04d" of the
// two, offset by the run's seed so that runs with other seeds differ.
uint64_t dropoutSeedFor(uint64_t runSeed, int batch, int index)
{
    return runSeed * 100000000ull + static_cast<uint64_t>(scheduleIdFor(batch, index));
}

Status statusOf(const bench::Measurement &m)
{
    switch (m.failure) {
    case bench::Failure::None: return Status::Ok;
    case bench::Failure::Compile: return Status::CompileFailed;
    case bench::Failure::Crash: return Status::Crash;
    case bench::Failure::Timeout: return Status::Hang;
    case bench::Failure::WrongOutput: return Status::WrongOutput;
    default: return Status::RunFailed;
    }
}

// A searched schedule waiting to be compiled and measured: the state refers to
// the DAG its outcome owns, and that DAG to the instance's Funcs.
struct Candidate {
    ScheduleRecord record;
    pipelines::PipelineInstance instance;
    search::AutoscheduleOutcome outcome;
    std::vector<float> featurization;
    std::string source, loopNest;
    std::string fault;
    bool check = false;
};

class Run {
public:
    Run(const AutotuneOptions &options, Progress *progress, const AutotuneEvents &events)
        : m_o(options), m_progress(progress), m_events(events), m_folder(options.outDir)
    {}

    AutotuneResult run();

private:
    bool cancelled() const { return m_progress && m_progress->cancelled(); }
    // A searched schedule claims its feature hash whatever its measurement
    // gives (as the loop does when it searches), so a resumed or merged run
    // calls the same later schedules duplicates as an uninterrupted one.
    void claim(const ScheduleRecord &r)
    {
        if (r.status != Status::Duplicate && r.status != Status::SearchFailed)
            m_measured.emplace(r.scheduleHash, r.scheduleId);
    }
    bool inShard(size_t pipeline, int index) const
    {
        const auto global = pipeline * static_cast<size_t>(m_o.batchSize) + static_cast<size_t>(index);
        return m_o.shardCount <= 1 || static_cast<int>(global % static_cast<size_t>(m_o.shardCount)) == m_o.shardIndex;
    }
    // The bar counts schedules finished (resumed ones included), not batches:
    // one batch is most of a run when there is one.
    void countFinished()
    {
        const double total = static_cast<double>(m_o.batches) * static_cast<double>(m_o.pipelines.size()) *
                             static_cast<double>(m_o.batchSize);
        if (total > 0)
            m_fraction = std::min(1.0, static_cast<double>(m_done.size()) / total);
    }
    // A finished schedule (found in the folder, or just written): counted as
    // done and in the pipeline's best runtime.
    void remember(const ScheduleRecord &r)
    {
        if (r.status == Status::Ok && (!m_bestMs.count(r.pipeline) || r.runtimeMs < m_bestMs[r.pipeline]))
            m_bestMs[r.pipeline] = r.runtimeMs;
        m_done.emplace(std::make_tuple(r.pipeline, r.batch, r.index), r);
    }
    // One this run finished: remembered, returned and reported.
    void announce(const ScheduleRecord &r)
    {
        remember(r);
        m_result.records.push_back(r);
        countFinished();
        if (m_events.onRecord)
            m_events.onRecord(r); // the next report carries the new fraction
    }
    void mergeShards(int batch);
    void report(const std::string &message)
    {
        if (m_progress)
            m_progress->report(m_fraction, message);
    }
    std::string openFolder();
    std::string loadWeights(const fs::path &path);
    void runBatch(int batch);
    void searchPipeline(int batch, size_t pipelineIndex, std::vector<std::unique_ptr<Candidate>> &out);
    void compileAndMeasure(int batch, std::vector<std::unique_ptr<Candidate>> &candidates, BatchSummary &summary);
    void finishRecord(const ScheduleRecord &record, const Candidate *candidate);
    void retrain(int batch, BatchSummary &summary);
    void writeRecordsTsv();

    const AutotuneOptions &m_o;
    Progress *m_progress;
    const AutotuneEvents &m_events;
    RunFolder m_folder;
    RunFolder m_prior{m_o.priorFolder};
    AutotuneResult m_result;
    std::map<std::string, int32_t> m_ids;
    std::map<std::tuple<std::string, int, int>, ScheduleRecord> m_done; // (pipeline, batch, index)
    std::map<uint64_t, int32_t> m_measured;                             // schedule hash -> schedule id
    std::map<std::string, double> m_bestMs;
    std::unique_ptr<model::CostModel> m_model;
    double m_fraction = 0;
};

std::string Run::openFolder()
{
    std::error_code ec;
    fs::create_directories(m_o.outDir, ec);
    if (ec)
        return m_o.outDir.string() + ": cannot create the folder: " + ec.message();
    m_result.staleTempFilesRemoved = m_folder.removeStaleTempFiles();

    const Json params = runParameters(m_o);
    if (auto text = readTextFile(m_folder.manifest())) {
        const JsonParseResult parsed = parseJson(*text);
        if (!parsed.value)
            return m_folder.manifest().string() + ": " + parsed.error;
        const Json *old = parsed.value->find("parameters");
        if (!old)
            return m_folder.manifest().string() + ": field 'parameters' is missing";
        for (const auto &[key, value] : params.members()) {
            const Json *was = old->find(key);
            if (!was || was->dump() != value.dump())
                return m_folder.manifest().string() + ": parameter '" + key + "' was " +
                       (was ? was->dump() : std::string("absent")) + ", this run asks for " + value.dump() +
                       "; resume with the same parameters or use another --out folder";
        }
    } else {
        Json manifest = Json::object();
        manifest["format"] = "beamscope-autotune 1";
        manifest["beamscope_version"] = beamscopeVersion();
        manifest["beamscope_commit"] = beamscopeCommit();
        manifest["created"] = static_cast<int64_t>(std::time(nullptr));
        char host[256] = {};
        ::gethostname(host, sizeof host - 1);
        manifest["host"] = std::string(host);
        manifest["device"] = describeTarget(m_o);
        Json weights = Json::object();
        weights["path"] = fs::absolute(m_o.weightsPath).string();
        weights["sha256"] = sha256FileHex(m_o.weightsPath).value_or("unreadable");
        manifest["starting_weights"] = weights;
        Json pipelines = Json::array();
        for (const PipelineSpec &p : m_o.pipelines) {
            Json j = Json::object();
            j["name"] = p.name;
            j["pipeline_id"] = static_cast<int64_t>(m_ids.at(p.name));
            j["source"] = p.source;
            pipelines.push(j);
        }
        manifest["pipelines"] = pipelines;
        manifest["parameters"] = params;
        if (auto w = replaceTextFile(m_folder.manifest(), manifest.dump(2) + "\n"); !w.ok)
            return w.error;
    }

    std::string apps = "# pipeline id -> pipeline (beamscope-cli autotune)\n";
    for (const PipelineSpec &p : m_o.pipelines)
        apps += std::to_string(m_ids.at(p.name)) + "\t" + p.name + "\n";
    if (auto w = replaceTextFile(m_folder.appsTsv(), apps); !w.ok)
        return w.error;

    if (!fs::exists(m_folder.startWeights(), ec)) {
        const auto bytes = readTextFile(m_o.weightsPath);
        if (!bytes)
            return m_o.weightsPath.string() + ": cannot read the starting weights";
        if (auto w = replaceTextFile(m_folder.startWeights(), *bytes); !w.ok)
            return w.error;
    }

    std::vector<std::string> errors;
    if (!m_o.priorFolder.empty())
        for (const ScheduleRecord &r : RunFolder(m_o.priorFolder).readRecords(&errors))
            claim(r);
    for (const ScheduleRecord &r : m_folder.readRecords(&errors)) {
        claim(r);
        remember(r);
    }
    if (!errors.empty())
        return errors.front();
    return {};
}

std::string Run::loadWeights(const fs::path &path)
{
    std::string error;
    m_model = model::loadCostModel(path, error);
    return error;
}

void Run::searchPipeline(int batch, size_t pipelineIndex, std::vector<std::unique_ptr<Candidate>> &out)
{
    const PipelineSpec &spec = m_o.pipelines[pipelineIndex];
    const int32_t pid = m_ids.at(spec.name);
    for (int index = 0; index < m_o.batchSize; index++) {
        if (cancelled())
            return;
        if (m_done.count({spec.name, batch, index}) || !inShard(pipelineIndex, index))
            continue;
        auto c = std::make_unique<Candidate>();
        ScheduleRecord &r = c->record;
        r.pipeline = spec.name;
        r.pipelineId = pid;
        r.batch = batch;
        r.index = index;
        r.scheduleId = scheduleIdFor(batch, index);
        r.dropoutSeed = dropoutSeedFor(m_o.seed, batch, index);
        r.beamSize = index == 0 ? m_o.firstBeamSize : m_o.otherBeamSize;
        r.randomDropout = index == 0 ? 100 : m_o.otherDropout;
        report(spec.name + " " + batchName(batch) + ": searching schedule " + std::to_string(index + 1) + " of " +
               std::to_string(m_o.batchSize));

        search::AutoscheduleParams params;
        params.beamSize = r.beamSize;
        params.randomDropout = r.randomDropout;
        params.randomDropoutSeed = r.dropoutSeed;
        params.randomizeTilings = m_o.randomizeTilings;
        params.freezeInlineComputeRoot = m_o.freezeInlineComputeRoot;
        params.options.parse(m_o.searchSpaceOptions);
        params.device = search::featureParamsFor(m_o.device);
        const auto started = Clock::now();
        try {
            c->instance = spec.build();
            c->outcome = search::autoschedule(spec.name, c->instance.outputs, *m_model, params, nullptr, nullptr);
            const search::SearchResult &result = c->outcome.result;
            r.searchSeconds = secondsSince(started);
            if (!result.best) {
                r.status = Status::SearchFailed;
                r.message = "no complete schedule: " + result.failure;
            } else {
                r.predictedCost = result.cost;
                c->featurization = search::featurization(*c->outcome.searchDag, result.features);
                samples::Sample probe;
                probe.stages = c->featurization;
                r.scheduleHash = samples::scheduleHash(probe);
                c->loopNest = result.best->dump();
                schedule::EmitOptions emit;
                emit.pipeline = spec.name;
                emit.stageCosts = &result.stageCosts;
                emit.totalCost = result.cost;
                c->source = schedule::emitSource(*result.best, c->instance.outputs, emit);
            }
        } catch (const std::exception &e) {
            r.searchSeconds = secondsSince(started);
            r.status = Status::SearchFailed;
            r.message = e.what();
        }
        if (r.status == Status::Ok) {
            if (auto it = m_measured.find(r.scheduleHash); it != m_measured.end()) {
                r.status = Status::Duplicate;
                r.duplicateOf = it->second;
                r.message = "the same schedule features as schedule " + std::to_string(it->second);
            } else {
                // Claimed now, so a later sample of this batch with the same
                // features is a duplicate of this one, whatever its fate.
                m_measured.emplace(r.scheduleHash, r.scheduleId);
            }
        }
        if (r.status != Status::Ok) {
            finishRecord(r, c.get());
            continue;
        }
        const std::string key = spec.name + ":" + std::to_string(batch) + ":" + std::to_string(index);
        if (auto f = m_o.injectFaults.find(key); f != m_o.injectFaults.end())
            c->fault = f->second;
        out.push_back(std::move(c));
    }
}

void Run::finishRecord(const ScheduleRecord &record, const Candidate *candidate)
{
    auto file = [&](const char *suffix) {
        return m_folder.scheduleFile(record.pipeline, record.batch, record.scheduleId, suffix);
    };
    std::error_code ec;
    fs::create_directories(m_folder.scheduleDir(record.pipeline, record.batch), ec);
    if (candidate && !candidate->source.empty()) {
        replaceTextFile(file(".schedule.h"), candidate->source);
        replaceTextFile(file(".loop_nest.txt"), candidate->loopNest);
    }
    if (record.status == Status::Ok && candidate) {
        samples::Sample s;
        s.stages = candidate->featurization;
        s.runtimeMs = static_cast<float>(record.runtimeMs);
        s.pipelineId = record.pipelineId;
        s.scheduleId = record.scheduleId;
        samples::writeSample(s, file(".sample"), Overwrite::Replace);
    }
    // The record last: its presence says the schedule is finished.
    replaceTextFile(file(".json"), record.toJson().dump(2) + "\n");
    announce(record);
}

void Run::compileAndMeasure(int batch, std::vector<std::unique_ptr<Candidate>> &candidates, BatchSummary &summary)
{
    if (candidates.empty())
        return;
    const Halide::Target target = compileTarget(m_o);
    const Halide::Target strict = target.with_feature(Halide::Target::StrictFloat);
    const Halide::Target hostStrict = pipelines::hostTarget().with_feature(Halide::Target::StrictFloat);

    // Each pipeline's first schedule of the batch is checked, as are the ones
    // a fault is injected into (so a wrong output is caught by the check).
    std::set<std::string> seen;
    for (auto &c : candidates)
        c->check = seen.insert(c->record.pipeline).second || !c->fault.empty();

    // Timed builds, then the strict_float pairs of the checked ones (the
    // check is exact but for the device's math library; float_check.h).
    std::vector<bench::CompileRequest> requests;
    std::vector<size_t> strictIndex(candidates.size(), SIZE_MAX);
    auto buildOf = [this](const std::string &name) {
        for (const PipelineSpec &p : m_o.pipelines)
            if (p.name == name)
                return p.build;
        return std::function<pipelines::PipelineInstance()>();
    };
    for (auto &c : candidates) {
        const search::State *state = &*c->outcome.result.best;
        const bench::Schedule schedule =
            bench::Schedule::custom("s" + std::to_string(c->record.scheduleId),
                                    [state](pipelines::PipelineInstance &p, const Halide::Target &) {
                                        schedule::applySchedule(*state, p.outputs);
                                    });
        requests.push_back({buildOf(c->record.pipeline), schedule, target, {}, {}});
    }
    for (size_t i = 0; i < candidates.size(); i++) {
        if (!candidates[i]->check)
            continue;
        strictIndex[i] = requests.size();
        bench::CompileRequest s = requests[i];
        s.target = strict;
        requests.push_back(s);
        requests.push_back({s.build, bench::Schedule::computeRoot(), hostStrict, {}, {}});
    }
    report(batchName(batch) + ": compiling " + std::to_string(requests.size()) + " libraries");
    bench::IsolatedCompileOptions compile;
    compile.compile.cacheDir = m_o.cacheDir;
    compile.compile.jobs = m_o.jobs;
    compile.timeoutSeconds = m_o.compileTimeoutSeconds;
    const auto compileStarted = Clock::now();
    const std::vector<bench::CompiledLibrary> built = bench::compileIsolated(requests, compile, m_progress);
    summary.compileSeconds += secondsSince(compileStarted);

    for (size_t i = 0; i < candidates.size(); i++) {
        Candidate &c = *candidates[i];
        ScheduleRecord &r = c.record;
        if (cancelled())
            return;
        r.compileSeconds = built[i].compileSeconds;
        r.cacheHit = built[i].cacheHit;
        if (!built[i].ok) {
            r.status = built[i].timedOut ? Status::CompileTimeout : Status::CompileFailed;
            r.message = built[i].error;
            finishRecord(r, &c);
            continue;
        }
        report(r.pipeline + " " + batchName(batch) + ": measuring schedule " + std::to_string(r.index));
        const auto measureStarted = Clock::now();
        bench::RunOptions run = m_o.run;
        run.injectFault = c.fault;
        if (c.check) {
            const bench::CompiledLibrary &sc = built[strictIndex[i]];
            const bench::CompiledLibrary &sr = built[strictIndex[i] + 1];
            bench::RunOptions once = run;
            once.reps = 1;
            once.warmup = 0;
            bench::Measurement check;
            if (!sc.ok || !sr.ok) {
                check.failure = bench::Failure::Compile;
                check.message =
                    "the strict_float build for the output check did not compile: " + (sc.ok ? sr.error : sc.error);
            } else {
                check = bench::measure(sc, &sr, once, m_progress);
                if (check.failure == bench::Failure::WrongOutput) {
                    try {
                        if (bench::withinMathLibraryTolerance(check, bench::inexactMathCalls(c.instance.outputs))) {
                            check.ok = true;
                            check.failure = bench::Failure::None;
                        }
                    } catch (const std::exception &) {
                    }
                }
            }
            // A cancelled measurement says nothing of the schedule: no record,
            // so the rerun measures it again.
            if (check.failure == bench::Failure::Cancelled || cancelled())
                return;
            r.checked = true;
            if (check.failure != bench::Failure::None) {
                r.status = statusOf(check);
                r.message = "output check: " + check.message;
                if (!sc.loweredStmt.empty())
                    r.message += "; Halide's lowered statement: " + sc.loweredStmt.string();
                r.measureSeconds = secondsSince(measureStarted);
                summary.measureSeconds += r.measureSeconds;
                finishRecord(r, &c);
                continue;
            }
        }
        const bench::Measurement m = bench::measure(built[i], nullptr, run, m_progress);
        if (m.failure == bench::Failure::Cancelled || cancelled())
            return;
        r.measureSeconds = secondsSince(measureStarted);
        summary.measureSeconds += r.measureSeconds;
        r.status = statusOf(m);
        r.message = m.message;
        // Where to look when a schedule crashes or hangs: what Halide lowered it to (as the campaign says).
        if (!m.ok && !built[i].loweredStmt.empty())
            r.message += "; Halide's lowered statement: " + built[i].loweredStmt.string();
        if (m.ok) {
            r.runtimeMs = m.minMs;
            r.medianMs = m.medianMs;
            r.runs = static_cast<int>(m.timesMs.size());
        }
        finishRecord(r, &c);
    }
}

void Run::retrain(int batch, BatchSummary &summary)
{
    const auto started = Clock::now();
    report(batchName(batch) + ": retraining on every sample so far");
    samples::LoadedSamples loaded = samples::loadSamples({m_o.outDir});
    if (!loaded.ok()) {
        summary.trainingNote = loaded.errors.front();
        return;
    }
    const samples::Split split = samples::splitLikeHalide(loaded.dataset);
    samples::TrainingOptions t;
    t.epochs = m_o.epochs;
    t.learningRate = m_o.learningRate;
    t.seed = static_cast<uint32_t>(m_o.seed + static_cast<uint64_t>(batch));
    t.numCores = m_o.device.smCount > 0 ? m_o.device.smCount : 80;
    t.batches.minSize = m_o.minBatch;
    t.checkpointPath = m_folder.batchWeights(batch).string() + ".checkpoint";
    t.resume = true;
    if (samples::makeBatches(split.training, t.batches).empty()) {
        summary.trainingNote = "no pipeline has a batch of " + std::to_string(m_o.minBatch) +
                               " or more distinct schedules yet: the weights are unchanged";
        const std::vector<char> bytes = weights::serializeWeightsFile(m_model->weights());
        replaceTextFile(m_folder.batchWeights(batch), std::string(bytes.begin(), bytes.end()));
        return;
    }
    const samples::TrainingRun run =
        samples::trainModel(m_model->weights(), split.training, split.validation, t, m_progress);
    summary.trainSeconds = secondsSince(started);
    if (!run.ok()) {
        summary.trainingNote = run.error;
        return;
    }
    if (run.cancelled)
        return;
    const std::vector<char> bytes = weights::serializeWeightsFile(run.state.weights);
    const std::string text(bytes.begin(), bytes.end());
    replaceTextFile(m_folder.batchWeights(batch), text);
    replaceTextFile(m_folder.currentWeights(), text);
    std::error_code ec;
    fs::remove(t.checkpointPath, ec);
    summary.retrained = true;
    summary.before = run.history.front();
    summary.after = run.history.back();
    m_model = std::make_unique<model::CostModel>(run.state.weights);
}

void Run::mergeShards(int batch)
{
    // The tasks measured on their nodes' devices, not the submitting host's:
    // the main manifest lists what each shard's manifest says.
    if (auto text = readTextFile(m_folder.manifest())) {
        const JsonParseResult main = parseJson(*text);
        if (main.value) {
            Json manifest = *main.value;
            Json devices = manifest.find("task_devices") ? *manifest.find("task_devices") : Json::array();
            for (const fs::path &shard : m_o.mergeFrom)
                if (auto t = readTextFile(RunFolder(shard).manifest()))
                    if (const JsonParseResult j = parseJson(*t); j.value && j.value->find("device")) {
                        Json d = *j.value->find("device");
                        d["shard"] = fs::relative(shard, m_folder.root()).string();
                        d["host"] = j.value->find("host") ? *j.value->find("host") : Json();
                        devices.push(d);
                    }
            manifest["task_devices"] = devices;
            replaceTextFile(m_folder.manifest(), manifest.dump(2) + "\n");
        }
    }
    std::map<std::string, size_t> order;
    for (size_t p = 0; p < m_o.pipelines.size(); p++)
        order[m_o.pipelines[p].name] = p;
    struct Found {
        ScheduleRecord record;
        fs::path folder;
    };
    std::vector<Found> found;
    for (const fs::path &shard : m_o.mergeFrom)
        for (ScheduleRecord &r : RunFolder(shard).readRecords())
            if (r.batch == batch && order.count(r.pipeline) && !m_done.count({r.pipeline, batch, r.index}))
                found.push_back({std::move(r), shard});
    std::sort(found.begin(), found.end(), [&](const Found &a, const Found &b) {
        return std::pair(order[a.record.pipeline], a.record.index) <
               std::pair(order[b.record.pipeline], b.record.index);
    });
    for (Found &f : found) {
        ScheduleRecord &r = f.record;
        const RunFolder shard(f.folder);
        if (r.status != Status::SearchFailed) {
            auto it = m_measured.find(r.scheduleHash);
            if (it != m_measured.end() && it->second != r.scheduleId) {
                // Measured by another shard (or an earlier batch) first: a local run would not have compiled it.
                r.status = Status::Duplicate;
                r.duplicateOf = it->second;
                r.message = "the same schedule features as schedule " + std::to_string(it->second);
                r.runtimeMs = r.medianMs = 0;
                r.runs = 0;
                r.checked = false;
            } else if (r.status != Status::Duplicate) {
                m_measured.emplace(r.scheduleHash, r.scheduleId);
            }
        }
        std::error_code ec;
        fs::create_directories(m_folder.scheduleDir(r.pipeline, batch), ec);
        for (const char *suffix : {".schedule.h", ".loop_nest.txt", ".sample"}) {
            if (std::string(suffix) == ".sample" && r.status != Status::Ok)
                continue;
            if (auto bytes = readTextFile(shard.scheduleFile(r.pipeline, batch, r.scheduleId, suffix)))
                replaceTextFile(m_folder.scheduleFile(r.pipeline, batch, r.scheduleId, suffix), *bytes);
        }
        replaceTextFile(m_folder.scheduleFile(r.pipeline, batch, r.scheduleId, ".json"), r.toJson().dump(2) + "\n");
        announce(r);
    }
}

void Run::writeRecordsTsv()
{
    std::vector<std::string> errors;
    std::string text = samples::recordTsvHeader() + "\n";
    for (const ScheduleRecord &r : m_folder.readRecords(&errors))
        text += samples::recordTsvLine(r) + "\n";
    replaceTextFile(m_folder.recordsTsv(), text);
}

void Run::runBatch(int batch)
{
    BatchSummary summary;
    summary.batch = batch;
    std::vector<std::unique_ptr<Candidate>> candidates;
    const auto searchStarted = Clock::now();
    if (!m_o.mergeFrom.empty()) {
        mergeShards(batch);
    } else {
        for (size_t p = 0; p < m_o.pipelines.size(); p++) {
            searchPipeline(batch, p, candidates);
            if (cancelled())
                return;
        }
    }
    summary.searchSeconds = secondsSince(searchStarted);
    compileAndMeasure(batch, candidates, summary);
    if (cancelled())
        return;
    writeRecordsTsv();
    for (const auto &[key, r] : m_done)
        if (r.batch == batch)
            summary.counts[statusName(r.status)]++;
    if (m_o.retrain) {
        retrain(batch, summary);
        if (cancelled())
            return;
    }
    summary.bestMs = m_bestMs;
    if (auto w = replaceTextFile(m_folder.batchDone(batch), summary.toJson().dump(2) + "\n"); !w.ok) {
        m_result.error = w.error;
        return;
    }
    std::string training = "batch\tretrained\ttraining_loss_before\ttraining_loss_after\tvalidation_loss_before\t"
                           "validation_loss_after\tseconds\tnote\n";
    for (int b = 0; b <= batch; b++) {
        const auto text = readTextFile(m_folder.batchDone(b));
        const JsonParseResult j = text ? parseJson(*text) : JsonParseResult{};
        if (!j.value)
            continue;
        const Json *t = j.value->find("training");
        if (!t)
            continue;
        auto num = [&](const char *k) {
            const Json *v = t->find(k);
            std::ostringstream s;
            s.precision(9);
            s << (v ? v->toNumber(NAN) : NAN);
            return s.str();
        };
        const Json *note = t->find("note");
        const Json *retrained = t->find("retrained");
        training += std::to_string(b) + "\t" + (retrained && retrained->toBool() ? "1" : "0") + "\t" +
                    num("training_loss_before") + "\t" + num("training_loss_after") + "\t" +
                    num("validation_loss_before") + "\t" + num("validation_loss_after") + "\t" + num("seconds") + "\t" +
                    (note ? note->toString() : std::string()) + "\n";
    }
    replaceTextFile(m_folder.trainingTsv(), training);
    m_result.batches.push_back(summary);
    if (m_events.onBatch)
        m_events.onBatch(summary);
}

AutotuneResult Run::run()
{
    if (m_o.pipelines.empty()) {
        m_result.error = "no pipelines to autotune";
        return m_result;
    }
    if (m_o.batchSize < 1 || m_o.batchSize > 9999 || m_o.batches < 1 || m_o.batches > 9999) {
        m_result.error = "batch size and number of batches: expected 1..9999";
        return m_result;
    }
    std::set<int32_t> taken;
    for (const PipelineSpec &p : m_o.pipelines) {
        if (m_ids.count(p.name)) {
            m_result.error = "pipeline '" + p.name + "' is named twice";
            return m_result;
        }
        int32_t id = pipelineIdFor(p.name);
        while (!taken.insert(id).second)
            id = id == 0x7fffffff ? 1 : id + 1;
        m_ids[p.name] = id;
    }
    if (std::string e = loadWeights(m_o.weightsPath); !e.empty()) {
        m_result.error = e;
        return m_result;
    }
    if (std::string e = openFolder(); !e.empty()) {
        m_result.error = e;
        return m_result;
    }
    countFinished();
    if (m_o.prepareOnly) {
        m_result.ok = true;
        return m_result;
    }
    for (int batch = 0; batch < m_o.batches; batch++) {
        if (m_o.onlyBatch >= 0 && batch != m_o.onlyBatch)
            continue;
        if (fs::exists(m_folder.batchDone(batch))) {
            m_result.batchesSkipped++;
            continue;
        }
        for (const auto &[key, r] : m_done)
            if (r.batch == batch)
                m_result.schedulesResumed++;
        // The batch searches with the weights the previous batches left.
        const RunFolder &weightsFolder = m_o.priorFolder.empty() ? m_folder : m_prior;
        const fs::path weights =
            fs::exists(weightsFolder.currentWeights()) ? weightsFolder.currentWeights() : m_o.weightsPath;
        if (std::string e = loadWeights(weights); !e.empty()) {
            m_result.error = e;
            return m_result;
        }
        runBatch(batch);
        if (!m_result.error.empty())
            return m_result;
        if (cancelled()) {
            m_result.cancelled = true;
            break;
        }
    }
    m_result.ok = true;
    return m_result;
}

} // namespace

AutotuneResult runAutotune(const AutotuneOptions &options, Progress *progress, const AutotuneEvents &events)
{
    Run run(options, progress, events);
    return run.run();
}

} // namespace beamscope::autotune
