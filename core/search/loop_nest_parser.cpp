#include "core/search/loop_nest_parser.h"
#include "core/search/dump_func_names.h"
#include "core/search/halide_gpu_tilings.h"
#include "core/util/halide_names.h"

#include <algorithm>
#include <map>
#include <set>

namespace beamscope::search {

namespace {

struct ParseError {
    std::string message;
};

// The text layer's types under the names this file has always used.
using LineKind = NestLineKind;
using Entry = NestEntry;

// A name as Halide prints it and as the DAG holds it may differ by a "$N" uniquing suffix.
// Sizes are below 2^54 each (loop_nest_text.cpp) but a dump can nest enough of
// them for a product to leave int64, which would be undefined: refused instead.
int64_t times(int64_t a, int64_t b, const std::string &where)
{
    int64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product))
        throw ParseError{where + "loop sizes whose product does not fit in 64 bits"};
    return product;
}

std::string baseName(const std::string &name) { return baseFuncName(name); }

class Builder {
public:
    Builder(const SearchDag &dag, std::vector<Entry> entries) : m_dag(dag), m_e(std::move(entries)), m_names(dag, m_e)
    {}

    LoopNestParseResult build()
    {
        LoopNestParseResult r;
        // The root's own entries: realizations, compute_root stages, inlined Funcs (a Func inlined into
        // a root-level innermost... cannot occur, but is accepted).
        const int root = 0; // parseLoopNestText put the root line first
        std::map<int, int> rootStageCount;
        for (int c : m_e[static_cast<size_t>(root)].children) {
            const Entry &x = m_e[static_cast<size_t>(c)];
            if (x.kind == LineKind::Realize) {
                m_rootRealized[nodeOf(x)] = c;
                continue;
            }
            if (x.kind == LineKind::Inlined) {
                markInlined(x);
                continue;
            }
            const int node = nodeOf(x);
            const int stage = rootStageCount[node]++;
            FuncSchedule &f = schedule(node, c, ComputeLocation::Root, -1, 0);
            addStage(f, stage, c, ComputeLocation::Root);
        }
        // Every Func that is computed must be realized somewhere; block-level ones realized at root too
        // are stored in global memory, as Halide featurizes them.
        for (auto &[node, f] : m_funcs) {
            if (f.location == ComputeLocation::BlockLevel || f.location == ComputeLocation::ThreadLevel)
                f.storedAtRoot = m_rootRealized.count(node) > 0;
            if (f.location == ComputeLocation::BlockLevel) {
                if (!f.storedAtRoot && !m_blockRealized.count(node))
                    throw ParseError{"line " + std::to_string(m_firstLine[node]) + ": " + name(node) +
                                     " is computed in a gpu_block loop but has no 'realize: " + name(node) +
                                     "' line at root or in that loop"};
            }
            if (f.location == ComputeLocation::Root && !m_rootRealized.count(node))
                r.notes.push_back(name(node) + " is computed at root but the dump has no 'realize: " + name(node) +
                                  "' line at root");
            const size_t want = m_dag.node(node).stages.size();
            if (f.stages.size() != want)
                throw ParseError{"line " + std::to_string(m_firstLine[node]) + ": " + name(node) + " has " +
                                 std::to_string(want) + " stage(s) in the pipeline but the dump gives loops for " +
                                 std::to_string(f.stages.size())};
        }
        for (int node : m_inlined)
            if (m_funcs.count(node))
                throw ParseError{"line " + std::to_string(m_firstLine[node]) + ": " + name(node) +
                                 " is both inlined and computed in the dump"};

        // Add in Beamscope's scheduling order; the scheduled Funcs must be a prefix of it.
        State state(m_dag);
        const std::vector<int> &order = m_dag.scheduleOrder();
        size_t k = 0;
        for (; k < order.size(); k++) {
            const int node = order[k];
            if (m_inlined.count(node)) {
                FuncSchedule f;
                f.node = node;
                f.location = ComputeLocation::Inlined;
                state.add(f);
            } else if (auto it = m_funcs.find(node); it != m_funcs.end()) {
                state.add(it->second);
            } else {
                break;
            }
        }
        for (size_t later = k; later < order.size(); later++) {
            const int node = order[later];
            if (m_inlined.count(node) || m_funcs.count(node))
                throw ParseError{"the dump schedules " + name(node) + " but not " + name(order[k]) +
                                 ", which Beamscope schedules first (its states schedule consumers before producers, "
                                 "a partial state must be a prefix of that order)"};
        }
        checkAgainstPipeline(state, r.notes);
        r.state = std::move(state);
        return r;
    }

private:
    const SearchDag &m_dag;
    std::vector<Entry> m_e;
    DumpFuncNames m_names;
    std::map<int, FuncSchedule> m_funcs;
    std::map<int, int> m_firstLine;
    std::map<int, int> m_rootRealized, m_blockRealized, m_threadRealized, m_serialRealized; // node -> entry
    std::set<int> m_inlined;
    // (node, stage) -> its chain's entries, outermost first; block counts per loop (Root stages)
    std::map<std::pair<int, int>, std::vector<int>> m_chains;

