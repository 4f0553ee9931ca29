#pragma once
// The featurizer's own types, shared by its files (featurizer*.cpp), one per
// family of features: placing the Funcs not scheduled yet, a stage's compute,
// footprint, loads and occupancy, its GPU memory accesses, the inlined Funcs
// and working sets, and the run that ties them together (featurizer.cpp).
// Private to core/search: nothing else includes it.

#include "core/search/featurizer.h"

#include "core/search/dump_constancy.h"
#include "core/search/integer_math.h"

#include "core/search/expr_branching.h"
#include "core/search/gpu_memory_features.h"
#include "core/search/stage_feature_memo.h"
#include "core/search/thread_info.h"
#include "core/search/tiling.h"
#include "core/util/hash_words.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace beamscope::search {

namespace featurizing {

using namespace Halide;
using namespace Halide::Internal;

// Where a producer's values live, as a consumer sees them.
struct Site {
    MemoryType memory = MemoryType::Global;
    int vectorDim = -1; // dense storage dim, -1 when not yet known
    bool scheduled = false;
    bool nestedIn = false; // realized inside the consumer's loops
    // An unscheduled Func placed inside a kernel (Featurizer::placeUnscheduledFuncs): realized once
    // per iteration of that loop, `realizations` times, each realization the region `required`
    // (computed: `computed`); `atThreadLoop` when that loop is a thread loop (else a serial one).
    bool placedInKernel = false;
    bool atThreadLoop = false;
    int64_t realizations = 1;
    Region required, computed;
};

// Where Halide places a Func not scheduled yet, as its consumers see it.
struct Placement {
    LoopPath loop;
    MemoryType memory = MemoryType::Global;
    int64_t realizations = 1;
    Region required, computed;
    // How it was found: the loop its consumers meet at (none when no consumer is placed), and the
    // bytes it added to that block's shared memory when it went to a block loop. A child that only
    // retiled a Func off this path places it the same way (Featurizer::placeUnscheduledFuncs).
    std::optional<LoopPath> consumersMeet;
    int64_t sharedBytesAdded = 0;
};

inline bool operator==(const Placement &a, const Placement &b)
{
    return a.loop == b.loop && a.memory == b.memory && a.realizations == b.realizations && a.required == b.required &&
           a.computed == b.computed;
}

struct StageCtx {
    int node = 0, stage = 0;
    const FuncSchedule *f = nullptr;
    const StageTiling *t = nullptr;
    Region loops;
    int64_t instances = 1;
    int64_t perProduction = 1;
    int64_t serialTotal = 1;
    // The serial iterations of a thread around this stage's realization: the consumer's serial loop
    // for a Func computed inside it, else 1 (Halide's total_inner_serial_extents_outside_realization).
    int64_t serialAroundRealization = 1;
    // Points one GPU thread computes of this stage (Halide's total_serial_extents).
    int64_t threadSerialTotal = 1;
    int64_t blocks = 1;
    int kernelNode = 0, kernelStage = 0;
    ThreadInfo thread;
    int vectorDim = 0;
    int funcVectorDim = 0; // the Func's dense storage dim (Halide's vector_dim, the same for every stage)
    int threadOwnerNode = 0, threadOwnerStage = 0; // the stage whose gpu_thread loop this stage runs in
};

} // namespace featurizing

// What a reader of a scheduled Func sees of its schedule: where it is computed and stored, and its
// storage's vector dim. A Func's tiling at root changes nothing else its readers' features take.
struct ScheduledSite {
    ComputeLocation location = ComputeLocation::Root;
    bool storedAtRoot = false, insideSerialLoop = false;
    int consumer = -1, consumerStage = -1, vectorDim = 0;
    bool operator==(const ScheduledSite &) const = default;
};

// Regions an unscheduled Func needs per iteration of a loop (Featurizer::requiredPerIteration), by
// the Func, the loop's stage and level, and that loop's bounds. Within the children of one state
// that retile its last Func, nothing else they depend on differs, so siblings share them: the tilings
// of a Func mostly repeat the same block and thread tiles. Siblings may be featurized on several
// threads.
class SiblingRegions {
public:
    using Key = std::array<int64_t, 16>;
    std::optional<Region> find(const Key &key) const
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_regions.find(key);
        return it == m_regions.end() ? std::nullopt : std::optional<Region>(it->second);
    }
    void add(const Key &key, const Region &r)
    {
        std::lock_guard lock(m_mutex);
        m_regions.emplace(key, r);
    }

private:
    struct Hash {
        size_t operator()(const Key &k) const { return hashWords(k); }
    };
    mutable std::mutex m_mutex;
    std::unordered_map<Key, Region, Hash> m_regions;
};

