#include "core/schedule/schedule_plan.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace beamscope::schedule {

namespace {

using search::ComputeLocation;
using search::FuncSchedule;
using search::StageTiling;
using Kind = Directive::Kind;

Directive split(const std::string &old, const std::string &outer, const std::string &inner, int64_t factor)
{
    Directive d;
    d.kind = Kind::Split;
    d.vars = {old, outer, inner};
    d.factor = factor;
    return d;
}

Directive withVars(Kind kind, std::vector<std::string> vars)
{
    Directive d;
    d.kind = kind;
    d.vars = std::move(vars);
    return d;
}

// Halide maps at most three loops to GPU blocks (or threads). `vars` are
// adjacent in the loop nest, innermost first; the ones past `limit` are fused
// into the last kept one, outward, so every loop stays parallel.
std::vector<std::string> fuseDownTo(std::vector<std::string> vars, size_t limit, StagePlan &plan)
{
    while (vars.size() > limit) {
        const std::string fused = vars[limit - 1] + "_" + vars[limit];
        plan.directives.push_back(withVars(Kind::Fuse, {vars[limit - 1], vars[limit], fused}));
        plan.newVars.push_back(fused);
        vars[limit - 1] = fused;
        vars.erase(vars.begin() + static_cast<std::ptrdiff_t>(limit));
    }
    return vars;
}

// Pure loops of a stage (reduction loops are left alone), innermost first.
std::vector<size_t> pureLoops(const dag::Stage &st)
{
    std::vector<size_t> out;
    for (size_t j = 0; j < st.loop.size(); j++)
        if (!st.loop[j].rvar)
            out.push_back(j);
    return out;
}

// Thread loops in Halide's gpu_threads order: the state's vector loop first
// (thread x), then the rest innermost first.
void orderThreads(std::vector<std::pair<size_t, std::string>> &threads, int vectorLoop)
{
    std::stable_partition(threads.begin(), threads.end(),
                          [&](const auto &t) { return static_cast<int>(t.first) == vectorLoop; });
}

void planRoot(const dag::Stage &st, const StageTiling &t, bool hostsBlockLevel, StagePlan &plan)
{
    const std::vector<size_t> loops = pureLoops(st);
    if (loops.empty()) {
        plan.directives.push_back(withVars(Kind::GpuSingleThread, {}));
        return;
    }
    std::vector<std::string> serial, blocks;
    std::vector<std::pair<size_t, std::string>> threads;
    for (size_t j : loops) {
        const std::string v = st.loop[j].var;
        plan.pureVars.push_back(v);
        const int64_t T = t.threads[j], S = t.serial[j];
        blocks.push_back(v);
        if (T > 1 && S > 1) {
            plan.directives.push_back(split(v, v, v + "i", T * S));
            plan.directives.push_back(split(v + "i", v + "i", v + "ii", S));
            plan.newVars.insert(plan.newVars.end(), {v + "i", v + "ii"});
            threads.emplace_back(j, v + "i");
            serial.push_back(v + "ii");
        } else if (T > 1) {
            plan.directives.push_back(split(v, v, v + "i", T));
            plan.newVars.push_back(v + "i");
            threads.emplace_back(j, v + "i");
        } else if (S > 1) {
            plan.directives.push_back(split(v, v, v + "ii", S));
            plan.newVars.push_back(v + "ii");
            serial.push_back(v + "ii");
        }
    }
    orderThreads(threads, t.vectorLoop);
    std::vector<std::string> threadVars;
    for (const auto &[j, name] : threads)
        threadVars.push_back(name);
    if (!serial.empty())
        plan.innermostSerialLoop = serial.front();
    std::vector<std::string> order = serial;
    order.insert(order.end(), threadVars.begin(), threadVars.end());
    order.insert(order.end(), blocks.begin(), blocks.end());
    if (order.size() > 1)
        plan.directives.push_back(withVars(Kind::Reorder, order));
    if (t.unrolled)
        for (const std::string &s : serial)
            plan.directives.push_back(withVars(Kind::Unroll, {s}));
    // A kernel hosting Funcs in shared memory keeps to two block dimensions: with a third
    // (block_id_z over more than one block) Halide 14 computes them wrongly (random_129_5).
    plan.directives.push_back(withVars(Kind::GpuBlocks, fuseDownTo(blocks, hostsBlockLevel ? 2 : 3, plan)));
    // A kernel's block size is the product of the per-dimension maxima over
    // the Funcs in it; with Funcs computed per block, one fused dimension
    // keeps it at the largest Func's thread count, as the state counts it.
    if (!threadVars.empty())
        plan.directives.push_back(withVars(Kind::GpuThreads, fuseDownTo(threadVars, hostsBlockLevel ? 1 : 3, plan)));
}

void planBlockLevel(const dag::Stage &st, const StageTiling &t, StagePlan &plan)
{
    // The state's loops are a thread loop and, inside it, a serial loop. Each dimension is split
    // as Anderson2021 splits it: first the serial tile (a constant factor, unrolled when the state
    // unrolls), then the thread count, also a constant factor: the block's thread count must not
    // follow the realized region, which can exceed the estimate (data-dependent accesses) and
    // would then launch more threads than a block may have. What the region holds beyond one
    // tile of threads runs in a "serial outer" loop around the threads, of extent 1 when the
    // region is the estimated one. So a Func computed at the thread loop is computed once per
    // thread, one inside the serial loop once per point, as the state counts them.
    //
    // Halide 14 miscompiles a Func in GPU shared memory whose third (or later) storage dimension
    // is split, into threads or into a serial tile inside them: the kernel computes wrong values
    // or writes outside its allocation (PoCL; random_12_3 of tests/campaign, and a standalone
    // Halide program with the same schedule). Such a dimension is left whole, as one serial
    // loop around the thread loops, which computes the same points.
    std::vector<std::string> inner, outer; // serial loops inside / outside the threads, innermost first
    std::vector<std::pair<size_t, std::string>> threads;
    size_t dimension = 0;
    for (size_t j : pureLoops(st)) {
        const std::string v = st.loop[j].var;
        plan.pureVars.push_back(v);
        const int64_t T = t.threads[j], S = t.serial[j];
        if (dimension++ >= 2) {
            if (T > 1 || S > 1)
                plan.note += std::string(plan.note.empty() ? "" : "; ") + v +
                             " is one serial loop around the threads (Halide 14 miscompiles a third dimension "
                             "of a Func in shared memory split into threads or tiles)";
            outer.push_back(v);
            continue;
        }
        if (S > 1 && (T > 1 || t.unrolled)) {
            plan.directives.push_back(split(v, v, v + "ii", S));
            plan.newVars.push_back(v + "ii");
            inner.push_back(v + "ii");
            if (t.unrolled)
                plan.directives.push_back(withVars(Kind::Unroll, {v + "ii"}));
        }
        if (T > 1) {
            plan.directives.push_back(split(v, v, v + "i", T));
            plan.newVars.push_back(v + "i");
            threads.emplace_back(j, v + "i");
            outer.push_back(v);
        } else if (S > 1 && !t.unrolled) {
            inner.push_back(v); // one thread's serial loop over the whole region
        } else {
            outer.push_back(v);
        }
    }
    orderThreads(threads, t.vectorLoop);
    std::vector<std::string> threadVars;
    for (const auto &[j, name] : threads)
        threadVars.push_back(name);
    if (!inner.empty())
        plan.innermostSerialLoop = inner.front();
    if (threadVars.empty())
        return;
    std::vector<std::string> order = inner;
    order.insert(order.end(), threadVars.begin(), threadVars.end());
    order.insert(order.end(), outer.begin(), outer.end());
    if (order.size() > 1)
        plan.directives.push_back(withVars(Kind::Reorder, order));
    plan.directives.push_back(withVars(Kind::GpuThreads, fuseDownTo(threadVars, 1, plan)));
}

void planThreadLevel(const dag::Stage &st, const StageTiling &t, StagePlan &plan)
{
    // Its loops are all serial: a Func computed inside them goes in the innermost, once per point.
    const std::vector<size_t> loops = pureLoops(st);
    if (!loops.empty()) {
        const size_t j = loops.front();
        plan.innermostSerialLoop = st.loop[j].var + (t.unrolled && t.threads[j] * t.serial[j] > 1 ? "ii" : "");
    }
    if (!t.unrolled)
        return;
    // Unroll by the tile, split off with a constant factor, so the unrolled
    // loop has a constant extent whatever the consumer's tail does.
    for (size_t j : pureLoops(st)) {
        const std::string v = st.loop[j].var;
        const int64_t tile = t.threads[j] * t.serial[j];
        if (tile <= 1)
            continue;
        plan.pureVars.push_back(v);
        plan.directives.push_back(split(v, v, v + "ii", tile));
        plan.directives.push_back(withVars(Kind::Unroll, {v + "ii"}));
        plan.newVars.push_back(v + "ii");
    }
}

// Calls `visit` on every edge out of `producer` and out of the Funcs inlined into its
// readers, transitively (the accesses a loop nest makes of the producer); true as soon as
// one call is.
bool anyEdgeThroughInlined(const dag::FunctionDAG &dag, const search::State &state, int producer,
                           const std::function<bool(const dag::Edge &, bool readerInlined)> &visit)
{
    std::vector<int> todo{producer}, seen;
    while (!todo.empty()) {
        const int node = todo.back();
        todo.pop_back();
        if (std::find(seen.begin(), seen.end(), node) != seen.end())
            continue;
        seen.push_back(node);
        for (int e : dag.nodes[static_cast<size_t>(node)].outgoingEdges) {
            const dag::Edge &edge = dag.edges[static_cast<size_t>(e)];
            const search::FuncSchedule *reader = state.scheduleOf(edge.consumerNode);
            const bool inlined = reader && reader->location == ComputeLocation::Inlined;
            if (visit(edge, inlined))
                return true;
            if (inlined)
                todo.push_back(edge.consumerNode);
        }
    }
    return false;
}

// Whether a Func the plan computes at root instead of where the state has it (`rooted`) reads
// `producer`, directly or through inlined Funcs, other than `consumer` itself: the producer
// cannot then stay inside `consumer`'s loops, where the rooted reader no longer is.
bool readByRootedFunc(const dag::FunctionDAG &dag, const search::State &state, const std::vector<bool> &rooted,
                      int producer, int consumer)
{
    return anyEdgeThroughInlined(dag, state, producer, [&](const dag::Edge &edge, bool readerInlined) {
        return !readerInlined && edge.consumerNode != consumer && rooted[static_cast<size_t>(edge.consumerNode)];
    });
}

// Whether the region of `producer` one block (or one thread) of `consumer` needs moves with it
// differently in different dimensions: some access on the way from the producer to the consumer,
// through the Funcs inlined between them, reads it through two different Jacobians (a transpose
// beside a plain read, s(y, x) + s(x, y)), so two blocks need regions of different sizes. The
// search sizes a Func on one representative block or thread, as Halide's does. In shared memory a
// block elsewhere can need far more than the device has (random_23_7). In a thread's memory Halide
// 14 hoists the allocation out of the kernel at its largest size times every thread of the launch:
// a transpose's (|x - y| + 1)^2 overflowed a buffer's 32-bit extent (random_215_10).
bool regionVariesByLoop(const dag::FunctionDAG &dag, const search::State &state, int producer, int consumer)
{
    return anyEdgeThroughInlined(dag, state, producer, [&](const dag::Edge &edge, bool readerInlined) {
        if (edge.consumerNode != consumer && !readerInlined)
            return false;
        for (size_t j = 1; j < edge.loadJacobians.size(); j++)
            if (edge.loadJacobians[j].matrix != edge.loadJacobians[0].matrix)
                return true;
        return false;
    });
}

// Whether a thread-level Func computed at a thread loop sits in one that runs fewer threads than its kernel
// launches (a block-level Func beside it runs more). Halide 14 gives such a Func one slot per
// thread in a buffer hoisted out of the kernel when its size is not a constant (a GuardWithIf tail
// makes it min(extent, k)), sizes the buffer for the loop's threads and indexes it by the
// launch's: each block overwrites the next one's (corpus_window_extremes through the plugin:
// 128 threads sized, 144 launched, a wrong value now and then where blocks ran at once;
// camera_pipe's f9 at beam 8: 136 sized, 256 launched, heap corruption).
bool inNarrowerThreadLoop(const search::State &state, int node)
{
    // One computed per point of a serial loop needs what one point reads, the same at every thread
    // (else regionVariesByLoop says so): a stack array, not the hoisted buffer.
    if (state.scheduleOf(node)->insideSerialLoop)
        return false;
    const auto [loopNode, loopStage] = state.threadLoopOf(node);
    const auto [kernelNode, kernelStage] = state.kernelOf(node);
    return loopNode >= 0 && kernelNode >= 0 &&
           state.numThreads(loopNode, loopStage) != state.threadsPerBlockOfKernel(kernelNode, kernelStage);
}

} // namespace