    // Names in messages as Halide prints them (without the DAG's "$N" uniquing suffix).
    std::string name(int node) const { return baseName(m_dag.node(node).name); }
    std::string at(const Entry &x) const { return "line " + std::to_string(x.line) + ": "; }

    int nodeOf(const Entry &x)
    {
        const std::vector<int> candidates = m_names.candidates(x.func);
        if (candidates.size() > 1)
            throw ParseError{at(x) + "'" + x.func + "' names " + std::to_string(candidates.size()) +
                             " Funcs of the pipeline (ambiguous after removing Halide's $N suffixes)"};
        const int n = candidates.empty() ? -1 : candidates.front();
        if (n < 0) {
            std::string names;
            for (int i = 0; i < m_dag.nodeCount(); i++)
                if (!m_dag.node(i).isInput)
                    names += (names.empty() ? "" : ", ") + m_dag.node(i).name;
            throw ParseError{at(x) + "the pipeline has no Func '" + x.func + "' (its Funcs: " + names + ")"};
        }
        if (m_dag.node(n).isInput)
            throw ParseError{at(x) + "'" + x.func + "' is an input of the pipeline; inputs are not scheduled"};
        if (!m_firstLine.count(n))
            m_firstLine[n] = x.line;
        return n;
    }

    void markInlined(const Entry &x)
    {
        const int node = nodeOf(x);
        if (m_dag.node(node).isOutput)
            throw ParseError{at(x) + "'" + x.func + "' is an output of the pipeline and cannot be inlined"};
        m_inlined.insert(node);
    }

    FuncSchedule &schedule(int node, int entry, ComputeLocation loc, int consumer, int consumerStage,
                           bool insideSerialLoop = false)
    {
        auto [it, inserted] = m_funcs.try_emplace(node);
        FuncSchedule &f = it->second;
        if (inserted) {
            f.node = node;
            f.location = loc;
            f.consumer = consumer;
            f.consumerStage = consumerStage;
            f.insideSerialLoop = insideSerialLoop;
        } else if (f.location != loc || f.consumer != consumer || f.consumerStage != consumerStage ||
                   f.insideSerialLoop != insideSerialLoop) {
            throw ParseError{at(m_e[static_cast<size_t>(entry)]) + name(node) +
                             " is computed at two different places (Beamscope computes each Func at one place; "
                             "its stages must all sit in the same loop)"};
        }
        return f;
    }