struct FuncSites {
    std::vector<std::optional<featurizing::Placement>> placements; // by node: the Funcs not scheduled
    std::map<std::pair<int, int>, int64_t> sharedBytes;  // (node, stage) of a block loop -> bytes placed there
    std::vector<std::optional<ScheduledSite>> scheduled; // by node: the scheduled Funcs
    mutable SiblingRegions siblingRegions;               // shared by the children that retile
};

namespace featurizing {

class Featurizer {
public:
    Featurizer(const State &s, const FeatureParams &p, StageFeatureMemo *memo = nullptr)
        : st(s), d(s.dag()), params(p), stageMemo(memo), dumpConstancy(s)
    {}

    // parent: the featurization of the state this one was made from by deciding its last Func, or null.
    // keepSites: also return the FuncSites (for a state whose children will be featurized).
    Featurization run(const Featurization *parent = nullptr, bool keepSites = false);

private:
    const State &st;
    const SearchDag &d;
    const FeatureParams &params;
    StageFeatureMemo *stageMemo;         // the search depth's, or null
    mutable DumpConstancy dumpConstancy; // which loop extents are constants (unrolled_loop_extent)
    std::vector<ScheduleFeatures> feats; // by cost-model slot (scheduled prefix)
    std::vector<int64_t> pcm;            // points_computed_minimum per slot (all stages)
    std::vector<StageCtx> contexts;      // per scheduled slot, shared by the per-stage and inlined passes
    mutable std::unordered_map<std::string, int> inlinedBranching; // per state: Func name -> branching
    std::vector<std::optional<Placement>> placements;              // by node: unscheduled Funcs
    std::map<std::pair<int, int>, int64_t> placedSharedBytes;      // (node, stage) of a block loop -> bytes
                                                                   // of the unscheduled Funcs placed there
    std::map<int, int> inlinedSiteVectorDim; // inlined Func -> vector dim of its last innermost loop
    // requiredPerIteration by (node, loop): placing the unscheduled Funcs asks for the same regions
    // again and again, each through the same chain of unscheduled consumers.
    mutable std::unordered_map<uint64_t, Region> requiredMemo;
    // The parent's, when this state only retiled the parent's last Func (which has no Func computed
    // inside it), else null.
    SiblingRegions *siblingRegions = nullptr;
    mutable State::RequiredMemo requiredAtMemo; // State::requiredAt on this (unchanged) state

    ScheduleFeatures *featOf(int node, int stage)
    {
        const int slot = d.stageSlot(node, stage);
        return slot >= 0 && slot < static_cast<int>(feats.size()) ? &feats[static_cast<size_t>(slot)] : nullptr;
    }
    Site siteOf(int producer, int consumerNode) const;
    void innermostsInlinedInto(int inlinedNode, std::vector<LoopPath> &out) const;
    Region requiredPerIteration(int node, const LoopPath &loop) const;
    Region computedPerIteration(int node, const LoopPath &loop) const;
    int64_t iterationsOf(const LoopPath &loop) const;
    LoopPath deepestValidLocation(int node, const LoopPath &loop, int64_t &sharedBytesAdded);
    void placeUnscheduledFuncs(const FuncSites *before);
    StageCtx context(const FuncSchedule &f, int stage) const;
    // The non-inlined Funcs and inputs a stage reads, directly or through inlined Funcs, each once.
    void collectProducersRead(int node, int stage, std::vector<int> &out) const;
    int branching(int node, const std::vector<int> &inlined);
    std::vector<int> inlinedInto(int node, int stage) const;
    std::string branchingKey(int node, const std::vector<int> &inlined) const;
    void memoryFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    int64_t pointsAccessedPerThread(const StageCtx &c, const ScheduleFeatures &feat, std::span<const int> chain,
                                    const RationalJacobian &thread, const RationalJacobian &serial, bool scheduled,
                                    int innermostDim, MemoryType memory) const;
    SmallVector<int64_t, 6> storeSiteExtents(int node) const;
    bool loopsHaveConstantExtent(const StageCtx &c) const;
    void computePointsComputedMinimum();
    struct StageBytes {
        double bytes = 0, innermostBytes = 0;
    };
    void stageFeatures(const StageCtx &c, ScheduleFeatures &feat);
    StageFeatureMemo::Key stageFeatureKey(const FuncSchedule &f) const;
    bool memoizedStageFeatures(const FuncSchedule &f);
    void pointFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    void parallelismFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    StageBytes footprintFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    void loadFeatures(const StageCtx &c, const StageBytes &own, ScheduleFeatures &feat) const;
    void taskLoadFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    void occupancyFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    void inlinedFeatures();
    void workingSets();
    bool readsChanged(const FuncSchedule &f, int decided, bool decidedSiteKept, const FuncSites &before) const;
    std::optional<ScheduledSite> scheduledSite(int node) const;
    bool readsInlined(int node, int stage) const;
    std::vector<char> kernelsToRecompute(const FuncSites *before) const;
    const FuncSites *retilingParentSites(const Featurization &parent) const;
};

} // namespace featurizing

} // namespace beamscope::search
