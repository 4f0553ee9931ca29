#include "core/search/featurizer.h"

#include "core/search/thread_info.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace beamscope::search {

using namespace Halide;
using namespace Halide::Internal;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; }

int64_t volume(const Region &r) {
    int64_t v = 1;
    for (const Span &s : r)
        v *= s.extent();
    return v;
}

// A load Jacobian with real entries ([producer dim][consumer loop]); NaN = unknown.
struct Jacobian {
    std::vector<std::vector<double>> m;
    int64_t count = 1;
    bool columnIsZero(size_t j) const {
        for (const auto &row : m)
            if (j < row.size() && !(row[j] == 0))
                return false;
        return true;
    }
};

Jacobian fromDag(const dag::LoadJacobian &j) {
    Jacobian out;
    out.count = j.count;
    for (const auto &row : j.matrix) {
        std::vector<double> r;
        for (const dag::JacobianEntry &e : row)
            r.push_back(e.known ? double(e.numerator) / double(e.denominator) : std::nan(""));
        out.m.push_back(std::move(r));
    }
    return out;
}

// Where a producer's values live, as a consumer sees them.
struct Site {
    MemoryType memory = MemoryType::Global;
    int vectorDim = -1;   // dense storage dim, -1 when not yet known
    bool scheduled = false;
    bool nestedIn = false; // realized inside the consumer's loops
};

struct Access {
    int producer = 0;
    Jacobian jac;
};

struct StageCtx {
    int node = 0, stage = 0;
    const FuncSchedule *f = nullptr;
    const StageTiling *t = nullptr;
    Region loops;
    int64_t instances = 1;
    int64_t perProduction = 1;
    int64_t serialTotal = 1;
    int64_t blocks = 1;
    int kernelNode = 0, kernelStage = 0;
    ThreadInfo thread;
    int vectorDim = 0;
};

struct MemCount {
    double transactions = 0, used = 0, moved = 0;
    double efficiency() const { return moved <= 0 ? 1.0 : std::min(1.0, used / moved); }
};

// Transactions of one warp-wide access: the first warp's active threads, each
// at loop offsets thread_coord * serial tile, mapped to producer storage.
void countWarpAccess(MemoryType mem, const ThreadInfo &ti, const StageTiling &t, const Jacobian &jac,
                     const Region &storage, int bytesPerPoint, double instructionsPerThread, MemCount &out) {
    if (mem == MemoryType::Register)
        return;
    std::vector<int64_t> stride(storage.size(), 1);
    for (size_t i = 1; i < storage.size(); i++)
        stride[i] = stride[i - 1] * std::max<int64_t>(1, storage[i - 1].extent());
    // At most one warp: fixed arrays, sorted to count distinct values.
    int64_t addresses[kWarpSize], units[kWarpSize];
    std::pair<int64_t, int64_t> bankWords[kWarpSize];
    bool unknown = false;
    int active = 0;
    int id = 0;
    for (int z = 0; z < ti.inBlock[2] && id < kWarpSize; z++)
        for (int y = 0; y < ti.inBlock[1] && id < kWarpSize; y++)
            for (int x = 0; x < ti.inBlock[0] && id < kWarpSize; x++, id++) {
                if (!(x < ti.threads[0] && y < ti.threads[1] && z < ti.threads[2]))
                    continue;
                const int coord[3] = {x, y, z};
                int64_t address = 0;
                for (size_t i = 0; i < jac.m.size() && i < storage.size(); i++) {
                    double delta = 0;
                    for (size_t dd = 0; dd < ti.loopIndices.size() && dd < 3; dd++) {
                        const size_t j = static_cast<size_t>(ti.loopIndices[dd]);
                        if (j >= jac.m[i].size() || j >= t.serial.size())
                            continue;
                        const double c = jac.m[i][j];
                        if (std::isnan(c)) {
                            if (coord[dd] != 0)
                                unknown = true;
                            continue;
                        }
                        delta += c * double(coord[dd]) * double(t.serial[j]);
                    }
                    address += static_cast<int64_t>(std::floor(delta)) * stride[i];
                }
                addresses[active] = address;
                const int64_t byte = address * bytesPerPoint;
                units[active] = byte >= 0 ? byte / 32 : (byte - 31) / 32;
                const int64_t word = byte >= 0 ? byte / 4 : (byte - 3) / 4;
                bankWords[active] = {((word % 32) + 32) % 32, word};
                active++;
            }
    if (active == 0)
        return;
    auto distinct = [](int64_t *v, int count) {
        std::sort(v, v + count);
        return static_cast<int>(std::unique(v, v + count) - v);
    };
    const int distinctAddresses = distinct(addresses, active);
    double perWarp = 0, moved = 0;
    const double used = unknown ? double(active) * bytesPerPoint : double(distinctAddresses) * bytesPerPoint;
    if (mem == MemoryType::Global) {
        perWarp = unknown ? active : double(distinct(units, active));
        moved = perWarp * 32;
    } else {
        std::sort(bankWords, bankWords + active);
        const int n = static_cast<int>(std::unique(bankWords, bankWords + active) - bankWords);
        int worst = 1, run = 0;
        for (int i = 0; i < n; i++) {
            run = (i > 0 && bankWords[i].first == bankWords[i - 1].first) ? run + 1 : 1;
            worst = std::max(worst, run);
        }
        perWarp = unknown ? active : double(worst);
        moved = perWarp * 128;
    }
    const double instructions = double(ti.numActiveWarpsPerBlock) * instructionsPerThread;
    out.transactions += perWarp * instructions;
    out.used += used * instructions;
    out.moved += moved * instructions;
}