    // The chain of one stage starting at entry `first`: the stage's loops nested in one another
    // (block > thread > serial > simd), each the only child loop of its parent with the same Func.
    // Other Funcs' loops found inside are scheduled as block/thread-level Funcs of this stage.
    void addStage(FuncSchedule &f, int stage, int first, ComputeLocation loc)
    {
        const int node = f.node;
        if (m_dag.node(node).stages.size() <= static_cast<size_t>(stage))
            throw ParseError{at(m_e[static_cast<size_t>(first)]) + name(node) + " has " +
                             std::to_string(m_dag.node(node).stages.size()) +
                             " stage(s) in the pipeline; the dump gives loops for more"};
        if (m_e[static_cast<size_t>(first)].label == "gpu_none") {
            addUntiledRootStage(f, stage, first, loc);
            return;
        }
        if (f.awaitingGpuTiling)
            throw ParseError{at(m_e[static_cast<size_t>(first)]) + name(node) + " stage " + std::to_string(stage) +
                             ": expected a gpu_none loop like its stage 0 (Halide tiles all stages of a root Func onto "
                             "the GPU in one decision), found " +
                             labelOf(m_e[static_cast<size_t>(first)])};
        const dag::Stage &st = m_dag.node(node).stages[static_cast<size_t>(stage)];
        const size_t nloops = st.loop.size();
        StageTiling t;
        t.threads.assign(nloops, 1);
        t.serial.assign(nloops, 1);
        std::vector<int64_t> blocks(nloops, 1);
        int level = 0; // 0 expect block (Root) / thread, 1 thread seen, 2 serial seen, 3 innermost
        bool sawBlock = false;
        int cur = first;
        std::vector<int> chain;
        std::map<int, int> nestedStageCount;
        while (cur >= 0) {
            const Entry &x = m_e[static_cast<size_t>(cur)];
            chain.push_back(cur);
            const std::string here = at(x) + name(node) + " stage " + std::to_string(stage) + ": ";
            if (x.sizes.size() != nloops)
                throw ParseError{here + "expected " + std::to_string(nloops) + " loop sizes (" + loopNames(st) +
                                 "), found " + std::to_string(x.sizes.size())};
            if (x.label == "gpu_none" || x.label == "gpu_parallelized")
                throw ParseError{here + "a " + x.label +
                                 " loop inside the stage's other loops; Beamscope reads a stage not yet tiled onto the "
                                 "GPU only as Halide's phase 0 prints it, one gpu_none loop at root around its "
                                 "innermost loop"};
            const bool simd = x.innermost || x.label == "gpu_simd";
            const int levelBefore = level;
            if (x.label == "gpu_block") {
                if (loc != ComputeLocation::Root)
                    throw ParseError{
                        here + "a gpu_block loop inside another Func's loops: Beamscope states have one block level, "
                               "that of compute_root stages"};
                if (sawBlock || level > 0)
                    throw ParseError{
                        here + "a second gpu_block level (or blocks inside threads), which Beamscope cannot express"};
                sawBlock = true;
                for (size_t j = 0; j < nloops; j++)
                    blocks[j] = times(blocks[j], x.sizes[j].value, here);
            } else if (x.label == "gpu_thread") {
                if (level > 1)
                    throw ParseError{here + "a gpu_thread loop inside a serial loop, which Beamscope cannot express "
                                            "(its stages are blocks x threads x serial, in that order)"};
                if (loc == ComputeLocation::ThreadLevel)
                    throw ParseError{
                        here +
                        "gpu_thread loops inside another Func's gpu_thread loop, which Beamscope cannot express"};
                level = 1;
                for (size_t j = 0; j < nloops; j++)
                    t.threads[j] = times(t.threads[j], x.sizes[j].value, here);
            } else {
                level = simd ? 3 : 2;
                for (size_t j = 0; j < nloops; j++)
                    t.serial[j] = times(t.serial[j], x.sizes[j].value, here);
            }
            if (loc == ComputeLocation::Root && !sawBlock)
                throw ParseError{here + "a compute_root stage must start with its gpu_block loop, found " +
                                 (x.label.empty() ? std::string("the innermost loop") : x.label)};
            if (x.vectorLoop >= static_cast<int>(nloops))
                throw ParseError{here + "vectorized loop index " + std::to_string(x.vectorLoop) +
                                 " but the stage has " + std::to_string(nloops) + " loops"};
            t.vectorLoop = std::max(0, x.vectorLoop);
            t.hasVectorLoop = x.vectorLoop >= 0;

            // What sits in this loop: the stage's own next loop, other Funcs, realizations, inlined Funcs.
            int next = -1;
            for (int c : x.children) {
                const Entry &y = m_e[static_cast<size_t>(c)];
                if (y.kind == LineKind::Inlined) {
                    markInlined(y);
                    continue;
                }
                if (y.kind == LineKind::Realize) {
                    const int rn = nodeOf(y);
                    if (x.label == "gpu_block")
                        m_blockRealized[rn] = c;
                    else if (x.label == "gpu_thread")
                        m_threadRealized[rn] = c;
                    else if (isThreadSerialLoop(x, loc, levelBefore))
                        m_serialRealized[rn] = c;
                    else
                        throw ParseError{at(y) + name(rn) + " is realized inside " + name(node) + "'s " +
                                         (x.label.empty() ? std::string("innermost") : x.label) +
                                         " loop; Beamscope stores Funcs at root, per block, per thread or in a "
                                         "compute_root stage's serial loop only"};
                    continue;
                }
                const int yn = nodeOf(y);
                if (yn == node) {
                    if (next >= 0)
                        throw ParseError{at(y) + "a second loop of " + name(node) +
                                         " inside one of its loops; Beamscope expects one "
                                         "chain gpu_block > gpu_thread > gpu_serial > gpu_simd per stage"};
                    next = c;
                    continue;
                }
                // Another Func computed inside this stage's loop: per block at a root stage's block
                // loop; per thread at a root or block-level stage's thread loop; per point in the
                // serial loop right inside that thread loop, or in a thread-level stage's serial loop.
                const bool inSerial = isThreadSerialLoop(x, loc, levelBefore);
                ComputeLocation yl;
                if (x.label == "gpu_block")
                    yl = ComputeLocation::BlockLevel;
                else if (x.label == "gpu_thread" || inSerial)
                    yl = ComputeLocation::ThreadLevel;
                else
                    throw ParseError{at(y) + name(yn) + " is computed inside " + name(node) + "'s " + labelOf(x) +
                                     " loop; Beamscope can compute a Func only at root, inlined, at a compute_root "
                                     "stage's gpu_block loop, at a root or block-level stage's gpu_thread loop or the "
                                     "gpu_serial loop right inside it, or in a thread-level stage's outer gpu_serial "
                                     "loop"};
                FuncSchedule &g = schedule(yn, c, yl, node, stage, inSerial);
                const int ys = nestedStageCount[yn]++;
                addStage(g, ys, c, yl);
            }
            if (next < 0 && !simd)
                throw ParseError{here + "the loop contains no further loop of " + name(node) +
                                 "; expected the chain to end in its innermost loop ('*')"};
            cur = simd ? -1 : next;
            if (simd && next >= 0)
                throw ParseError{at(m_e[static_cast<size_t>(next)]) + "a loop of " + name(node) +
                                 " inside its innermost loop"};
        }
        // Reduction loops: Beamscope runs them serially over their whole extent.
        int64_t product = 1;
        for (size_t j = 0; j < nloops; j++)
            product = times(product, t.serial[j], at(m_e[static_cast<size_t>(first)]) + name(node) + ": ");
        t.unrolled = unrollsSerialLoop(product);
        if (f.stages.size() != static_cast<size_t>(stage))
            throw ParseError{at(m_e[static_cast<size_t>(first)]) + name(node) + ": stages out of order"};
        f.stages.push_back(t);
        m_chains[{node, stage}] = chain;
        if (loc == ComputeLocation::Root)
            m_blocks[{node, stage}] = blocks;
    }

