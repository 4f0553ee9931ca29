#include "core/search/search_session.h"

#include "core/search/device_limits.h"

#include "core/gpu/device_facts.h"
#include "core/gpu/search_parameters.h"
#include "core/model/cost_formula.h"
#include "core/model/cost_model.h"
#include "core/pipelines/pipeline.h"
#include "core/bench/benchmark.h"
#include "core/bench/targets.h"
#include "core/schedule/apply_schedule.h"
#include "core/schedule/emit_source.h"
#include "core/search/autoschedule.h"
#include "core/search/search_dag.h"
#include "core/search/state_from_decisions.h"
#include "core/weights/weights.h"

#include <algorithm>
#include <stdexcept>

namespace beamscope::search {

namespace {

// Forwards reports and cancellation to the caller's Progress and, at each
// report, hands out the trace nodes recorded since the last one (see the header).
class BatchingProgress : public Progress {
public:
    BatchingProgress(Progress *inner, const SearchTrace &trace, const NodeBatchSink &sink)
        : m_inner(inner), m_trace(trace), m_sink(sink) {}

    void report(double fraction, std::string_view message) override {
        flush();
        if (m_inner)
            m_inner->report(fraction, message);
    }
    bool cancelled() const override { return m_inner && m_inner->cancelled(); }

