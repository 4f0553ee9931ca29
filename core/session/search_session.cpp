#include "core/session/search_session.h"

#include "core/util/halide_names.h"

#include "core/util/sha256.h"

#include "core/bench/benchmark.h"
#include "core/bench/targets.h"
#include "core/gpu/device_facts.h"
#include "core/gpu/search_parameters.h"
#include "core/model/cost_formula.h"
#include "core/model/cost_model.h"
#include "core/model/cost_model_file.h"
#include "core/pipelines/generator_library.h"
#include "core/pipelines/pipeline.h"
#include "core/schedule/apply_schedule.h"
#include "core/schedule/emit_source.h"
#include "core/search/autoschedule.h"
#include "core/search/beam_search.h"
#include "core/search/device_limits.h"
#include "core/search/featurizer.h"
#include "core/search/search_dag.h"
#include "core/search/state_from_decisions.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace beamscope::session {

namespace {

// Forwards reports and cancellation to the caller's Progress and, at each
// report, hands out the trace nodes recorded since the last one (see the header).
class BatchingProgress : public Progress {
public:
    BatchingProgress(Progress *inner, const search::SearchTrace &trace, const NodeBatchSink &sink)
        : m_inner(inner), m_trace(trace), m_sink(sink)
    {}

    void report(double fraction, std::string_view message) override
    {
        flush();
        if (m_inner)
            m_inner->report(fraction, message);
    }
    bool cancelled() const override { return m_inner && m_inner->cancelled(); }

    void flush()
    {
        const size_t size = m_trace.nodes().size();
        if (m_sink && size > m_delivered)
            m_sink(m_trace, m_delivered, size - m_delivered);
        m_delivered = size;
    }

private:
    Progress *m_inner;
    const search::SearchTrace &m_trace;
    const NodeBatchSink &m_sink;
    size_t m_delivered = 0;
};

std::string range(int64_t lo, int64_t hi, int64_t found)
{
    return "expected " + std::to_string(lo) + ".." + std::to_string(hi) + ", found " + std::to_string(found);
}

// The pipeline's build step, kept so measure() can build fresh Funcs.
std::function<pipelines::PipelineInstance()> builderFor(const PipelineChoice &choice, std::string *error)
{
    if (!choice.app.empty()) {
        const auto info = pipelines::findPipeline(choice.app);
        if (!info) {
            *error = "app: unknown pipeline '" + choice.app +
                     "' (expected a name from 'beamscope-cli apps' or random_<seed>_<stages>)";
            return {};
        }
        return info->build;
    }
    const std::map<std::string, std::string> params(choice.generatorParams.begin(), choice.generatorParams.end());
    return [library = choice.generatorLibrary, name = choice.generatorName, params] {
        return pipelines::buildGenerator(library, name, params);
    };
}

// Runs `body`, turning the exceptions of the Halide side into an error text.
template <typename Body>
bool guarded(std::string *error, Body &&body)
{
    try {
        body();
        return true;
    } catch (const Halide::Error &e) {
        *error = std::string("Halide: ") + e.what();
    } catch (const std::exception &e) {
        *error = e.what();
    }
    return false;
}

} // namespace

std::optional<RequestProblem> checkRequest(const SearchRequest &r)
{
    const bool app = !r.pipeline.app.empty(), library = !r.pipeline.generatorLibrary.empty();
    if (app == library)
        return RequestProblem{"app", "give exactly one of an app or a generator library"};
    if (library && r.pipeline.generatorName.empty())
        return RequestProblem{"name", "a generator library needs the generator's name"};
    if (r.beamSize < 1 || r.beamSize > 100000)
        return RequestProblem{"beam", range(1, 100000, r.beamSize)};
    if (r.passes < 0 || r.passes > 100)
        return RequestProblem{"passes", range(0, 100, r.passes)};
    if (r.dropout < 1 || r.dropout > 100)
        return RequestProblem{"dropout",
                              "expected a percentage 1..100 of children kept, found " + std::to_string(r.dropout)};
    if (search::SearchOptions o; !o.parse(r.searchSpaceOptions))
        return RequestProblem{"options", "expected four 0/1 flags such as 1111, found '" + r.searchSpaceOptions + "'"};
    if (!r.startDecisions.empty() && !r.partialSchedule.empty())
        return RequestProblem{"partial-schedule",
                              "a search continues from a trace's state or from a loop nest, not both"};
    return std::nullopt;
}