class Featurizer {
public:
    Featurizer(const State &s, const FeatureParams &p) : st(s), d(s.dag()), params(p) {}

    std::vector<ScheduleFeatures> run();

private:
    const State &st;
    const SearchDag &d;
    const FeatureParams &params;
    std::vector<ScheduleFeatures> feats; // by cost-model slot (scheduled prefix)
    std::vector<int64_t> pcm;            // points_computed_minimum per slot (all stages)
    std::string inlinedKey;              // which Funcs are inlined, for the expr_branching memo
    mutable std::unordered_map<std::string, int> inlinedBranching; // per state: Func name -> branching

    ScheduleFeatures *featOf(int node, int stage) {
        const int slot = d.stageSlot(node, stage);
        return slot >= 0 && slot < static_cast<int>(feats.size()) ? &feats[static_cast<size_t>(slot)] : nullptr;
    }
    Site siteOf(int producer, int consumerNode) const;
    StageCtx context(const FuncSchedule &f, int stage) const;
    void collectAccesses(int node, int stage, std::vector<Access> &out) const;
    int branching(const Expr &e) const;
    void computePointsComputedMinimum();
    void stageFeatures(const StageCtx &c, ScheduleFeatures &feat);
    void inlinedFeatures();
    void workingSets();
};

Site Featurizer::siteOf(int producer, int consumerNode) const {
    Site s;
    const dag::Node &n = d.node(producer);
    if (n.isInput) {
        s.vectorDim = 0;
        s.scheduled = true;
        return s;
    }
    const FuncSchedule *f = st.scheduleOf(producer);
    if (!f)
        return s;
    s.scheduled = true;
    s.memory = f->memory();
    s.nestedIn = f->location != ComputeLocation::Root && f->consumer == consumerNode;
    if (!f->stages.empty())
        s.vectorDim = std::max(0, d.loopDim(producer, 0, f->stages[0].vectorLoop));
    return s;
}

StageCtx Featurizer::context(const FuncSchedule &f, int stage) const {
    StageCtx c;
    c.node = f.node;
    c.stage = stage;
    c.f = &f;
    c.t = &f.stages[static_cast<size_t>(stage)];
    c.loops = st.stageLoops(f.node, stage);
    for (int64_t s : c.t->serial)
        c.serialTotal *= s;
    int64_t tiled = 1;
    for (size_t j = 0; j < c.t->threads.size(); j++)
        tiled *= c.t->threads[j] * c.t->serial[j];
    std::vector<int64_t> threadSizes = c.t->threads;
    if (f.location == ComputeLocation::Root) {
        c.kernelNode = f.node;
        c.kernelStage = stage;
        c.blocks = st.numBlocks(f.node, stage);
        c.instances = 1;
        c.perProduction = tiled * c.blocks;
    } else {
        c.kernelNode = f.consumer;
        c.kernelStage = f.consumerStage;
        c.blocks = st.numBlocks(f.consumer, f.consumerStage);
        c.instances = c.blocks;
        if (f.location == ComputeLocation::ThreadLevel) {
            c.instances *= st.numThreads(f.consumer, f.consumerStage);
            threadSizes = st.scheduleOf(f.consumer)->stages[static_cast<size_t>(f.consumerStage)].threads;
        }
        c.perProduction = tiled;
    }
    // The block's thread extents: the largest over the stages running in this kernel.
    int block[3] = {1, 1, 1};
    auto widen = [&](const StageTiling &t) {
        int th[3];
        int64_t count;
        std::vector<int> idx;
        assignThreadLoops(t.vectorLoop, t.threads, th, count, idx);
        for (int k = 0; k < 3; k++)
            block[k] = std::max(block[k], th[k]);
    };
    const FuncSchedule *kernel = st.scheduleOf(c.kernelNode);
    widen(kernel->stages[static_cast<size_t>(c.kernelStage)]);
    for (const FuncSchedule &g : st.funcs())
        if (g.location == ComputeLocation::BlockLevel && g.consumer == c.kernelNode && g.consumerStage == c.kernelStage)
            for (const StageTiling &t : g.stages)
                widen(t);
    const int vectorLoop = f.location == ComputeLocation::ThreadLevel
                               ? kernel->stages[static_cast<size_t>(c.kernelStage)].vectorLoop
                               : c.t->vectorLoop;
    c.thread = makeThreadInfo(vectorLoop, threadSizes, block);
    c.vectorDim = std::max(0, d.loopDim(f.node, stage, c.t->vectorLoop));
    return c;
}