    std::map<std::pair<int, int>, std::vector<int64_t>> m_blocks;

    // The serial loop of a root or block-level stage right inside its gpu_thread loop (`level` is
    // where the chain stood before this loop: 1, the thread loop), or the outer serial loop of a
    // thread-level stage (level 0). Halide's compute_in_tiles may compute a Func there, once per point
    // a thread computes (FuncSchedule::insideSerialLoop), and store it there.
    static bool isThreadSerialLoop(const Entry &x, ComputeLocation loc, int level)
    {
        if (x.label != "gpu_serial" || x.innermost)
            return false;
        return loc == ComputeLocation::ThreadLevel ? level == 0 : level == 1;
    }

    static std::string labelOf(const Entry &x) { return x.label.empty() ? std::string("the innermost loop") : x.label; }

    // Halide's phase 0 of a Func computed at root (its phase 1 splits the loops onto the GPU): each
    // stage is one gpu_none loop over the stage's extents around its innermost loop of size 1, into
    // which Funcs decided since may be inlined. Block counts are then the loop extents (threads and
    // serial 1), which checkAgainstPipeline compares with the pipeline's.
    void addUntiledRootStage(FuncSchedule &f, int stage, int first, ComputeLocation loc)
    {
        const Entry &x = m_e[static_cast<size_t>(first)];
        const dag::Stage &st = m_dag.node(f.node).stages[static_cast<size_t>(stage)];
        const size_t nloops = st.loop.size();
        const std::string here = at(x) + name(f.node) + " stage " + std::to_string(stage) + ": ";
        if (loc != ComputeLocation::Root)
            throw ParseError{here + "a gpu_none loop inside another Func's loops; only a Func computed at root "
                                    "waits for its GPU tiling"};
        if (stage > 0 && !f.awaitingGpuTiling)
            throw ParseError{here + "a gpu_none loop, but its stage 0 is already tiled onto the GPU (Halide tiles all "
                                    "stages of a root Func in one decision)"};
        if (x.sizes.size() != nloops)
            throw ParseError{here + "expected " + std::to_string(nloops) + " loop sizes (" + loopNames(st) +
                             "), found " + std::to_string(x.sizes.size())};
        if (x.vectorLoop >= static_cast<int>(nloops))
            throw ParseError{here + "vectorized loop index " + std::to_string(x.vectorLoop) + " but the stage has " +
                             std::to_string(nloops) + " loops"};
        const int inner = untiledInnermost(f.node, x, here);
        f.awaitingGpuTiling = true;
        StageTiling t;
        t.threads.assign(nloops, 1);
        t.serial.assign(nloops, 1);
        t.vectorLoop = std::max(0, x.vectorLoop);
        t.hasVectorLoop = x.vectorLoop >= 0;
        if (f.stages.size() != static_cast<size_t>(stage))
            throw ParseError{here + "stages out of order"};
        f.stages.push_back(t);
        m_chains[{f.node, stage}] = {first, inner};
        std::vector<int64_t> &blocks = m_blocks[{f.node, stage}];
        for (const LoopSize &size : x.sizes)
            blocks.push_back(size.value);
    }