struct SearchSession::Impl {
    SearchRequest request;
    std::string profileName;
    search::AutoscheduleParams params;
    std::unique_ptr<model::CostModel> model;
    std::function<pipelines::PipelineInstance()> build;
    // Declared in this order so that the DAGs, which refer to the Funcs, go first.
    pipelines::PipelineInstance instance;
    std::unique_ptr<dag::FunctionDAG> dag;
    std::unique_ptr<search::SearchDag> searchDag;
    std::vector<std::string> stageNames;

    // A recorded state on this session's DAG; throws std::invalid_argument.
    search::State completeState(const std::vector<Json> &decisions) const
    {
        search::State state = search::stateFromDecisions(*searchDag, decisions, instance.name);
        if (!state.complete())
            throw std::invalid_argument("the state is partial (" + std::to_string(state.numScheduled()) + " of " +
                                        std::to_string(searchDag->scheduleOrder().size()) +
                                        " Funcs scheduled); only complete states have a schedule");
        return state;
    }
};

SearchSession::SearchSession() : m_impl(std::make_unique<Impl>()) {}
SearchSession::~SearchSession() = default;

std::unique_ptr<SearchSession> SearchSession::open(const SearchRequest &request, std::string *error)
{
    std::string why;
    if (const auto problem = checkRequest(request)) {
        *error = problem->option + ": " + problem->message;
        return nullptr;
    }
    std::unique_ptr<SearchSession> session(new SearchSession);
    Impl &s = *session->m_impl;
    s.request = request;
    const auto facts = gpu::resolveProfile(request.profile, why);
    if (!facts) {
        *error = "profile " + why;
        return nullptr;
    }
    s.profileName = facts->name;

    search::AutoscheduleParams &p = s.params;
    p.beamSize = request.beamSize;
    p.numPasses = request.passes;
    p.randomDropout = request.dropout;
    p.randomDropoutSeed = request.seed;
    p.disableSubtiling = request.disableSubtiling;
    p.randomizeTilings = request.randomizeTilings;
    p.halideSteps = !request.perFuncSteps;
    p.threads = request.threads;
    p.freezeInlineComputeRoot = request.freezeInlineComputeRoot;
    p.traceCap = request.traceCap;
    p.startDecisions = request.startDecisions;
    p.options.parse(request.searchSpaceOptions);
    p.device = search::featureParamsFor(*facts);

    s.model = model::loadCostModel(request.weightsPath, why);
    if (!s.model) {
        *error = why;
        return nullptr;
    }
    s.build = builderFor(request.pipeline, error);
    if (!s.build)
        return nullptr;
    const bool built = guarded(error, [&] {
        s.instance = s.build();
        s.dag = std::make_unique<dag::FunctionDAG>(s.instance.outputs);
        s.searchDag = std::make_unique<search::SearchDag>(*s.dag);
        std::vector<std::string> funcs;
        for (const dag::Node &n : s.dag->nodes)
            funcs.push_back(n.name);
        const FuncNames shown(funcs);
        for (const dag::StageRef &r : s.searchDag->costStages())
            s.stageNames.push_back(shown.rewrite(s.dag->stage(r).name));
        if (!request.partialSchedule.empty()) {
            try {
                p.startDecisions = search::partialScheduleDecisions(*s.searchDag, request.partialSchedule);
            } catch (const std::invalid_argument &e) {
                throw std::invalid_argument(std::string("partial schedule: ") + e.what());
            }
        }
    });
    if (!built)
        return nullptr;
    return session;
}