void Featurizer::collectAccesses(int node, int stage, std::vector<Access> &out) const {
    // (stage to look at, Jacobian from its loops to the original consumer's loops, call multiplicity)
    struct Pending {
        int node, stage;
        std::vector<std::vector<double>> toConsumer; // [this node's dim][consumer loop]; empty = identity
    };
    std::vector<Pending> pending{{node, stage, {}}};
    while (!pending.empty()) {
        Pending p = std::move(pending.back());
        pending.pop_back();
        for (int e : d.node(p.node).stages[static_cast<size_t>(p.stage)].incomingEdges) {
            const dag::Edge &edge = d.edge(e);
            for (const dag::LoadJacobian &lj : edge.loadJacobians) {
                Jacobian j = fromDag(lj);
                if (!p.toConsumer.empty()) {
                    // Compose through the inlined Func: its loop k iterates its dim loopDim(k).
                    Jacobian composed;
                    composed.count = j.count;
                    const size_t loops = p.toConsumer.empty() ? 0 : p.toConsumer[0].size();
                    for (const auto &row : j.m) {
                        std::vector<double> r(loops, 0.0);
                        for (size_t k = 0; k < row.size(); k++) {
                            const int dim = d.loopDim(p.node, p.stage, static_cast<int>(k));
                            if (row[k] == 0)
                                continue;
                            for (size_t jj = 0; jj < loops; jj++) {
                                const double inner = dim >= 0 && static_cast<size_t>(dim) < p.toConsumer.size()
                                                         ? p.toConsumer[static_cast<size_t>(dim)][jj]
                                                         : std::nan("");
                                r[jj] += row[k] * inner;
                            }
                        }
                        composed.m.push_back(std::move(r));
                    }
                    j = std::move(composed);
                }
                const FuncSchedule *pf = st.scheduleOf(edge.producer);
                if (pf && pf->location == ComputeLocation::Inlined) {
                    pending.push_back(Pending{edge.producer, 0, j.m});
                    continue;
                }
                out.push_back(Access{edge.producer, std::move(j)});
            }
            if (edge.loadJacobians.empty()) {
                const FuncSchedule *pf = st.scheduleOf(edge.producer);
                if (pf && pf->location == ComputeLocation::Inlined)
                    pending.push_back(Pending{edge.producer, 0, {}});
                else {
                    Jacobian unknown;
                    unknown.count = std::max(1, edge.calls);
                    out.push_back(Access{edge.producer, unknown});
                }
            }
        }
    }
}

namespace {

template <typename T>
bool binaryChildren(const Expr &e, std::vector<Expr> &out) {
    if (const T *op = e.as<T>()) {
        out = {op->a, op->b};
        return true;
    }
    return false;
}

// The immediate sub-expressions of e; false for leaves.
bool children(const Expr &e, std::vector<Expr> &out) {
    if (binaryChildren<Add>(e, out) || binaryChildren<Sub>(e, out) || binaryChildren<Mul>(e, out) ||
        binaryChildren<Div>(e, out) || binaryChildren<Mod>(e, out) || binaryChildren<Min>(e, out) ||
        binaryChildren<Max>(e, out) || binaryChildren<EQ>(e, out) || binaryChildren<NE>(e, out) ||
        binaryChildren<LT>(e, out) || binaryChildren<LE>(e, out) || binaryChildren<GT>(e, out) ||
        binaryChildren<GE>(e, out) || binaryChildren<And>(e, out) || binaryChildren<Or>(e, out))
        return true;
    if (const Not *n = e.as<Not>()) {
        out = {n->a};
        return true;
    }
    if (const Select *sel = e.as<Select>()) {
        out = {sel->condition, sel->true_value, sel->false_value};
        return true;
    }
    if (const Let *let = e.as<Let>()) {
        out = {let->value, let->body};
        return true;
    }
    if (const Call *call = e.as<Call>()) {
        out = call->args;
        return !out.empty();
    }
    return false;
}

} // namespace

