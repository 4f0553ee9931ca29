#include "core/autotune/device_study.h"

#include "core/autotune/autotune.h"
#include "core/autotune/measure_pick.h"
#include "core/model/cost_model_file.h"
#include "core/pipelines/pipeline.h"
#include "core/samples/prediction.h"
#include "core/samples/retrain.h"
#include "core/samples/run_folder.h"
#include "core/study/loop_figures.h"
#include "core/study/study_plots.h"
#include "core/util/atomic_file.h"
#include "core/util/progress.h"
#include "core/weights/shipped_weights.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>

namespace beamscope::autotune {

namespace fs = std::filesystem;

namespace {

using study::AppResult;
using study::LoopBatch;
using study::PickResult;
using study::RankFigures;
using study::StudyReport;

// Reports a stage's own fraction as its share [from, to] of the whole study.
class StageProgress : public Progress {
public:
    StageProgress(Progress *parent, double from, double to, std::string prefix)
        : m_parent(parent), m_from(from), m_to(to), m_prefix(std::move(prefix))
    {}
    void report(double fraction, std::string_view message) override
    {
        if (m_parent)
            m_parent->report(m_from + (m_to - m_from) * std::clamp(fraction, 0.0, 1.0),
                             m_prefix + std::string(message));
    }
    bool cancelled() const override { return m_parent && m_parent->cancelled(); }

private:
    Progress *m_parent;
    double m_from, m_to;
    std::string m_prefix;
};

// The study's own bar: its fraction with a time estimate from the time so far.
class EstimatingProgress : public Progress {
public:
    explicit EstimatingProgress(Progress *parent) : m_parent(parent) {}
    void report(double fraction, std::string_view message) override
    {
        if (!m_parent)
            return;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        std::string text(message);
        if (fraction > 0.01 && elapsed > 30) {
            const double left = elapsed * (1 - fraction) / fraction;
            char buf[64];
            std::snprintf(buf, sizeof buf, " (about %.0f min left)", std::ceil(left / 60));
            text += buf;
        }
        m_parent->report(fraction, text);
    }
    bool cancelled() const override { return m_parent && m_parent->cancelled(); }

private:
    Progress *m_parent;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

fs::path loopFolder(const DeviceStudyOptions &o, const std::string &app) { return o.outDir / "loop" / app; }
fs::path randomFolder(const DeviceStudyOptions &o) { return o.outDir / "random"; }
fs::path tunedWeights(const DeviceStudyOptions &o, const std::string &app)
{
    return o.outDir / "tuned" / (app + ".weights");
}
fs::path picksFile(const DeviceStudyOptions &o, const std::string &app) { return o.outDir / "picks" / (app + ".json"); }

AutotuneRequest baseRequest(const DeviceStudyOptions &o)
{
    AutotuneRequest r;
    r.target = o.target;
    r.profile = o.profile;
    r.batchSize = o.batchSize;
    r.seed = o.seed;
    r.jobs = o.jobs;
    r.compileTimeoutSeconds = o.compileTimeoutSeconds;
    r.benchTimeoutSeconds = o.benchTimeoutSeconds;
    r.reps = o.sampleReps;
    r.warmup = 1;
    r.scale = o.scale;
    r.cacheDir = o.cacheDir;
    r.learningRate = o.learningRate;
    r.minBatch = o.minBatch;
    return r;
}

AutotuneRequest loopRequest(const DeviceStudyOptions &o, const std::string &app)
{
    AutotuneRequest r = baseRequest(o);
    r.outDir = loopFolder(o, app).string();
    r.apps = {app};
    r.weights = app; // Halide's hold-one-out file for the app
    r.batches = o.batches;
    r.retrain = true;
    r.epochs = o.loopEpochs;
    return r;
}

AutotuneRequest randomRequest(const DeviceStudyOptions &o)
{
    AutotuneRequest r = baseRequest(o);
    r.outDir = randomFolder(o).string();
    r.randomPipelines = o.randomPipelines;
    r.randomStages = o.randomStages;
    r.weights = "gpu";
    r.batches = 1;
    r.retrain = false;
    return r;
}

// The shipped file of that name, resolved as the CLI resolves --weights.
fs::path shippedFile(const std::string &name, std::string &error)
{
    return weights::resolveWeightsArgument(name, std::nullopt, error);
}

// A weights file's figures on every schedule measured for the app.
RankFigures fileOnSamples(const fs::path &weightsFile, const samples::Dataset &dataset, int numCores,
                          std::string &error)
{
    std::unique_ptr<model::CostModel> model = model::loadCostModel(weightsFile, error);
    if (!model)
        return {};
    std::vector<double> predicted, measured;
    for (const samples::PipelineSet &p : dataset.pipelines) {
        const samples::PipelinePredictions pp = samples::predictPipeline(*model, p, numCores);
        for (size_t i = 0; i < p.schedules.size(); i++) {
            predicted.push_back(pp.predictions[i]);
            measured.push_back(p.schedules[i].bestRuntimeMs());
        }
    }
    return study::rankFigures(predicted, measured);
}

class Study {
public:
    Study(const DeviceStudyOptions &o, Progress *progress, const std::function<void(const std::string &)> &log)
        : m_o(o), m_progress(progress), m_log(log)
    {}
    DeviceStudyResult run();

private:
    bool checkParameters(std::string &error);
    bool runLoops(double from, double to, std::string &error);
    void fineTune(const std::string &app, AppResult &result, Progress *progress);
    void measurePicks(const std::string &app, AppResult &result, Progress *progress);
    void readLoop(const std::string &app, AppResult &result);
    void writeReport(StudyReport &report);
    void say(const std::string &line) const
    {
        if (m_log)
            m_log(line);
    }
    bool cancelled() const { return m_progress && m_progress->cancelled(); }