const SearchRequest &SearchSession::request() const { return m_impl->request; }
const std::string &SearchSession::pipelineName() const { return m_impl->instance.name; }
const std::vector<std::string> &SearchSession::stageNames() const { return m_impl->stageNames; }
const std::string &SearchSession::profileName() const { return m_impl->profileName; }
int SearchSession::passes() const { return m_impl->params.passes(); }

PipelineChoice pipelineChoiceOf(const search::SearchTrace &trace)
{
    PipelineChoice choice;
    if (trace.params.generator.empty()) {
        choice.app = trace.pipeline;
        return choice;
    }
    choice.generatorLibrary = trace.params.generatorLibrary;
    choice.generatorName = trace.params.generator;
    for (const auto &[k, v] : trace.params.generatorParams)
        choice.generatorParams.emplace_back(k, v);
    return choice;
}

SearchOutcome SearchSession::run(Progress *progress, const NodeBatchSink &sink)
{
    Impl &s = *m_impl;
    SearchOutcome out;
    out.trace = search::SearchTrace(s.params.traceCap);
    search::SearchTrace *trace = s.request.recordTrace ? &out.trace : nullptr;
    if (trace)
        trace->pipeline = s.instance.name;
    std::string failure;
    out.ok = guarded(&out.error, [&] {
        BatchingProgress batching(progress, out.trace, sink);
        search::BeamSearch search(*s.searchDag, *s.model, s.params);
        search::SearchResult r = search.run(trace, &batching);
        out.trace.params.profile = s.profileName;
        out.trace.params.weights = s.request.weightsPath;
        out.trace.params.weightsSha256 = sha256FileHex(s.request.weightsPath).value_or("");
        // A generator's trace names where it came from, so the explorer can build it again.
        const PipelineChoice &choice = s.request.pipeline;
        if (!choice.generatorLibrary.empty()) {
            out.trace.params.generator = choice.generatorName;
            out.trace.params.generatorLibrary =
                std::filesystem::absolute(choice.generatorLibrary).lexically_normal().string();
            for (const auto &[k, v] : choice.generatorParams)
                out.trace.params.generatorParams[k] = v;
        }
        batching.flush();
        out.cancelled = r.cancelled;
        out.predictedCost = r.cost;
        out.stageCosts = r.stageCosts;
        out.passCosts = r.passCosts;
        out.statesEvaluated = r.statesEvaluated;
        out.statesAdded = r.statesAdded;
        out.searchSeconds = r.searchSeconds;
        out.startDepth = r.startDepth;
        out.frozen = r.frozen;
        out.prePassCost = r.prePassCost;
        if (r.best) {
            out.bestLoopNest = r.best->dump();
            schedule::EmitOptions emit;
            emit.pipeline = s.instance.name;
            emit.stageCosts = &r.stageCosts;
            emit.totalCost = r.cost;
            out.bestSource = schedule::emitSource(*r.best, s.instance.outputs, emit);
        } else if (!r.cancelled) {
            failure = r.failure.empty() ? "the search found no complete schedule" : r.failure;
        }
    });
    // Never a result of cost 0: a search without a schedule is a failure that says where it stopped.
    if (out.ok && !failure.empty()) {
        out.ok = false;
        out.error = s.instance.name + ": no complete schedule: " + failure;
    }
    return out;
}

std::optional<std::string> SearchSession::emit(const std::vector<Json> &decisions, const std::vector<float> &stageCosts,
                                               double totalCost, std::string *error) const
{
    std::string source, why;
    const bool ok = guarded(&why, [&] {
        const search::State state = m_impl->completeState(decisions);
        schedule::EmitOptions options;
        options.pipeline = m_impl->instance.name;
        options.stageCosts = stageCosts.empty() ? nullptr : &stageCosts;
        options.totalCost = totalCost;
        source = schedule::emitSource(state, m_impl->instance.outputs, options);
    });
    if (!ok) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    return source;
}