int Featurizer::branching(const Expr &e) const {
    if (!e.defined())
        return 0;
    if (const Cast *cast = e.as<Cast>())
        return branching(cast->value);
    if (const Call *call = e.as<Call>(); call && call->call_type == Call::Halide) {
        // Each inlined Func's body is measured once per state: chains of inlined
        // stencils would otherwise be expanded exponentially.
        auto memo = inlinedBranching.find(call->name);
        if (memo != inlinedBranching.end())
            return memo->second;
        int result = 1;
        for (int n = 0; n < d.nodeCount(); n++) {
            const FuncSchedule *f = st.scheduleOf(n);
            if (f && f->location == ComputeLocation::Inlined && d.node(n).name == call->name) {
                int b = 0;
                for (const Expr &v : d.node(n).func.values())
                    b = std::max(b, branching(v));
                result = std::max(1, b);
                break;
            }
        }
        inlinedBranching.emplace(call->name, result);
        return result;
    }
    std::vector<Expr> subs;
    if (!children(e, subs))
        return 1;
    std::vector<int> kids;
    for (const Expr &x : subs)
        kids.push_back(branching(x));
    std::sort(kids.rbegin(), kids.rend());
    int best = 0;
    for (size_t i = 0; i < kids.size(); i++)
        best = std::max(best, kids[i] + static_cast<int>(i));
    return best;
}

void Featurizer::computePointsComputedMinimum() {
    pcm.assign(d.costStages().size(), 0);
    for (size_t slot = 0; slot < d.costStages().size(); slot++) {
        const dag::StageRef &r = d.costStages()[slot];
        pcm[slot] = volume(d.rootLoops(r.node, r.stage));
    }
    // Consumers come first in slot order, so their minimum is final when a producer reads it.
    for (size_t slot = 0; slot < d.costStages().size(); slot++) {
        const dag::StageRef &r = d.costStages()[slot];
        const dag::Node &n = d.node(r.node);
        if (n.stages.size() != 1 || n.isOutput)
            continue;
        int64_t ifInlined = 0;
        for (int e : n.outgoingEdges) {
            const dag::Edge &edge = d.edge(e);
            const int cs = d.stageSlot(edge.consumerNode, edge.consumerStage);
            if (cs >= 0)
                ifInlined += pcm[static_cast<size_t>(cs)] * edge.calls;
        }
        pcm[slot] = std::min(pcm[slot], ifInlined);
    }
}