    DeviceStudyOptions m_o;
    Progress *m_progress;
    const std::function<void(const std::string &)> &m_log;
    int m_numCores = 80;
    PickOptions m_pick;
    std::time_t m_started = std::time(nullptr); // study.json's, once checkParameters read it
    samples::LoadedSamples m_samples;           // every loop's and the random pipelines', for the fine-tunes
};

bool Study::checkParameters(std::string &error)
{
    const fs::path file = m_o.outDir / "study.json";
    const Json wanted = studyParameters(m_o);
    if (const std::optional<std::string> text = readTextFile(file)) {
        const JsonParseResult parsed = parseJson(*text);
        if (!parsed.value) {
            error = file.string() + ": " + parsed.error;
            return false;
        }
        const Json *had = parsed.value->find("parameters");
        if (!had) {
            error = file.string() + ": field 'parameters' is missing";
            return false;
        }
        // Studies written before "started" was kept count from this run's start.
        if (const Json *started = parsed.value->find("started"))
            m_started = static_cast<std::time_t>(started->toInt());
        for (const auto &[key, value] : wanted.members()) {
            const Json *old = had->find(key);
            if (!old || old->dump() != value.dump()) {
                error = file.string() + ": the study there was run with " + key + " = " +
                        (old ? old->dump() : "nothing") + ", this run asks for " + value.dump() +
                        "; use another --out folder or the same parameters";
                return false;
            }
        }
        return true;
    }
    Json study = Json::object();
    study["format"] = "beamscope-device-study-parameters";
    study["parameters"] = wanted;
    study["started"] = static_cast<int64_t>(m_started);
    const WriteResult w = replaceTextFile(file, study.dump(2) + "\n");
    if (!w.ok)
        error = w.error;
    return w.ok;
}

bool Study::runLoops(double from, double to, std::string &error)
{
    // The work of this task: every app and the random pipelines, dealt round-robin over the shards.
    std::vector<AutotuneRequest> requests;
    for (const std::string &app : m_o.apps)
        requests.push_back(loopRequest(m_o, app));
    if (m_o.randomPipelines > 0)
        requests.push_back(randomRequest(m_o));
    std::vector<AutotuneRequest> mine;
    for (size_t i = 0; i < requests.size(); i++)
        if (static_cast<int>(i % static_cast<size_t>(m_o.shardCount)) == m_o.shardIndex)
            mine.push_back(requests[i]);
    for (size_t i = 0; i < mine.size(); i++) {
        const AutotuneRequest &r = mine[i];
        const std::string what = r.apps.empty() ? "random pipelines" : r.apps.front();
        const double a = from + (to - from) * double(i) / double(mine.size());
        const double b = from + (to - from) * double(i + 1) / double(mine.size());
        StageProgress stage(m_progress, a, b, "samples of " + what + ": ");
        AutotuneEvents events;
        const AutotuneResult result = runAutotune(r, &stage, events);
        if (result.cancelled)
            return false;
        if (!result.ok) {
            error = what + ": " + result.error;
            return false;
        }
        say("samples of " + what + ": done (" + std::to_string(result.records.size()) + " schedule(s) this run)");
    }
    return true;
}

void Study::fineTune(const std::string &app, AppResult &result, Progress *progress)
{
    const fs::path output = tunedWeights(m_o, app);
    result.tuned.weights = fs::relative(output, m_o.outDir).string();
    // The training set: every other app's loop and the random pipelines (m_samples); A's own
    // loop is there too, but only as the held-out validation set, never trained on.
    const samples::LoadedSamples &loaded = m_samples;
    if (!loaded.ok()) {
        result.tuned.error = "fine-tune: " + loaded.errors.front();
        return;
    }
    const samples::Split held = samples::holdOutApp(loaded.dataset, app);
    result.fineTuneSchedules = 0;
    for (const samples::PipelineSet &p : held.training)
        result.fineTuneSchedules += p.schedules.size();
    if (fs::exists(output))
        return;
    std::string error;
    const fs::path start = shippedFile(app, error);
    std::optional<weights::Weights> initial = start.empty() ? std::nullopt : samples::loadStartingWeights(start, error);
    if (!initial) {
        result.tuned.error = "fine-tune: " + error;
        return;
    }
    samples::RetrainSettings settings;
    settings.training.epochs = m_o.fineTuneEpochs;
    settings.training.learningRate = m_o.learningRate;
    settings.training.seed = static_cast<uint32_t>(m_o.seed);
    settings.training.numCores = m_numCores;
    settings.training.batches.minSize = static_cast<size_t>(m_o.minBatch);
    settings.training.resume = true;
    // An app none of whose schedules ran here (every one hung, say) has nothing to hold out:
    // the training set is still every other pipeline, and Halide's split picks the validation set.
    const bool appHasSamples = !held.validation.empty();
    if (appHasSamples)
        settings.holdOut = app;
    settings.output = output;
    const samples::PlanResult plan = samples::planRetrain(loaded.dataset, settings);
    if (!plan.plan) {
        result.tuned.error = "fine-tune: " + plan.refusal->message;
        return;
    }
    say("fine-tuning " + app + ".weights: " + plan.plan->describe() +
        (appHasSamples ? "" : " (no sample of " + app + " ran here: validation by Halide's split of the others)"));
    const samples::RetrainResult trained = samples::runRetrainPlan(*plan.plan, *initial, progress);
    if (!trained.ok && !trained.cancelled)
        result.tuned.error = "fine-tune: " + trained.error;
}

void Study::measurePicks(const std::string &app, AppResult &result, Progress *progress)
{
    const fs::path file = picksFile(m_o, app);
    if (const std::optional<std::string> text = readTextFile(file)) {
        const JsonParseResult parsed = parseJson(*text);
        std::string error;
        if (parsed.value)
            if (const std::optional<AppResult> read = AppResult::fromJson(*parsed.value, error)) {
                result.v100 = read->v100;
                result.tuned = read->tuned;
                return;
            }
    }
    std::string error;
    const fs::path v100File = shippedFile(app, error);
    result.v100.weights = app + ".weights (Halide's, V100)";
    if (v100File.empty()) {
        result.v100.error = error;
        return;
    }
    if (!result.tuned.error.empty())
        return; // the fine-tune failed; nothing to compare with
    progress->report(0.0, "searching with Halide's file");
    const CompiledPick v100 = compilePick(app, v100File, m_pick);
    if (progress->cancelled())
        return;
    progress->report(0.25, "searching with the fine-tuned file");
    const CompiledPick tuned = compilePick(app, tunedWeights(m_o, app), m_pick);
    result.v100.predictedCost = v100.predictedCost;
    result.v100.searchSeconds = v100.searchSeconds;
    result.tuned.predictedCost = tuned.predictedCost;
    result.tuned.searchSeconds = tuned.searchSeconds;
    if (!v100.ok)
        result.v100.error = v100.error;
    if (!tuned.ok)
        result.tuned.error = tuned.error;
    // Interleaved: V100, tuned, V100, tuned, ... so that drift in the device's speed falls on both.
    for (int round = 0; round < m_o.pickRounds && (v100.ok || tuned.ok); round++) {
        if (progress->cancelled())
            return;
        progress->report(0.5 + 0.5 * double(round) / double(m_o.pickRounds),
                         "round " + std::to_string(round + 1) + " of " + std::to_string(m_o.pickRounds));
        for (const auto &[pick, out] : {std::pair{&v100, &result.v100}, {&tuned, &result.tuned}}) {
            if (!pick->ok || !out->error.empty())
                continue;
            bench::RunOptions run = m_pick.run;
            run.seed = static_cast<uint64_t>(round) + 1;
            const bench::Measurement m = bench::measure(pick->library, nullptr, run);
            if (!m.ok) {
                // A measurement's message may start with its class already ("timeout: the worker ran past ...").
                const std::string kind = bench::failureName(m.failure);
                out->error = m.message.rfind(kind + ":", 0) == 0 ? m.message : kind + ": " + m.message;
            } else
                out->roundsMs.push_back(m.minMs);
        }
    }
    for (PickResult *p : {&result.v100, &result.tuned})
        p->runtime = study::medianWithInterval(p->roundsMs);
    // Only a finished measurement is kept: a killed one is measured again.
    const WriteResult w = replaceTextFile(file, result.toJson().dump(2) + "\n");
    if (!w.ok)
        say("cannot write " + file.string() + ": " + w.error);
}

void Study::readLoop(const std::string &app, AppResult &result)
{
    result.loop = study::loopBatches(samples::RunFolder(loopFolder(m_o, app)).readRecords());
    if (!result.loop.empty())
        result.loopBestMs = result.loop.back().bestSoFarMs;

    // Neither Halide's file nor the fine-tuned one was trained on these schedules.
    samples::LoadedSamples loaded = samples::loadSamples({loopFolder(m_o, app)});
    if (loaded.ok()) {
        std::string error;
        const fs::path v100File = shippedFile(app, error);
        if (!v100File.empty())
            result.v100Ranks = fileOnSamples(v100File, loaded.dataset, m_numCores, error);
        if (fs::exists(tunedWeights(m_o, app)))
            result.tunedRanks = fileOnSamples(tunedWeights(m_o, app), loaded.dataset, m_numCores, error);
    }
}

void Study::writeReport(StudyReport &report)
{
    // Every generated schedule: the loops' and the random pipelines'.
    std::vector<fs::path> folders;
    for (const std::string &app : m_o.apps)
        folders.push_back(loopFolder(m_o, app));
    if (m_o.randomPipelines > 0)
        folders.push_back(randomFolder(m_o));
    for (const fs::path &f : folders)
        for (const samples::ScheduleRecord &r : samples::RunFolder(f).readRecords()) {
            report.scheduleCounts[samples::statusName(r.status)]++;
            if (r.status != samples::Status::Ok && r.status != samples::Status::Duplicate)
                report.failures.push_back({r.pipeline, r.batch, r.index, samples::statusName(r.status), r.message});
        }
    study::summarize(report);
    const fs::path plots = m_o.outDir / "plots";
    const std::vector<std::pair<std::string, std::string>> svgs = {
        {"picks", study::picksSvg(report)}, {"ranks", study::ranksSvg(report)}, {"loop", study::loopSvg(report)}};
    for (const auto &[name, svg] : svgs) {
        replaceTextFile(plots / (name + ".svg"), svg);
        if (m_o.renderPng && !m_o.renderPng(svg, plots / (name + ".png")))
            say("could not render plots/" + name + ".png");
    }
    replaceTextFile(m_o.outDir / "report.json", report.toJson().dump(2) + "\n");
    replaceTextFile(m_o.outDir / "report.md", study::reportMarkdown(report));
}

DeviceStudyResult Study::run()
{
    DeviceStudyResult out;
    if (m_o.apps.empty())
        m_o.apps = studyAppsDefault();
    for (const std::string &app : m_o.apps) {
        std::string error;
        if (shippedFile(app, error).empty() || !pipelines::findPipeline(app)) {
            out.error = "--app " + app + ": not one of Halide's apps with a hold-one-out weights file (" +
                        "beamscope-cli apps lists them)";
            return out;
        }
    }
    std::error_code ec;
    fs::create_directories(m_o.outDir, ec);
    if (ec) {
        out.error = m_o.outDir.string() + ": " + ec.message();
        return out;
    }
    if (!checkParameters(out.error))
        return out;

    // The device and the search's limits, as the loops see them.
    std::string error;
    std::optional<AutotuneOptions> resolved = optionsFor(loopRequest(m_o, m_o.apps.front()), error);
    if (!resolved) {
        out.error = error;
        return out;
    }
    m_numCores = resolved->device.smCount > 0 ? resolved->device.smCount : 80;
    m_pick.target = resolved->target;
    m_pick.device = resolved->device;
    m_pick.cudaCapability = resolved->cudaCapability;
    m_pick.beamSize = 32;
    m_pick.compileTimeoutSeconds = m_o.compileTimeoutSeconds;
    m_pick.run = resolved->run;
    m_pick.run.reps = m_o.pickReps;
    m_pick.run.warmup = 1;
    m_pick.cacheDir = resolved->cacheDir;

    const bool sharded = m_o.shardCount > 1;
    if (!runLoops(0.0, sharded ? 1.0 : 0.6, out.error)) {
        out.cancelled = cancelled();
        return out;
    }
    if (sharded) {
        out.ok = true;
        out.shardOnly = true;
        return out;
    }

    StudyReport &report = out.report;
    report.parameters = studyParameters(m_o);
    report.command = m_o.command;
    const Json target = describeTarget(*resolved);
    if (const Json *opencl = target.find("opencl"); opencl && opencl->find("device"))
        report.device = "OpenCL: " + opencl->find("device")->toString();
    else if (const Json *name = target.find("name"))
        report.device = "CUDA: " + name->toString();
    else
        report.device = target.find("kind") ? target.find("kind")->toString() : "unknown";
    // Every sample the loops measured, read once for all the fine-tunes.
    std::vector<fs::path> roots;
    for (const std::string &app : m_o.apps)
        roots.push_back(loopFolder(m_o, app));
    if (m_o.randomPipelines > 0)
        roots.push_back(randomFolder(m_o));
    m_samples = samples::loadSamples(roots);
    const size_t n = m_o.apps.size();
    for (size_t i = 0; i < n; i++) {
        const std::string &app = m_o.apps[i];
        AppResult result;
        result.app = app;
        StageProgress tune(m_progress, 0.6 + 0.4 * double(i) / double(n), 0.6 + 0.4 * (double(i) + 0.3) / double(n),
                           app + ": fine-tune: ");
        fineTune(app, result, &tune);
        if (cancelled())
            break;
        StageProgress picks(m_progress, 0.6 + 0.4 * (double(i) + 0.3) / double(n),
                            0.6 + 0.4 * (double(i) + 1) / double(n), app + ": picks: ");
        measurePicks(app, result, &picks);
        if (cancelled())
            break;
        readLoop(app, result);
        say(app + ": V100 pick " + std::to_string(result.v100.runtime.medianMs) + " ms, fine-tuned pick " +
            std::to_string(result.tuned.runtime.medianMs) + " ms" +
            (result.v100.error.empty() ? "" : "; V100: " + result.v100.error) +
            (result.tuned.error.empty() ? "" : "; fine-tuned: " + result.tuned.error));
        report.apps.push_back(std::move(result));
    }
    if (cancelled()) {
        out.cancelled = true;
        return out;
    }
    // Since the study began (study.json's "started"): a resumed study counts the time between its runs too.
    report.wallSeconds = static_cast<double>(std::time(nullptr) - m_started);
    writeReport(report);
    out.ok = true;
    return out;
}

} // namespace

std::vector<std::string> studyAppsDefault()
{
    std::vector<std::string> apps;
    for (const pipelines::PipelineInfo &p : pipelines::builtinPipelines())
        if (p.origin == pipelines::Origin::App)
            apps.push_back(p.name);
    return apps;
}

Json studyParameters(const DeviceStudyOptions &o)
{
    Json p = Json::object();
    Json apps = Json::array();
    for (const std::string &a : o.apps.empty() ? studyAppsDefault() : o.apps)
        apps.push(a);
    p["apps"] = apps;
    p["random_pipelines"] = o.randomPipelines;
    p["random_stages"] = o.randomStages;
    p["batches"] = o.batches;
    p["batch_size"] = o.batchSize;
    p["loop_epochs"] = o.loopEpochs;
    p["fine_tune_epochs"] = o.fineTuneEpochs;
    p["learning_rate"] = static_cast<double>(o.learningRate);
    p["min_batch"] = o.minBatch;
    p["pick_rounds"] = o.pickRounds;
    p["pick_reps"] = o.pickReps;
    p["sample_reps"] = o.sampleReps;
    p["scale"] = o.scale;
    p["target"] = o.target;
    p["profile"] = o.profile;
    p["seed"] = o.seed;
    return p;
}

DeviceStudyResult runDeviceStudy(const DeviceStudyOptions &options, Progress *progress,
                                 const std::function<void(const std::string &)> &log)
{
    SilentProgress silent;
    EstimatingProgress estimating(progress ? progress : &silent);
    Study study(options, &estimating, log);
    return study.run();
}

} // namespace beamscope::autotune