    void flush() {
        const size_t size = m_trace.nodes().size();
        if (m_sink && size > m_delivered)
            m_sink(m_trace, m_delivered, size - m_delivered);
        m_delivered = size;
    }

private:
    Progress *m_inner;
    const SearchTrace &m_trace;
    const NodeBatchSink &m_sink;
    size_t m_delivered = 0;
};

std::optional<gpu::DeviceFacts> profileFacts(const std::string &profile, std::string *error) {
    if (profile == "local") {
        const gpu::LocalDeviceQuery q = gpu::queryLocalDevice();
        if (!q.device)
            *error = "profile local: " + q.status;
        return q.device;
    }
    auto facts = gpu::findProfile(profile);
    if (!facts) {
        std::string names;
        for (const std::string &n : gpu::profileNames())
            names += (names.empty() ? "" : ", ") + n;
        *error = "profile: unknown profile '" + profile + "' (expected local or one of " + names + ")";
    }
    return facts;
}

std::unique_ptr<model::CostModel> loadModel(const std::string &path, std::string *error) {
    if (path.empty()) {
        *error = "no weights chosen (Beamscope never falls back to random weights)";
        return nullptr;
    }
    auto loaded = weights::loadWeights(path);
    if (!loaded.ok()) {
        const auto *first = loaded.firstError();
        *error = first ? first->format() : path + ": cannot load weights";
        return nullptr;
    }
    try {
        return std::make_unique<model::CostModel>(*loaded.weights);
    } catch (const model::ModelError &e) {
        *error = path + ": " + e.what();
        return nullptr;
    }
}

} // namespace

SessionOutcome runSearchSession(const SessionOptions &options, Progress *progress, const NodeBatchSink &sink) {
    SessionOutcome out;
    AutoscheduleParams params;
    params.beamSize = options.beamSize;
    params.numPasses = options.passes;
    params.randomDropout = options.dropout;
    params.randomDropoutSeed = options.seed;
    params.disableSubtiling = options.disableSubtiling;
    params.randomizeTilings = options.randomizeTilings;
    params.freezeInlineComputeRoot = options.freezeInlineComputeRoot;
    params.traceCap = options.traceCap;
    params.startDecisions = options.startDecisions;
    if (params.beamSize < 1 || params.beamSize > 100000) {
        out.error = "beam size: expected 1..100000, found " + std::to_string(params.beamSize);
        return out;
    }
    if (params.randomDropout < 1 || params.randomDropout > 100) {
        out.error = "dropout: expected a percentage 1..100 of children kept, found " + std::to_string(params.randomDropout);
        return out;
    }
    if (!params.options.parse(options.searchSpaceOptions)) {
        out.error = "search space options: expected four 0/1 flags such as 1111, found '" + options.searchSpaceOptions + "'";
        return out;
    }
    const auto facts = profileFacts(options.profile, &out.error);
    if (!facts)
        return out;
    params.device = featureParamsFor(*facts);

    std::unique_ptr<model::CostModel> model = loadModel(options.weightsPath, &out.error);
    if (!model)
        return out;
    const auto info = pipelines::findPipeline(options.app);
    if (!info) {
        out.error = "app: unknown pipeline '" + options.app + "' (see 'beamscope-cli apps')";
        return out;
    }
    out.trace = SearchTrace(params.traceCap);
    try {
        pipelines::PipelineInstance instance = info->build();
        BatchingProgress batching(progress, out.trace, sink);
        AutoscheduleOutcome r = autoschedule(instance.name, instance.outputs, *model, params, &out.trace, &batching);
        out.trace.params["profile"] = facts->name;
        out.trace.params["weights"] = options.weightsPath;
        batching.flush();
        out.cancelled = r.result.cancelled;
        out.stageNames = r.stageNames;
        out.stageCosts = r.result.stageCosts;
        out.predictedCost = r.result.cost;
        if (r.result.best)
            out.bestLoopNest = r.result.best->dump();
        out.ok = true;
    } catch (const Halide::Error &e) {
        out.error = std::string("Halide: ") + e.what();
    } catch (const std::exception &e) {
        out.error = e.what();
    }
    return out;
}

namespace {

// A recorded state rebuilt on a fresh build of its pipeline (the State refers
// to the DAGs, so they live together).
struct RebuiltState {
    pipelines::PipelineInstance instance;
    std::unique_ptr<dag::FunctionDAG> dag;
    std::unique_ptr<SearchDag> searchDag;
    std::optional<State> state;
};

// Throws std::invalid_argument with the field at fault.
std::unique_ptr<RebuiltState> rebuildState(const std::string &pipeline, const std::vector<Json> &decisions) {
    const auto info = pipelines::findPipeline(pipeline);
    if (!info)
        throw std::invalid_argument("pipeline '" + pipeline + "' is not in the registry, so its Funcs cannot be rebuilt");
    auto r = std::make_unique<RebuiltState>();
    r->instance = info->build();
    r->dag = std::make_unique<dag::FunctionDAG>(r->instance.outputs);
    r->searchDag = std::make_unique<SearchDag>(*r->dag);
    State &state = r->state.emplace(stateFromDecisions(*r->searchDag, decisions, pipeline));
    const SearchDag &searchDag = *r->searchDag;
    if (!state.complete())
        throw std::invalid_argument("the state is partial (" + std::to_string(state.numScheduled()) + " of " +
                                    std::to_string(searchDag.scheduleOrder().size()) +
                                    " Funcs scheduled); only complete states have a schedule");
    return r;
}

} // namespace

std::optional<std::string> emitStateSource(const std::string &pipeline, const std::vector<Json> &decisions,
                                           const std::vector<float> &stageCosts, double totalCost, std::string *error) {
    try {
        const std::unique_ptr<RebuiltState> r = rebuildState(pipeline, decisions);
        schedule::EmitOptions options;
        options.pipeline = pipeline;
        options.stageCosts = stageCosts.empty() ? nullptr : &stageCosts;
        options.totalCost = totalCost;
        return schedule::emitSource(*r->state, r->instance.outputs, options);
    } catch (const Halide::Error &e) {
        if (error)
            *error = std::string("Halide: ") + e.what();
    } catch (const std::exception &e) {
        if (error)
            *error = e.what();
    }
    return std::nullopt;
}

StateMeasurement measureState(const std::string &pipeline, const std::vector<Json> &decisions,
                              const std::string &target, Progress *progress) {
    StateMeasurement m;
    const auto kind = bench::parseTargetKind(target);
    if (!kind) {
        m.error = "target: expected host, opencl or cuda, found '" + target + "'";
        return m;
    }
    if (*kind == bench::TargetKind::Host) {
        m.error = "the states are GPU schedules (gpu_blocks / gpu_threads): measure on opencl or cuda";
        return m;
    }
    try {
        std::shared_ptr<RebuiltState> r = rebuildState(pipeline, decisions);
        const auto info = pipelines::findPipeline(pipeline);
        bench::BenchRequest request;
        request.build = info->build;
        // The bench builds fresh Funcs; the plan takes their names (unnamed
        // Funcs get other automatic names per build) from that build's DAG.
        request.schedule = bench::Schedule::custom("searched state", [r](pipelines::PipelineInstance &inst,
                                                                         const Halide::Target &) {
            const dag::FunctionDAG names(inst.outputs);
            schedule::applyPlan(schedule::planSchedule(*r->state, &names), schedule::funcsByName(inst.outputs));
        });
        request.target = bench::benchTarget(*kind, gpu::queryLocalDevice());
        m.target = request.target.to_string();
        bench::RunOptions run;
        run.reps = 5;
        const bench::Measurement result = bench::benchmark(request, bench::CompileOptions{}, run, progress);
        m.ok = result.ok;
        m.error = result.message;
        m.medianMs = result.medianMs;
        m.minMs = result.minMs;
        m.checked = result.checked;
        m.matches = result.matches;
    } catch (const Halide::Error &e) {
        m.error = std::string("Halide: ") + e.what();
    } catch (const std::exception &e) {
        m.error = e.what();
    }
    return m;
}

std::vector<SessionApp> sessionApps() {
    std::vector<SessionApp> apps;
    for (const pipelines::PipelineInfo &p : pipelines::builtinPipelines())
        apps.push_back({p.name, p.description, pipelines::originName(p.origin)});
    return apps;
}

std::vector<std::string> sessionProfiles() {
    std::vector<std::string> names = gpu::profileNames();
    names.push_back("local");
    return names;
}

struct BreakdownContext::Impl {
    std::unique_ptr<model::CostModel> model;
    std::vector<float> pipelineFeatures; // [S][40][7]
    std::vector<std::string> stageNames;
};

BreakdownContext::~BreakdownContext() = default;

std::unique_ptr<BreakdownContext> BreakdownContext::create(const std::string &pipeline, const std::string &weightsPath,
                                                           std::string *error) {
    std::string why;
    auto impl = std::make_unique<Impl>();
    impl->model = loadModel(weightsPath, &why);
    if (!impl->model) {
        if (error)
            *error = why;
        return nullptr;
    }
    const auto info = pipelines::findPipeline(pipeline);
    if (!info) {
        if (error)
            *error = "pipeline '" + pipeline + "' is not in the registry, so its pipeline features are unknown";
        return nullptr;
    }
    try {
        pipelines::PipelineInstance instance = info->build();
        dag::FunctionDAG dag(instance.outputs);
        SearchDag searchDag(dag);
        impl->pipelineFeatures = searchDag.pipelineFeatures();
        for (const dag::StageRef &r : searchDag.costStages())
            impl->stageNames.push_back(dag.stage(r).name);
    } catch (const std::exception &e) {
        if (error)
            *error = pipeline + ": " + e.what();
        return nullptr;
    }
    std::unique_ptr<BreakdownContext> c(new BreakdownContext);
    c->m_impl = std::move(impl);
    c->m_pipeline = pipeline;
    c->m_weightsPath = weightsPath;
    return c;
}

std::vector<std::string> BreakdownContext::termNames() {
    std::vector<std::string> names;
    for (int t = 0; t < model::kCostTermCount; t++)
        names.push_back(model::costTermName(static_cast<model::CostTerm>(t)));
    return names;
}

std::vector<std::string> BreakdownContext::termGroups() {
    std::vector<std::string> groups;
    for (int t = 0; t < model::kCostTermCount; t++)
        groups.push_back(model::costTermGroup(static_cast<model::CostTerm>(t)));
    return groups;
}

std::vector<StageTerms> BreakdownContext::breakdown(const std::vector<std::array<float, 73>> &features,
                                                    int numCores) const {
    const int stages = std::min<int>(static_cast<int>(features.size()), static_cast<int>(m_impl->stageNames.size()));
    if (stages == 0)
        return {};
    // Each stage's embedding depends only on that stage, so a prefix of the
    // pipeline features embeds a partial state's stages.
    const std::span<const float> pf(m_impl->pipelineFeatures.data(),
                                    static_cast<size_t>(stages) * model::kPipelineFeaturesPerStage);
    const model::PipelineEmbedding embedding = m_impl->model->embedPipeline(pf, stages);
    std::vector<float> packed;
    for (int s = 0; s < stages; s++)
        packed.insert(packed.end(), features[static_cast<size_t>(s)].begin(), features[static_cast<size_t>(s)].end());
    const std::vector<model::StageBreakdown> b = m_impl->model->breakdown(embedding, packed, numCores);
    std::vector<StageTerms> out;
    for (int s = 0; s < stages; s++) {
        StageTerms t;
        t.stage = m_impl->stageNames[static_cast<size_t>(s)];
        t.stageCost = b[static_cast<size_t>(s)].stageCost;
        for (float v : b[static_cast<size_t>(s)].terms)
            t.terms.push_back(v * model::kCostUnit);
        out.push_back(std::move(t));
    }
    return out;
}

} // namespace beamscope::search