std::string innermostLoopOfKind(const StagePlan &stage, Directive::Kind kind)
{
    for (const Directive &d : stage.directives)
        if (d.kind == kind && !d.vars.empty())
            return d.vars.front();
    return {};
}

SchedulePlan planSchedule(const search::State &state, const dag::FunctionDAG *namesFrom)
{
    if (!state.complete())
        throw std::invalid_argument("planSchedule: the state is incomplete (" + std::to_string(state.numScheduled()) +
                                    " of " + std::to_string(state.dag().scheduleOrder().size()) + " Funcs scheduled)");
    const search::SearchDag &sd = state.dag();
    const dag::FunctionDAG &names = namesFrom ? *namesFrom : sd.dag();
    if (namesFrom) {
        bool same = names.nodes.size() == static_cast<size_t>(sd.nodeCount());
        for (size_t i = 0; same && i < names.nodes.size(); i++) {
            same = names.nodes[i].stages.size() == sd.node(static_cast<int>(i)).stages.size();
            for (size_t s = 0; same && s < names.nodes[i].stages.size(); s++)
                same = names.nodes[i].stages[s].loop.size() == sd.node(static_cast<int>(i)).stages[s].loop.size();
        }
        if (!same)
            throw std::invalid_argument("planSchedule: the pipeline's Funcs do not have the shape of the searched one");
    }
    SchedulePlan out;
    // Plans by (node, stage), filled in scheduling order: a consumer is always
    // planned before the Funcs computed inside it.
    std::vector<std::vector<int>> planIndex(static_cast<size_t>(sd.nodeCount()));
    std::vector<bool> rooted(static_cast<size_t>(sd.nodeCount()), false); // moved to root by this plan
    for (int node : sd.scheduleOrder()) {
        const FuncSchedule *f = state.scheduleOf(node);
        const dag::Node &n = names.nodes[static_cast<size_t>(node)];
        if (f->location == ComputeLocation::Inlined) {
            out.inlined.push_back(n.name);
            continue;
        }
        std::vector<StagePlan> stages(n.stages.size());
        for (size_t s = 0; s < n.stages.size(); s++) {
            StagePlan &p = stages[s];
            p.node = node;
            p.func = n.name;
            p.stage = static_cast<int>(s);
            const StageTiling &t = f->stages[s];
            ComputeLocation loc = f->location;
            std::string attachTo;
            if (loc != ComputeLocation::Root) {
                const auto &consumerPlans = planIndex[static_cast<size_t>(f->consumer)];
                const StagePlan *c =
                    consumerPlans.empty()
                        ? nullptr
                        : &out.stages[static_cast<size_t>(consumerPlans[static_cast<size_t>(f->consumerStage)])];
                bool perBlockInstead = false;
                if (c) {
                    if (loc == ComputeLocation::ThreadLevel && f->insideSerialLoop)
                        attachTo = c->innermostSerialLoop;
                    if (attachTo.empty() && loc == ComputeLocation::ThreadLevel)
                        attachTo = innermostLoopOfKind(*c, Kind::GpuThreads);
                    if (attachTo.empty()) {
                        attachTo = innermostLoopOfKind(*c, Kind::GpuBlocks);
                        perBlockInstead = loc == ComputeLocation::ThreadLevel;
                    }
                }
                if (attachTo.empty()) {
                    p.note = "its consumer stage has no GPU loop to compute it in, so it is computed at root";
                    loc = ComputeLocation::Root;
                } else if (const size_t consumerStages = names.nodes[static_cast<size_t>(f->consumer)].stages.size();
                           consumerStages > 1 && static_cast<size_t>(f->consumerStage) + 1 != consumerStages) {
                    // Halide 14 takes a compute_at without a stage index for the consumer's last stage,
                    // and refuses one with an index: a Func used by an earlier stage is then computed
                    // where that stage does not see it (wrong values; random_84_5 of the campaign).
                    p.note = "its consumer's later update would be where Halide 14 computes it, not the stage that "
                             "reads it, so it is computed at root";
                    loc = ComputeLocation::Root;
                } else if (loc == ComputeLocation::BlockLevel && regionVariesByLoop(names, state, node, f->consumer)) {
                    p.note = "it is read through accesses that move apart from block to block (a transpose beside a "
                             "plain read), so its region in shared memory differs per block: computed at root";
                    loc = ComputeLocation::Root;
                } else if (loc == ComputeLocation::ThreadLevel && inNarrowerThreadLoop(state, node)) {
                    p.note = "its thread loop runs fewer threads than its kernel launches, and Halide 14 then "
                             "indexes its per-thread buffer past its end: computed at root";
                    loc = ComputeLocation::Root;
                } else if (loc == ComputeLocation::ThreadLevel && regionVariesByLoop(names, state, node, f->consumer)) {
                    p.note = "it is read through accesses that move apart from thread to thread (a transpose beside a "
                             "plain read), so each thread needs a region of a different size, which Halide 14 "
                             "allocates at the largest for every thread: computed at root";
                    loc = ComputeLocation::Root;
                } else if (readByRootedFunc(names, state, rooted, node, f->consumer)) {
                    p.note = "a Func that reads it is computed at root by this plan, so it is computed at root too";
                    loc = ComputeLocation::Root;
                } else if (perBlockInstead) {
                    p.note = "its consumer stage has no GPU thread loop, so it is computed per block";
                }
            }
            if (loc == ComputeLocation::Root && f->location != ComputeLocation::Root)
                rooted[static_cast<size_t>(node)] = true;
            if (s == 0) {
                if (loc == ComputeLocation::Root) {
                    p.directives.push_back(withVars(Kind::ComputeRoot, {}));
                } else {
                    Directive at = withVars(Kind::ComputeAt, {attachTo});
                    at.consumer = names.nodes[static_cast<size_t>(f->consumer)].name;
                    at.consumerStage = f->consumerStage;
                    p.directives.push_back(at);
                    // Thread-level Funcs keep Halide's default (per-thread stack, which
                    // the GPU compiler promotes to registers): MemoryType::Register needs
                    // a constant-size realization, which GuardWithIf tails do not give.
                    if (loc == ComputeLocation::BlockLevel) {
                        Directive store;
                        store.kind = Kind::StoreIn;
                        store.memory = Halide::MemoryType::GPUShared;
                        p.directives.push_back(store);
                    }
                }
            }
            const dag::Stage &st = n.stages[s];
            if (loc == ComputeLocation::Root) {
                bool hostsBlockLevel = false;
                for (const FuncSchedule &g : state.funcs())
                    hostsBlockLevel = hostsBlockLevel || (g.location == ComputeLocation::BlockLevel &&
                                                          g.consumer == node && g.consumerStage == static_cast<int>(s));
                planRoot(st, t, hostsBlockLevel, p);
            } else if (loc == ComputeLocation::BlockLevel)
                planBlockLevel(st, t, p);
            else
                planThreadLevel(st, t, p);
        }
        for (size_t s = 1; s < stages.size(); s++)
            if (stages[s].directives.empty())
                stages[s].directives.push_back(withVars(Kind::Unscheduled, {}));
        // Updates first, then the pure definition (Halide's printing order).
        auto &idx = planIndex[static_cast<size_t>(node)];
        idx.assign(stages.size(), 0);
        for (size_t s = stages.size(); s-- > 0;) {
            idx[s] = static_cast<int>(out.stages.size());
            out.stages.push_back(std::move(stages[s]));
        }
    }
    return out;
}

} // namespace beamscope::schedule