void Featurizer::stageFeatures(const StageCtx &c, ScheduleFeatures &feat) {
    const dag::Node &n = d.node(c.node);
    const FuncSchedule &f = *c.f;
    const StageTiling &t = *c.t;
    const int64_t bpp = n.bytesPerPoint;
    const Region computed = st.computedRegion(c.node);

    feat[Feature::NumRealizations] = double(c.instances);
    feat[Feature::NumProductions] = double(c.instances);
    double perRealization = 1, scalars = double(c.instances);
    for (size_t j = 0; j < c.loops.size(); j++) {
        const int64_t e = c.loops[j].extent();
        perRealization *= double(e);
        scalars *= static_cast<int>(j) == t.vectorLoop ? double(e % d.vectorSize(c.node)) : double(e);
    }
    feat[Feature::PointsComputedPerRealization] = perRealization;
    feat[Feature::PointsComputedPerProduction] = double(c.perProduction);
    feat[Feature::PointsComputedPerThread] = double(c.serialTotal);
    feat[Feature::PointsComputedTotal] = perRealization * double(c.instances);
    feat[Feature::NumScalars] = scalars;

    double pure = 1;
    for (size_t j = 0; j < t.serial.size(); j++)
        if (!n.stages[static_cast<size_t>(c.stage)].loop[j].rvar)
            pure *= double(t.serial[j]);
    feat[Feature::InnermostLoopExtent] = double(c.serialTotal);
    feat[Feature::InnermostPureLoopExtent] = pure;
    feat[Feature::UnrolledLoopExtent] = t.unrolled ? pure : 1;

    if (f.location == ComputeLocation::Root) {
        int64_t inner = 1;
        const Region &loops = c.loops;
        for (size_t j = loops.size(); j-- > 0;) {
            const int64_t b = ceilDiv(loops[j].extent(), t.threads[j] * t.serial[j]);
            if (n.stages[static_cast<size_t>(c.stage)].loop[j].pure)
                inner *= b;
            else if (b != 1)
                break;
        }
        feat[Feature::InnerParallelism] = double(inner);
        feat[Feature::OuterParallelism] = 1;
    } else if (f.location == ComputeLocation::BlockLevel) {
        feat[Feature::InnerParallelism] = double(st.numThreads(c.node, c.stage));
        feat[Feature::OuterParallelism] = double(c.blocks);
    } else {
        feat[Feature::InnerParallelism] = 1;
        feat[Feature::OuterParallelism] = double(c.instances);
    }

    double bytes = double(bpp);
    for (const Span &s : computed)
        bytes *= double(s.extent());
    const int vd = c.vectorDim;
    const double innermostBytes = double(bpp) * (vd < static_cast<int>(computed.size()) ? double(computed[static_cast<size_t>(vd)].extent()) : 1.0);
    feat[Feature::BytesAtRealization] = bytes;
    feat[Feature::BytesAtProduction] = bytes;
    feat[Feature::InnermostBytesAtRealization] = innermostBytes;
    feat[Feature::InnermostBytesAtProduction] = innermostBytes;
    const Region &rootComputed = d.rootComputed(c.node);
    double rootBytes = double(bpp);
    for (const Span &s : rootComputed)
        rootBytes *= double(s.extent());
    feat[Feature::BytesAtRoot] = rootBytes;
    feat[Feature::InnermostBytesAtRoot] =
        double(bpp) * (vd < static_cast<int>(rootComputed.size()) ? double(rootComputed[static_cast<size_t>(vd)].extent()) : 1.0);

    // Bytes at task.
    if (f.location == ComputeLocation::Root) {
        double atTask = double(bpp), innermostAtTask = double(bpp);
        const dag::Stage &stage = n.stages[static_cast<size_t>(c.stage)];
        for (int i = 0; i < n.func.dimensions(); i++) {
            int64_t outer = 1;
            for (size_t j = 0; j < stage.loop.size(); j++)
                if (stage.loop[j].var == n.func.args()[static_cast<size_t>(i)]) {
                    outer = ceilDiv(c.loops[j].extent(), t.threads[j] * t.serial[j]);
                    break;
                }
            const int64_t extent = computed[static_cast<size_t>(i)].extent() / outer;
            atTask *= double(extent);
            if (i == vd)
                innermostAtTask = double(bpp) * double(extent);
        }
        feat[Feature::GlobalBytesAtTask] = atTask;
        feat[Feature::GlobalInnermostBytesAtTask] = innermostAtTask;
    } else if (f.location == ComputeLocation::BlockLevel) {
        feat[Feature::SharedBytesAtTask] = bytes;
        feat[Feature::SharedInnermostBytesAtTask] = innermostBytes;
    } else {
        feat[Feature::RegisterBytesAtTask] = bytes;
        feat[Feature::RegisterInnermostBytesAtTask] = innermostBytes;
    }

    // Loads.
    std::vector<Access> accesses;
    collectAccesses(c.node, c.stage, accesses);
    double realizationBytes[3] = {0, 0, 0}, realizationLines[3] = {0, 0, 0};
    double threadBytes[3] = {0, 0, 0}, threadLines[3] = {0, 0, 0};
    double pointBytes = 0, pointLines = 0, allocation[3] = {0, 0, 0};
    MemCount globalLoads, sharedLoads;
    std::set<int> done;
    auto footprint = [&](int producer, const Region &r, const Site &site, double &b, double &lines) {
        b = double(d.node(producer).bytesPerPoint);
        lines = 1;
        int64_t maxExtent = 1;
        for (size_t i = 0; i < r.size(); i++) {
            const int64_t e = r[i].extent();
            b *= double(e);
            maxExtent = std::max(maxExtent, e);
            if (static_cast<int>(i) != site.vectorDim)
                lines *= double(e);
        }
        if (site.vectorDim < 0)
            lines /= double(maxExtent);
    };
    for (const Access &a : accesses) {
        const Site site = siteOf(a.producer, c.node);
        const int m = static_cast<int>(site.memory);
        // Memory transactions of this load, for the kernel's threads.
        double pointsPerThread = double(a.jac.count);
        for (size_t j = 0; j < t.serial.size(); j++)
            if (!a.jac.columnIsZero(j))
                pointsPerThread *= double(t.serial[j]);
        const Region storage = st.computedRegion(a.producer);
        if (site.memory == MemoryType::Global)
            countWarpAccess(MemoryType::Global, c.thread, t, a.jac, storage, d.node(a.producer).bytesPerPoint,
                            pointsPerThread, globalLoads);
        else if (site.memory == MemoryType::Shared)
            countWarpAccess(MemoryType::Shared, c.thread, t, a.jac, storage, d.node(a.producer).bytesPerPoint,
                            pointsPerThread, sharedLoads);
        if (!done.insert(a.producer).second)
            continue;
        double b = 0, l = 0;
        if (site.nestedIn) {
            footprint(a.producer, storage, site, b, l);
        } else {
            footprint(a.producer, st.requiredAt(a.producer, c.node, c.stage, 0), site, b, l);
        }
        realizationBytes[m] += b;
        realizationLines[m] += l;
        double cb = 0, cl = 0;
        footprint(a.producer, storage, site, cb, cl);
        if (site.memory != MemoryType::Register)
            allocation[m] += cb;
        const Region threadRegion = st.requiredAt(a.producer, c.node, c.stage, 2);
        if (site.nestedIn && site.memory == MemoryType::Shared)
            footprint(a.producer, storage, site, b, l);
        else
            footprint(a.producer, threadRegion.empty() ? storage : threadRegion, site, b, l);
        threadBytes[m] += b;
        threadLines[m] += l;
        const Region pointRegion = st.requiredAt(a.producer, c.node, c.stage, 3);
        footprint(a.producer, pointRegion.empty() ? storage : pointRegion, site, b, l);
        pointBytes += b;
        // Halide adds the register *bytes* (not lines) into unique_lines_read_per_point.
        pointLines += site.memory == MemoryType::Register ? b : l;
    }
    if (c.stage > 0) {
        // An update reads everything produced so far (Halide's pessimistic assumption).
        const int m = static_cast<int>(f.memory());
        realizationBytes[m] += bytes;
        realizationLines[m] += innermostBytes > 0 ? bytes / innermostBytes : 0;
        allocation[m] += bytes;
        if (f.memory() == MemoryType::Register)
            feat[Feature::RegisterAllocationBytesReadPerRealization] += bytes;
    }
    const Feature rb[3] = {Feature::UniqueGlobalBytesReadPerRealization, Feature::UniqueSharedBytesReadPerRealization,
                           Feature::UniqueRegisterBytesReadPerRealization};
    const Feature rl[3] = {Feature::UniqueGlobalLinesReadPerRealization, Feature::UniqueSharedLinesReadPerRealization,
                           Feature::UniqueRegisterLinesReadPerRealization};
    const Feature tb[3] = {Feature::UniqueGlobalBytesReadPerThread, Feature::UniqueSharedBytesReadPerThread,
                           Feature::UniqueRegisterBytesReadPerThread};
    const Feature tl[3] = {Feature::UniqueGlobalLinesReadPerThread, Feature::UniqueSharedLinesReadPerThread,
                           Feature::UniqueRegisterLinesReadPerThread};
    for (int m = 0; m < 3; m++) {
        feat[rb[m]] = realizationBytes[m];
        feat[rl[m]] = realizationLines[m];
        feat[tb[m]] = threadBytes[m];
        feat[tl[m]] = threadLines[m];
    }
    feat[Feature::GlobalAllocationBytesReadPerRealization] = allocation[0];
    feat[Feature::SharedAllocationBytesReadPerRealization] = allocation[1];
    feat[Feature::UniqueBytesReadPerPoint] = pointBytes;
    feat[Feature::UniqueLinesReadPerPoint] = pointLines;
    feat[Feature::NumGlobalMemLoadsPerBlock] = globalLoads.transactions;
    feat[Feature::GlobalMemLoadEfficiency] = globalLoads.efficiency();
    feat[Feature::NumSharedMemLoadsPerBlock] = sharedLoads.transactions;
    feat[Feature::SharedMemLoadEfficiency] = sharedLoads.efficiency();

    // Per task: what a block of a root stage streams in from Funcs stored at root.
    if (f.location == ComputeLocation::Root) {
        double taskBytes = 0, taskLines = 0;
        std::vector<int> pendingEdges(n.stages[static_cast<size_t>(c.stage)].incomingEdges);
        std::set<int> seen;
        while (!pendingEdges.empty()) {
            const dag::Edge &e = d.edge(pendingEdges.back());
            pendingEdges.pop_back();
            if (!seen.insert(e.producer).second)
                continue;
            const FuncSchedule *pf = st.scheduleOf(e.producer);
            if (!pf || pf->location == ComputeLocation::Root || d.node(e.producer).isInput) {
                const Region r = st.requiredAt(e.producer, c.node, c.stage, 1);
                double b = 0, l = 0;
                footprint(e.producer, r.empty() ? d.rootRequired(e.producer) : r, siteOf(e.producer, c.node), b, l);
                taskBytes += b;
                taskLines += l;
            } else {
                for (const dag::Stage &s : d.node(e.producer).stages)
                    pendingEdges.insert(pendingEdges.end(), s.incomingEdges.begin(), s.incomingEdges.end());
            }
        }
        feat[Feature::UniqueBytesReadPerTask] = taskBytes;
        feat[Feature::UniqueLinesReadPerTask] = taskLines;
    }

    // Stores.
    {
        Jacobian store;
        for (const auto &row : d.storeJacobian(c.node, c.stage)) {
            std::vector<double> r;
            for (const dag::JacobianEntry &e : row)
                r.push_back(e.known ? double(e.numerator) : std::nan(""));
            store.m.push_back(std::move(r));
        }
        MemCount stores;
        countWarpAccess(f.memory(), c.thread, t, store, computed, static_cast<int>(bpp), double(c.serialTotal), stores);
        if (f.memory() == MemoryType::Global) {
            feat[Feature::NumGlobalMemStoresPerBlock] = stores.transactions;
            feat[Feature::GlobalMemStoreEfficiency] = stores.efficiency();
        } else if (f.memory() == MemoryType::Shared) {
            feat[Feature::NumSharedMemStoresPerBlock] = stores.transactions;
            feat[Feature::SharedMemStoreEfficiency] = stores.efficiency();
        }
    }

    // GPU occupancy and warps.
    const ThreadInfo &ti = c.thread;
    feat[Feature::WarpLaneUtilization] = ti.warpLaneUtilization();
    feat[Feature::NumActiveWarpsPerBlock] = ti.numActiveWarpsPerBlock;
    feat[Feature::IdleLaneWastage] = ti.idleLaneWastage();
    feat[Feature::NumWarpsPerBlock] = ti.numWarpsPerBlock;
    feat[Feature::NumBlocks] = double(c.blocks);
    feat[Feature::BlockOccupancy] = ti.blockOccupancy();
    feat[Feature::NumThreadsPerBlock] = double(ti.numThreads);
    if (f.location == ComputeLocation::Root) {
        const int64_t warps = std::max(1, ti.numWarpsPerBlock);
        const int64_t blocksPerSm = static_cast<int64_t>(std::ceil(double(c.blocks) / params.parallelism));
        const int64_t activeBlocks = std::min<int64_t>(params.activeBlockLimit, blocksPerSm);
        const int64_t activeWarps = std::min<int64_t>(params.activeWarpLimit, activeBlocks * warps);
        feat[Feature::MaxWarpOccupancy] = double(activeWarps) / params.activeWarpLimit;
        feat[Feature::MaxBlockOccupancy] = double(activeWarps / warps) / params.activeBlockLimit;
        const int64_t shared = st.sharedBytesPerBlock(c.node);
        feat[Feature::SharedMemOccupancy] = double(shared) / double(params.sharedMemoryLimitBytes);
        if (shared > 0)
            feat[Feature::SharedMemBlockLimitFactor] =
                double(std::min<int64_t>(params.activeBlockLimit, params.sharedMemorySmLimitBytes / shared)) /
                params.activeBlockLimit;
    }

    std::string key = inlinedKey;
    key += std::to_string(c.node) + "/" + std::to_string(c.stage);
    auto cached = d.branchingCache.find(key);
    if (cached == d.branchingCache.end()) {
        int b = 0;
        const Definition &def = c.stage == 0 ? n.func.definition() : n.func.update(c.stage - 1);
        for (const Expr &v : def.values())
            b = std::max(b, branching(v));
        cached = d.branchingCache.emplace(std::move(key), b).first;
    }
    feat[Feature::ExprBranching] = cached->second;
}