    // The only child of an untiled root loop: the stage's innermost loop, every size 1; returns its entry.
    int untiledInnermost(int node, const Entry &outer, const std::string &here)
    {
        if (outer.children.size() != 1 || m_e[static_cast<size_t>(outer.children[0])].kind != LineKind::Loop)
            throw ParseError{here +
                             "a gpu_none loop (a root Func not yet tiled onto the GPU) holds only the "
                             "stage's innermost loop, found " +
                             std::to_string(outer.children.size()) + " entries in it"};
        const int c = outer.children[0];
        const Entry &y = m_e[static_cast<size_t>(c)];
        if (nodeOf(y) != node || !y.innermost)
            throw ParseError{at(y) + "expected the innermost loop ('*') of " + name(node) +
                             " inside its gpu_none loop, found " +
                             (nodeOf(y) != node ? "a loop of " + y.func : "a loop that is not innermost")};
        if (y.sizes.size() != outer.sizes.size() ||
            std::any_of(y.sizes.begin(), y.sizes.end(), [](const LoopSize &s) { return s.value != 1; }))
            throw ParseError{at(y) + "expected the innermost loop of an untiled root stage to be one point (" +
                             std::to_string(outer.sizes.size()) + " sizes of 1)"};
        for (int g : y.children) {
            if (m_e[static_cast<size_t>(g)].kind != LineKind::Inlined)
                throw ParseError{at(m_e[static_cast<size_t>(g)]) +
                                 "expected only 'inlined:' lines inside an innermost loop"};
            markInlined(m_e[static_cast<size_t>(g)]);
        }
        return c;
    }