std::optional<std::string> SearchSession::halideLoopNest(const std::vector<Json> &decisions, std::string *error) const
{
    std::string dump, why;
    const bool ok = guarded(&why, [&] {
        dump = search::stateFromDecisions(*m_impl->searchDag, decisions, m_impl->instance.name).halideLoopNest();
    });
    if (!ok) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    return dump;
}

std::optional<ReplayedState> SearchSession::replay(const std::vector<Json> &decisions, std::string *error) const
{
    ReplayedState out;
    std::string why;
    const bool ok = guarded(&why, [&] {
        const search::State state = search::stateFromDecisions(*m_impl->searchDag, decisions, m_impl->instance.name);
        out.loopNest = state.dump();
        const std::vector<search::ScheduleFeatures> features = search::computeFeatures(state, m_impl->params.device);
        std::vector<float> packed;
        search::packFeatures(features, packed);
        for (size_t s = 0; s < features.size(); s++) {
            std::array<float, 73> row{};
            std::copy_n(packed.begin() + static_cast<std::ptrdiff_t>(s * row.size()), row.size(), row.begin());
            out.features.push_back(row);
        }
        for (const StageTerms &t : breakdown(out.features, m_impl->params.device.parallelism))
            out.stageCosts.push_back(t.stageCost);
    });
    if (!ok) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    return out;
}

StateMeasurement SearchSession::measure(const std::vector<Json> &decisions, const std::string &target,
                                        Progress *progress) const
{
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
    guarded(&m.error, [&] {
        auto state = std::make_shared<const search::State>(m_impl->completeState(decisions));
        bench::BenchRequest request;
        request.build = m_impl->build;
        request.schedule = bench::Schedule::custom(
            "searched state", [state](pipelines::PipelineInstance &inst, const Halide::Target &) {
                const dag::FunctionDAG names(inst.outputs);
                schedule::applyPlan(schedule::planSchedule(*state, &names), schedule::funcsByName(inst.outputs));
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
    });
    return m;
}

std::vector<StageTerms> SearchSession::breakdown(const std::vector<std::array<float, 73>> &features, int numCores) const
{
    const Impl &s = *m_impl;
    const int stages = std::min<int>(static_cast<int>(features.size()), static_cast<int>(s.stageNames.size()));
    if (stages == 0)
        return {};
    // A partial state's stages embed from the whole pipeline's features (CostModel::embedPipeline).
    const model::PipelineEmbedding embedding = s.model->embedPipeline(s.searchDag->pipelineFeatures(), stages);
    std::vector<float> packed;
    for (int i = 0; i < stages; i++)
        packed.insert(packed.end(), features[static_cast<size_t>(i)].begin(), features[static_cast<size_t>(i)].end());
    const std::vector<model::StageBreakdown> b = s.model->breakdown(embedding, packed, numCores);
    std::vector<StageTerms> out;
    for (int i = 0; i < stages; i++) {
        StageTerms t;
        t.stage = s.stageNames[static_cast<size_t>(i)];
        t.stageCost = b[static_cast<size_t>(i)].stageCost;
        for (float v : b[static_cast<size_t>(i)].terms)
            t.terms.push_back(v * model::kCostUnit);
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<std::string> SearchSession::termNames()
{
    std::vector<std::string> names;
    for (int t = 0; t < model::kCostTermCount; t++)
        names.push_back(model::costTermName(static_cast<model::CostTerm>(t)));
    return names;
}

std::vector<std::string> SearchSession::termGroups()
{
    std::vector<std::string> groups;
    for (int t = 0; t < model::kCostTermCount; t++)
        groups.push_back(model::costTermGroup(static_cast<model::CostTerm>(t)));
    return groups;
}

std::vector<AppChoice> builtinApps()
{
    std::vector<AppChoice> apps;
    for (const pipelines::PipelineInfo &p : pipelines::builtinPipelines())
        apps.push_back({p.name, p.description, pipelines::originName(p.origin)});
    return apps;
}

std::vector<std::string> profileChoices()
{
    std::vector<std::string> names = gpu::profileNames();
    names.push_back("local");
    return names;
}

} // namespace beamscope::session