void Featurizer::inlinedFeatures() {
    // For every non-inlined stage, the Funcs inlined into it and their call counts
    // (multiplied along chains of inlined Funcs).
    for (const FuncSchedule &f : st.funcs()) {
        if (f.location == ComputeLocation::Inlined)
            continue;
        for (size_t s = 0; s < f.stages.size(); s++) {
            ScheduleFeatures *consumer = featOf(f.node, static_cast<int>(s));
            if (!consumer)
                continue;
            const StageCtx c = context(f, static_cast<int>(s));
            struct Item {
                int node, stage;
                int64_t calls;
            };
            std::vector<Item> pending{{f.node, static_cast<int>(s), 1}};
            while (!pending.empty()) {
                const Item it = pending.back();
                pending.pop_back();
                for (int e : d.node(it.node).stages[static_cast<size_t>(it.stage)].incomingEdges) {
                    const dag::Edge &edge = d.edge(e);
                    const FuncSchedule *pf = st.scheduleOf(edge.producer);
                    if (!pf || pf->location != ComputeLocation::Inlined)
                        continue;
                    const int64_t calls = it.calls * std::max(1, edge.calls);
                    ScheduleFeatures *in = featOf(edge.producer, 0);
                    if (in) {
                        (*in)[Feature::InlinedCalls] += double(calls) * double(c.perProduction * c.instances);
                        (*in)[Feature::NumScalars] += double(calls) * (*consumer)[Feature::NumScalars];
                        const double ipe = (*consumer)[Feature::InnermostPureLoopExtent];
                        double &mine = (*in)[Feature::InnermostPureLoopExtent];
                        mine = mine > 0 ? std::min(mine, ipe) : ipe;
                        (*in)[Feature::InnerParallelism] = 1;
                        (*in)[Feature::OuterParallelism] = double(c.blocks);
                        (*in)[Feature::NumBlocks] = double(c.blocks);
                        (*in)[Feature::NumWarpsPerBlock] += double(calls) * double(c.serialTotal) *
                                                            c.thread.numWarpsPerBlock * double(c.blocks);
                        (*in)[Feature::NumThreadsPerBlock] += double(c.thread.numThreads);
                        (*in)[Feature::PointsComputedPerThread] += double(calls) * double(c.serialTotal);
                    }
                    pending.push_back(Item{edge.producer, 0, calls});
                }
            }
        }
    }
}

