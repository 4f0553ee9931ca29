#include "core/search/featurizer_internal.h"

#include <atomic>
#include <chrono>

namespace beamscope::search {

namespace featurizing {

// What a child reuses of its parent's featurization, the memo of stage
// features within a search depth, and the run over a whole state.
// Whether a stage of `f` reads, directly or through Funcs inlined or computed inside a kernel (whose
// reads the per-task loads look through), something the decision of `decided` may have changed:
// the decided Func, a Func not scheduled yet that it also reads or whose placement moved, or an
// input it also reads. decidedSiteKept: the decision retiled the Func where it was (its site as
// before), which changes no region its readers or the readers of its producers see.
bool Featurizer::readsChanged(const FuncSchedule &f, int decided, bool decidedSiteKept, const FuncSites &before) const
{
    const auto readBy = [&](int q, int reader) {
        const std::vector<int> &readers = d.consumers(q);
        return std::find(readers.begin(), readers.end(), reader) != readers.end();
    };
    std::vector<int> pending{f.node};
    std::vector<char> seen(static_cast<size_t>(d.nodeCount()), 0);
    seen[static_cast<size_t>(f.node)] = 1;
    while (!pending.empty()) {
        const int n = pending.back();
        pending.pop_back();
        for (const dag::Stage &stage : d.node(n).stages)
            for (int e : stage.incomingEdges) {
                const int q = d.edge(e).producer;
                if (q == decided && !decidedSiteKept)
                    return true;
                const FuncSchedule *g = st.scheduleOf(q);
                if (d.node(q).isInput || !g) {
                    if (!decidedSiteKept && readBy(q, decided))
                        return true;
                    if (!g && !d.node(q).isInput &&
                        !(placements[static_cast<size_t>(q)] == before.placements[static_cast<size_t>(q)]))
                        return true;
                    continue;
                }
                const bool lookThrough = g->location == ComputeLocation::Inlined ||
                                         (g->location != ComputeLocation::Root && !g->storedAtRoot);
                if (lookThrough && !seen[static_cast<size_t>(q)]) {
                    seen[static_cast<size_t>(q)] = 1;
                    pending.push_back(q);
                }
            }
    }
    return false;
}

bool Featurizer::readsInlined(int node, int stage) const
{
    for (int e : d.stage(node, stage).incomingEdges) {
        const FuncSchedule *g = st.scheduleOf(d.edge(e).producer);
        if (g && g->location == ComputeLocation::Inlined)
            return true;
    }
    return false;
}

std::optional<ScheduledSite> Featurizer::scheduledSite(int node) const
{
    const FuncSchedule *f = st.scheduleOf(node);
    if (!f)
        return std::nullopt;
    ScheduledSite s;
    s.location = f->location;
    s.storedAtRoot = f->storedAtRoot;
    s.insideSerialLoop = f->insideSerialLoop;
    s.consumer = f->consumer;
    s.consumerStage = f->consumerStage;
    s.vectorDim = f->stages.empty() ? -1 : d.vectorDim(node, 0, f->stages[0].vectorLoop);
    return s;
}

// By root Func: whether its kernel (its stages and the Funcs computed inside it) must be
// featurized anew in a child of the state `before` was placed for (computeFeatures).
std::vector<char> Featurizer::kernelsToRecompute(const FuncSites *before) const
{
    std::vector<char> dirty(static_cast<size_t>(d.nodeCount()), 1);
    if (!before || before->placements.size() != placements.size())
        return dirty;
    const int decided = st.funcs().back().node;
    const bool decidedSiteKept = before->scheduled[static_cast<size_t>(decided)] &&
                                 before->scheduled[static_cast<size_t>(decided)] == scheduledSite(decided);
    for (const FuncSchedule &f : st.funcs())
        if (f.location == ComputeLocation::Root)
            dirty[static_cast<size_t>(f.node)] = 0;
    for (const FuncSchedule &f : st.funcs()) {
        if (f.location == ComputeLocation::Inlined)
            continue;
        const int kernel = f.location == ComputeLocation::Root ? f.node : st.kernelOf(f.node).first;
        if (f.node == decided || readsChanged(f, decided, decidedSiteKept, *before))
            dirty[static_cast<size_t>(kernel)] = 1;
    }
    // Unscheduled Funcs placed at a kernel's block loop count in its shared memory occupancy (a
    // block with no entry has none placed there).
    const auto bytesIn = [](const std::map<std::pair<int, int>, int64_t> &placed, std::pair<int, int> stage) {
        const auto it = placed.find(stage);
        return it == placed.end() ? int64_t{0} : it->second;
    };
    for (const auto &[stage, bytes] : placedSharedBytes)
        if (bytesIn(before->sharedBytes, stage) != bytes)
            dirty[static_cast<size_t>(stage.first)] = 1;
    for (const auto &[stage, bytes] : before->sharedBytes)
        if (bytesIn(placedSharedBytes, stage) != bytes)
            dirty[static_cast<size_t>(stage.first)] = 1;
    return dirty;
}

// The parent's sites when this state differs from the parent only in the tiling of its last Func,
// computed at root in both (Halide's second step of a Func); else null.
const FuncSites *Featurizer::retilingParentSites(const Featurization &parent) const
{
    const FuncSites *before = parent.sites.get();
    if (!before || st.funcs().empty() || before->placements.size() != static_cast<size_t>(d.nodeCount()))
        return nullptr;
    const FuncSchedule &last = st.funcs().back();
    const std::optional<ScheduledSite> &was = before->scheduled[static_cast<size_t>(last.node)];
    const auto scheduledBefore = std::count_if(before->scheduled.begin(), before->scheduled.end(),
                                               [](const std::optional<ScheduledSite> &s) { return s.has_value(); });
    if (!was || was->location != ComputeLocation::Root || last.location != ComputeLocation::Root ||
        scheduledBefore != static_cast<std::ptrdiff_t>(st.numScheduled()))
        return nullptr;
    return before;
}

// The StageFeatureMemo's key for the stages of `f`, or empty where the memo does not apply. It
// applies to a Func computed at root with nothing computed inside it, none of whose producers
// (directly or further upstream) is scheduled. Then stageFeatures reads, besides the DAG:
//   * the Func's own schedule (its kernel is its stages alone: block shape, blocks, occupancy);
//   * the sites of the Funcs its stages read, which are inputs or unscheduled Funcs: their
//     placements (loop, memory, realizations, regions), made before the stages are featurized;
//   * what those placements added to its blocks' shared memory;
//   * the regions it needs of its producers (State::requiredAt), which follow its own loops alone:
//     a producer's other readers count there only when inlined, computed inside this Func or read
//     by it, and neither can hold of a Func downstream or beside it while everything upstream is
//     unscheduled.
// The placements of the Funcs further upstream are read by nothing but the placements above.
StageFeatureMemo::Key Featurizer::stageFeatureKey(const FuncSchedule &f) const
{
    StageFeatureMemo::Key key;
    if (f.location != ComputeLocation::Root)
        return key;
    for (const FuncSchedule &g : st.funcs()) {
        if (g.node == f.node)
            continue;
        const bool computedInF =
            g.location != ComputeLocation::Root && g.location != ComputeLocation::Inlined && g.consumer == f.node;
        if (computedInF || d.nodeReads(f.node, g.node))
            return key;
    }
    key.push_back(f.node);
    key.push_back(int64_t(f.storedAtRoot) | int64_t(f.insideSerialLoop) << 1);
    for (size_t s = 0; s < f.stages.size(); s++) {
        const StageTiling &t = f.stages[s];
        key.push_back(int64_t(t.threads.size()) | int64_t(t.serial.size()) << 16 | int64_t(t.vectorLoop) << 32 |
                      int64_t(t.hasVectorLoop) << 48 | int64_t(t.unrolled) << 49);
        key.insert(key.end(), t.threads.begin(), t.threads.end());
        key.insert(key.end(), t.serial.begin(), t.serial.end());
        const auto placed = placedSharedBytes.find({f.node, static_cast<int>(s)});
        key.push_back(placed == placedSharedBytes.end() ? 0 : placed->second);
    }
    const auto addRegion = [&](const Region &r) {
        key.push_back(static_cast<int64_t>(r.size()));
        for (const Span &span : r) {
            key.push_back(span.min);
            key.push_back(span.max);
        }
    };
    std::vector<char> seen(static_cast<size_t>(d.nodeCount()), 0);
    for (const dag::Stage &stage : d.node(f.node).stages)
        for (int e : stage.incomingEdges) {
            const int q = d.edge(e).producer;
            if (seen[static_cast<size_t>(q)] || d.node(q).isInput)
                continue;
            seen[static_cast<size_t>(q)] = 1;
            const std::optional<Placement> &p = placements[static_cast<size_t>(q)];
            key.push_back(q);
            key.push_back(p ? static_cast<int64_t>(p->loop.size()) : -1);
            if (!p)
                continue;
            for (const LoopLevel &l : p->loop)
                key.push_back(int64_t(l.node) | int64_t(l.stage) << 24 | int64_t(l.level) << 48);
            key.push_back(static_cast<int64_t>(p->memory));
            key.push_back(p->realizations);
            addRegion(p->required);
            addRegion(p->computed);
        }
    return key;
}

// The stages of `f` featurized through the search depth's memo: taken from it when another beam
// state featurized them in the same setting, else computed and kept there. False, with nothing
// done, where the memo does not apply.
bool Featurizer::memoizedStageFeatures(const FuncSchedule &f)
{
    StageFeatureMemo::Key key = stageFeatureKey(f);
    if (key.empty())
        return false;
    for (size_t s = 0; s < f.stages.size(); s++)
        if (!featOf(f.node, static_cast<int>(s)))
            return false;
    std::vector<ScheduleFeatures> known;
    const bool found = stageMemo->find(key, known);
    for (size_t s = 0; s < f.stages.size(); s++) {
        const size_t slot = static_cast<size_t>(d.stageSlot(f.node, static_cast<int>(s)));
        contexts[slot] = context(f, static_cast<int>(s)); // the inlined Funcs' pass reads it
        if (found)
            feats[slot] = known[s];
        else
            stageFeatures(contexts[slot], feats[slot]);
    }
    if (!found) {
        for (size_t s = 0; s < f.stages.size(); s++)
            known.push_back(feats[static_cast<size_t>(d.stageSlot(f.node, static_cast<int>(s)))]);
        stageMemo->add(std::move(key), std::move(known));
    }
    return true;
}

Featurization Featurizer::run(const Featurization *parent, bool keepSites)
{
    feats.assign(static_cast<size_t>(st.scheduledStageCount()), ScheduleFeatures());
    contexts.assign(feats.size(), StageCtx());
    placeUnscheduledFuncs(parent ? retilingParentSites(*parent) : nullptr);
    computePointsComputedMinimum();
    const std::vector<char> recompute =
        parent && !st.funcs().empty() ? kernelsToRecompute(parent->sites.get()) : std::vector<char>{};
    for (const FuncSchedule &f : st.funcs()) {
        if (f.location == ComputeLocation::Inlined) {
            // Inlined Funcs start from zero counts; their consumers add to them.
            if (ScheduleFeatures *ft = featOf(f.node, 0)) {
                *ft = ScheduleFeatures();
                (*ft)[Feature::NumScalars] = 0;
            }
            continue;
        }
        const int kernel = f.location == ComputeLocation::Root ? f.node : st.kernelOf(f.node).first;
        const bool reuse = !recompute.empty() && !recompute[static_cast<size_t>(kernel)];
        if (!reuse && stageMemo && memoizedStageFeatures(f))
            continue;
        for (size_t s = 0; s < f.stages.size(); s++)
            if (ScheduleFeatures *ft = featOf(f.node, static_cast<int>(s))) {
                const size_t slot = static_cast<size_t>(d.stageSlot(f.node, static_cast<int>(s)));
                StageCtx &c = contexts[slot];
                if (reuse && slot < parent->features.size()) {
                    *ft = parent->features[slot];
                    // The inlined Funcs' pass reads the contexts of the stages they are inlined into.
                    if (readsInlined(f.node, static_cast<int>(s)))
                        c = context(f, static_cast<int>(s));
                } else {
                    c = context(f, static_cast<int>(s));
                    stageFeatures(c, *ft);
                }
            }
    }
    inlinedFeatures();
    workingSets();
    for (size_t slot = 0; slot < feats.size(); slot++) {
        const dag::StageRef &r = d.costStages()[slot];
        feats[slot][Feature::PointsComputedMinimum] = double(pcm[slot]);
        const FuncSchedule *f = st.scheduleOf(r.node);
        if (f && f->location == ComputeLocation::Inlined) {
            double rootBytes = double(d.node(r.node).bytesPerPoint);
            for (const Span &s : d.rootComputed(r.node))
                rootBytes *= double(s.extent());
            feats[slot][Feature::BytesAtRoot] = rootBytes;
            // Halide measures an inlined Func's innermost storage extent along the vector dim of
            // its produce site (the last innermost loop it is inlined into, see inlinedFeatures);
            // a dim the Func does not have (or no dimensions at all) gives an extent of 1.
            const Region &rc = d.rootComputed(r.node);
            const auto site = inlinedSiteVectorDim.find(r.node);
            const int v = site == inlinedSiteVectorDim.end() ? 0 : site->second;
            const bool inRange = v >= 0 && v < static_cast<int>(rc.size());
            feats[slot][Feature::InnermostBytesAtRoot] =
                double(d.node(r.node).bytesPerPoint) * (inRange ? double(rc[static_cast<size_t>(v)].extent()) : 1.0);
        }
    }
    if (!keepSites)
        return Featurization{std::move(feats), nullptr};
    auto kept = std::make_shared<FuncSites>();
    kept->scheduled.resize(placements.size());
    for (const FuncSchedule &f : st.funcs())
        kept->scheduled[static_cast<size_t>(f.node)] = scheduledSite(f.node);
    kept->placements = std::move(placements);
    kept->sharedBytes = std::move(placedSharedBytes);
    return Featurization{std::move(feats), std::move(kept)};
}

} // namespace featurizing

using namespace featurizing;

namespace {

bool hasRootAwaitingGpuTiling(const State &state)
{
    return std::any_of(state.funcs().begin(), state.funcs().end(),
                       [](const FuncSchedule &f) { return f.awaitingGpuTiling; });
}

// Halide featurizes a state whose root Funcs are not all tiled yet on a copy of its loop nest in
// which each of them is split into blocks and threads (State::get_root_for_features).
State withUntiledRootsTiledForFeatures(const State &state)
{
    State copy(state.dag());
    for (FuncSchedule f : state.funcs()) {
        if (f.awaitingGpuTiling) {
            const dag::Node &node = state.dag().node(f.node);
            for (size_t s = 0; s < f.stages.size(); s++)
                f.stages[s] = untiledRootFeatureTiling(node.stages[s],
                                                       state.dag().rootLoops(f.node, static_cast<int>(s)), f.stages[s]);
            f.awaitingGpuTiling = false;
        }
        copy.add(std::move(f));
    }
    return copy;
}

} // namespace

std::vector<UnscheduledSite> unscheduledSites(const Featurization &featurization)
{
    std::vector<UnscheduledSite> out;
    if (!featurization.sites)
        return out;
    const std::vector<std::optional<Placement>> &placements = featurization.sites->placements;
    for (size_t n = 0; n < placements.size(); n++)
        if (placements[n])
            out.push_back({static_cast<int>(n), placements[n]->loop, placements[n]->realizations});
    return out;
}

std::vector<ScheduleFeatures> computeFeatures(const State &state, const FeatureParams &params)
{
    return computeFeatures(state, params, nullptr).features;
}

namespace {

bool checkingFeatureReuse()
{
    static const bool checking = std::getenv("BEAMSCOPE_CHECK_FEATURE_REUSE") != nullptr;
    return checking;
}

// Throws where the features a child took from its parent differ from its own, bit for bit.
void checkReuse(const State &state, const std::vector<ScheduleFeatures> &reused,
                const std::vector<ScheduleFeatures> &whole)
{
    const SearchDag &d = state.dag();
    for (size_t slot = 0; slot < whole.size(); slot++)
        for (size_t k = 0; k < whole[slot].values.size(); k++) {
            const double a = reused[slot].values[k], b = whole[slot].values[k];
            if (a == b || (std::isnan(a) && std::isnan(b)))
                continue;
            const dag::StageRef &r = d.costStages()[slot];
            throw std::logic_error("feature reuse: stage " + d.dag().stage(r).name + ", feature " + std::to_string(k) +
                                   ": taken from the parent " + std::to_string(a) + ", featurized whole " +
                                   std::to_string(b) +
                                   " (last Func decided: " + d.node(state.funcs().back().node).name + ")");
        }
}

} // namespace

namespace {

std::atomic<int64_t> featurizationCalls{0}, featurizationNanoseconds{0};

// Adds one featurization's time to the totals when it goes out of scope.
class FeaturizationTimer {
public:
    ~FeaturizationTimer()
    {
        const auto ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - m_start).count();
        featurizationNanoseconds.fetch_add(static_cast<int64_t>(ns), std::memory_order_relaxed);
        featurizationCalls.fetch_add(1, std::memory_order_relaxed);
    }

private:
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

} // namespace

FeaturizationTotals featurizationTotals()
{
    return {featurizationCalls.load(std::memory_order_relaxed),
            static_cast<double>(featurizationNanoseconds.load(std::memory_order_relaxed)) * 1e-9};
}

Featurization computeFeatures(const State &state, const FeatureParams &params, const Featurization *parent,
                              bool keepSites, StageFeatureMemo *memo)
{
    const FeaturizationTimer timer;
    std::optional<State> tiled;
    if (hasRootAwaitingGpuTiling(state))
        tiled = withUntiledRootsTiledForFeatures(state);
    const State &featurized = tiled ? *tiled : state;
    Featurization out = Featurizer(featurized, params, memo).run(parent, keepSites);
    if ((parent || memo) && checkingFeatureReuse())
        checkReuse(featurized, out.features, Featurizer(featurized, params).run().features);
    return out;
}

} // namespace beamscope::search
