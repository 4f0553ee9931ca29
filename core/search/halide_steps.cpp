#include "core/search/halide_steps.h"

#include "core/search/halide_placements.h"
#include "core/search/halide_root_tilings.h"
#include "core/search/thread_info.h"
#include "core/search/tiling.h"

#include <memory>
#include <mutex>
#include <optional>

namespace beamscope::search {

namespace {

Decision decisionFor(const SearchDag &dag, const FuncSchedule &f, const StepOptions &options)
{
    Decision d;
    d.node = f.node;
    d.location = f.location;
    d.consumer = f.consumer;
    if (options.describeDecisions)
        d.text = describe(dag, f);
    return d;
}

StepChild passThrough(const State &parent, int node, const char *why)
{
    StepChild c;
    c.passThrough = true;
    c.decision.node = node;
    c.decision.text = parent.dag().node(node).name + ": " + why;
    return c;
}

// Phase 0 of a Func with a fixed decision: that decision, whole (tiled where it is at root).
std::vector<StepChild> fixedChild(const State &parent, const AutoscheduleParams &params, const StepOptions &options,
                                  const Featurization *parentFeaturization)
{
    std::vector<StepChild> out;
    State s = parent;
    s.add(*options.fixed);
    if (!s.legalityProblem(kMaxThreadsPerBlock, params.device.sharedMemoryLimitBytes, params.device.activeWarpLimit)
             .empty())
        return out;
    // A fixed decision is costed even where Halide's search would have rejected it before the
    // model (the user's start state; a Func the pre-pass froze in another context): only an
    // illegal one falls back to the Func's normal children.
    std::vector<float> rows;
    packFeatures(computeFeatures(s, params.device, parentFeaturization).features, rows);
    out.push_back(
        StepChild{*options.fixed, false, std::move(rows), decisionFor(parent.dag(), *options.fixed, options), false});
    return out;
}

std::vector<StepChild> placements(const State &parent, const AutoscheduleParams &params, const StepOptions &options,
                                  const Featurization *parentFeaturization)
{
    if (options.fixed) {
        std::vector<StepChild> fixed = fixedChild(parent, params, options, parentFeaturization);
        if (!fixed.empty() || options.fixedIsStrict)
            return fixed;
    }
    Phase0Children p = halidePlacements(parent, params, parentFeaturization, options.stageFeatureMemo);
    std::vector<StepChild> out;
    for (size_t i = 0; i < p.children.size(); i++) {
        const FuncSchedule &f = p.children[i].funcs().back();
        // The pre-pass decides only between inlining and computing at root.
        if (options.prePass && f.location != ComputeLocation::Inlined && f.location != ComputeLocation::Root)
            continue;
        Decision d = decisionFor(parent.dag(), f, options);
        std::vector<float> rows;
        packFeatures(p.features[i].features, rows);
        std::vector<ScheduleFeatures>().swap(p.features[i].features);
        out.push_back(StepChild{f, false, std::move(rows), std::move(d), false});
    }
    return out;
}

std::vector<StepChild> rootTilings(const State &parent, const AutoscheduleParams &params, const StepOptions &options,
                                   const Featurization *parentFeaturization)
{
    const SearchDag &d = parent.dag();
    const FuncSchedule &placed = parent.funcs().back();
    std::optional<RootTilingCandidates> own;
    RootTilingCandidates &memo =
        options.rootTilingCandidates ? *options.rootTilingCandidates : own.emplace(params.device.parallelism);
    const std::vector<RootTilingCandidate> &candidates = memo.of(d, placed.node);
    // Only this candidate's slot is written, so candidates may be judged on several threads. Each
    // thread judges its candidates on a copy of the parent of its own, retiled in place, rather
    // than on a fresh copy of the whole state per candidate.
    std::vector<std::optional<StepChild>> made(candidates.size());
    std::mutex scratchLock;
    std::vector<std::unique_ptr<State>> scratch;
    acceptRootTilings(candidates, options.threads, [&](size_t i) {
        std::unique_ptr<State> s;
        {
            std::lock_guard lock(scratchLock);
            if (!scratch.empty()) {
                s = std::move(scratch.back());
                scratch.pop_back();
            }
        }
        if (!s)
            s = std::make_unique<State>(parent);
        FuncSchedule f = placed;
        f.awaitingGpuTiling = false;
        f.stages = candidates[i].tiling;
        s->replaceLast(f);
        if (std::optional<Featurization> features =
                featuresIfCosted(*s, params, parentFeaturization, options.stageFeatureMemo)) {
            std::vector<float> rows;
            packFeatures(features->features, rows);
            Decision decision = decisionFor(d, f, options);
            made[i] = StepChild{std::move(f), true, std::move(rows), std::move(decision), false};
        }
        std::lock_guard lock(scratchLock);
        scratch.push_back(std::move(s));
        return made[i].has_value();
    });
    std::vector<StepChild> out;
    for (std::optional<StepChild> &c : made)
        if (c)
            out.push_back(std::move(*c));
    if (options.maxRootTilings > 0)
        out = subsample(std::move(out), options.maxRootTilings);
    return out;
}

} // namespace

State stateWithDecision(const State &parent, const std::optional<FuncSchedule> &decided, bool retiled)
{
    State s = parent;
    if (decided) {
        if (retiled)
            s.replaceLast(*decided);
        else
            s.add(*decided);
    }
    return s;
}

std::vector<StepChild> halideStepChildren(const State &parent, int decisionsMade, const AutoscheduleParams &params,
                                          const StepOptions &options, const Featurization *parentFeaturization)
{
    const SearchDag &d = parent.dag();
    const int node = halideStepNode(decisionsMade);
    if (node >= d.nodeCount())
        return {};
    const dag::Node &n = d.node(node);
    if (n.isInput)
        return {passThrough(parent, node, "an input, nothing to decide")};
    if (halideStepPhase(decisionsMade) == 0)
        return placements(parent, params, options, parentFeaturization);
    const FuncSchedule *f = parent.scheduleOf(node);
    // Halide tiles a Func in its second step only when it was computed at root and has loops to
    // spread over the GPU (a zero-dimensional Func stays one untiled point).
    if (!f || !f->awaitingGpuTiling || n.regionRequired.empty() || params.device.parallelism <= 1)
        return {passThrough(parent, node, "nothing to tile")};
    return rootTilings(parent, params, options, parentFeaturization);
}

} // namespace beamscope::search