void Featurizer::workingSets() {
    // Per kernel (root stage): bytes realized per thread and per block.
    double rootSet = 0;
    for (const FuncSchedule &f : st.funcs())
        if (f.location != ComputeLocation::Inlined) {
            double b = double(d.node(f.node).bytesPerPoint);
            for (const Span &s : st.computedRegion(f.node))
                b *= double(s.extent());
            rootSet += b; // every realization counts once in the tree walk's sum
        }
    for (const FuncSchedule &f : st.funcs()) {
        if (f.location != ComputeLocation::Root)
            continue;
        for (size_t s = 0; s < f.stages.size(); s++) {
            double threadSet = 0, blockSet = 0;
            for (const FuncSchedule &g : st.funcs()) {
                if (g.location == ComputeLocation::Root || g.location == ComputeLocation::Inlined ||
                    g.consumer != f.node || g.consumerStage != static_cast<int>(s))
                    continue;
                double b = double(d.node(g.node).bytesPerPoint);
                for (const Span &sp : st.computedRegion(g.node))
                    b *= double(sp.extent());
                (g.location == ComputeLocation::ThreadLevel ? threadSet : blockSet) += b;
            }
            blockSet += threadSet;
            if (ScheduleFeatures *ft = featOf(f.node, static_cast<int>(s))) {
                (*ft)[Feature::WorkingSet] = blockSet;
                (*ft)[Feature::WorkingSetAtThread] = threadSet;
                (*ft)[Feature::WorkingSetAtTask] = blockSet;
            }
            for (const FuncSchedule &g : st.funcs()) {
                if (g.location == ComputeLocation::Root || g.location == ComputeLocation::Inlined ||
                    g.consumer != f.node || g.consumerStage != static_cast<int>(s))
                    continue;
                for (size_t gs = 0; gs < g.stages.size(); gs++)
                    if (ScheduleFeatures *fg = featOf(g.node, static_cast<int>(gs))) {
                        const double here = g.location == ComputeLocation::ThreadLevel ? threadSet : blockSet;
                        (*fg)[Feature::WorkingSetAtRealization] = here;
                        (*fg)[Feature::WorkingSetAtProduction] = here;
                        (*fg)[Feature::WorkingSetAtTask] = blockSet;
                    }
            }
        }
    }
    // Root-level sums: realizations at root plus everything nested (counted once).
    for (ScheduleFeatures &ft : feats)
        ft[Feature::WorkingSetAtRoot] = rootSet;
    for (const FuncSchedule &f : st.funcs())
        if (f.location == ComputeLocation::Root)
            for (size_t s = 0; s < f.stages.size(); s++)
                if (ScheduleFeatures *ft = featOf(f.node, static_cast<int>(s))) {
                    (*ft)[Feature::WorkingSetAtRealization] = rootSet;
                    (*ft)[Feature::WorkingSetAtProduction] = rootSet;
                }
}