    static std::string loopNames(const dag::Stage &st)
    {
        std::string s;
        for (const auto &l : st.loop)
            s += (s.empty() ? "" : ", ") + l.var;
        return s;
    }

    // Cross-checks that need the finished state: block counts (an error: the pipeline's
    // estimates must be Halide's) and realized extents (notes).
    void checkAgainstPipeline(const State &state, std::vector<std::string> &notes) const
    {
        for (const auto &[key, blocks] : m_blocks) {
            const auto [node, stage] = key;
            const FuncSchedule *f = state.scheduleOf(node);
            if (!f)
                continue;
            const StageTiling &t = f->stages[static_cast<size_t>(stage)];
            const Region &loops = m_dag.rootLoops(node, stage);
            const Entry &first = m_e[static_cast<size_t>(m_chains.at(key).front())];
            for (size_t j = 0; j < loops.size(); j++) {
                const int64_t tile = times(t.threads[j], t.serial[j], at(first) + name(node) + ": "); // >= 1
                const int64_t derived = loops[j].extent() / tile + (loops[j].extent() % tile != 0);
                if (derived != blocks[j])
                    throw ParseError{at(first) + name(node) + " stage " + std::to_string(stage) + " loop " +
                                     m_dag.node(node).stages[static_cast<size_t>(stage)].loop[j].var +
                                     ": the dump has " + std::to_string(blocks[j]) + " blocks of " +
                                     std::to_string(tile) + " points, but the pipeline's loop extent " +
                                     std::to_string(loops[j].extent()) + " needs " + std::to_string(derived) +
                                     " (the pipeline or its estimates differ from the one Halide scheduled)"};
            }
        }
        // Each store site with the state's region there.
        auto compare = [&](const std::map<int, int> &realized, const char *where, auto regionOf) {
            for (const auto &[node, entry] : realized) {
                const Entry &x = m_e[static_cast<size_t>(entry)];
                if (!state.scheduleOf(node))
                    continue;
                const Region region = regionOf(node);
                std::string dump, ours;
                bool differ = region.size() != x.extents.size();
                for (size_t d = 0; d < x.extents.size(); d++) {
                    dump += (d ? ", " : "") + std::to_string(x.extents[d].value);
                    if (d < region.size()) {
                        ours += (d ? ", " : "") + std::to_string(region[d].extent());
                        differ = differ || region[d].extent() != x.extents[d].value;
                    }
                }
                if (differ)
                    notes.push_back("line " + std::to_string(x.line) + ": realize: " + name(node) + " [" + dump +
                                    "] at " + where + "; Beamscope's region for this schedule is [" + ours + "]");
            }
        };
        compare(m_rootRealized, "root", [&](int node) { return m_dag.rootComputed(node); });
        compare(m_blockRealized, "block level", [&](int node) { return state.regionPerBlock(node); });
        compare(m_threadRealized, "thread level", [&](int node) { return state.regionPerThread(node); });
        compare(m_serialRealized, "serial loop", [&](int node) { return state.computedRegion(node); });
    }
};

} // namespace

LoopNestParseResult parseLoopNestDump(const SearchDag &dag, std::string_view text)
{
    LoopNestText nest = parseLoopNestText(text);
    LoopNestParseResult result;
    if (!nest.ok()) {
        result.error = nest.error;
        return result;
    }
    try {
        Builder b(dag, std::move(nest.entries));
        result = b.build();
    } catch (const ParseError &e) {
        result.state.reset();
        result.error = e.message;
    }
    return result;
}

std::optional<State> parseLoopNest(const SearchDag &dag, std::string_view text, std::string *error)
{
    LoopNestParseResult r = parseLoopNestDump(dag, text);
    if (!r.state && error)
        *error = r.error;
    return std::move(r.state);
}

} // namespace beamscope::search