std::vector<ScheduleFeatures> Featurizer::run() {
    feats.assign(static_cast<size_t>(st.scheduledStageCount()), ScheduleFeatures());
    inlinedKey.assign(static_cast<size_t>(d.nodeCount()), '0');
    for (const FuncSchedule &f : st.funcs())
        if (f.location == ComputeLocation::Inlined)
            inlinedKey[static_cast<size_t>(f.node)] = '1';
    computePointsComputedMinimum();
    for (const FuncSchedule &f : st.funcs()) {
        if (f.location == ComputeLocation::Inlined) {
            // Inlined Funcs start from zero counts; their consumers add to them.
            if (ScheduleFeatures *ft = featOf(f.node, 0)) {
                *ft = ScheduleFeatures();
                (*ft)[Feature::NumScalars] = 0;
            }
            continue;
        }
        for (size_t s = 0; s < f.stages.size(); s++)
            if (ScheduleFeatures *ft = featOf(f.node, static_cast<int>(s)))
                stageFeatures(context(f, static_cast<int>(s)), *ft);
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
            // Halide's inlined Funcs keep a default storage layout (dim 0 innermost).
            const Region &rc = d.rootComputed(r.node);
            feats[slot][Feature::InnermostBytesAtRoot] =
                rc.empty() ? 0.0 : double(d.node(r.node).bytesPerPoint) * double(rc[0].extent());
        }
    }
    return std::move(feats);
}

} // namespace

std::vector<ScheduleFeatures> computeFeatures(const State &state, const FeatureParams &params) {
    return Featurizer(state, params).run();
}

} // namespace beamscope::search
