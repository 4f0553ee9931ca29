#include "core/search/loop_nest_parser.h"
#include "core/util/halide_names.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace beamscope::search {

namespace {

constexpr int64_t kUnrollLimit = 16; // tiling.cpp's unroll limit (Halide's kUnrollLimitGPU)

struct ParseError {
    std::string message;
};

std::vector<std::string> splitTokens(std::string_view line) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            i++;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r')
            j++;
        if (j > i)
            out.emplace_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

bool isLabel(const std::string &t) {
    return t == "gpu_block" || t == "gpu_thread" || t == "gpu_serial" || t == "gpu_simd" || t == "gpu_none" ||
           t == "gpu_parallelized";
}

// A name as Halide prints it and as the DAG holds it may differ by a "$N" uniquing suffix.
std::string baseName(const std::string &name) { return baseFuncName(name); }

struct Size {
    int64_t value = 0;
    bool vectorized = false;
    bool constant = false;
};

// "16", "64c", "1vc": digits then any of 'v', 'c'.
std::optional<Size> parseSize(const std::string &t) {
    size_t i = 0;
    Size s;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
        if (s.value > (int64_t(1) << 50))
            return std::nullopt;
        s.value = s.value * 10 + (t[i] - '0');
        i++;
    }
    if (i == 0)
        return std::nullopt;
    for (; i < t.size(); i++) {
        if (t[i] == 'v')
            s.vectorized = true;
        else if (t[i] == 'c')
            s.constant = true;
        else
            return std::nullopt;
    }
    return s;
}

std::optional<int> parseInt(std::string_view t) {
    if (t.empty())
        return std::nullopt;
    bool negative = t[0] == '-';
    size_t i = negative ? 1 : 0;
    if (i == t.size())
        return std::nullopt;
    int v = 0;
    for (; i < t.size(); i++) {
        if (t[i] < '0' || t[i] > '9' || v > 100000000)
            return std::nullopt;
        v = v * 10 + (t[i] - '0');
    }
    return negative ? -v : v;
}

enum class LineKind { Root, Realize, Inlined, Loop };

struct Entry {
    LineKind kind = LineKind::Loop;
    int line = 0;
    int indent = 0;
    std::string func;
    // Loop
    std::vector<Size> sizes;
    int vectorLoop = -1, vectorDim = -1;
    bool innermost = false;
    std::string label; // "" for an innermost loop printed without one
    // Realize
    std::vector<Size> extents;
    int stages = 0;
    // Inlined
    int64_t calls = 0;
    // Tree
    int parent = -1;
    std::vector<int> children; // all entries nested here, in print order
};

std::string found(const std::string &t) { return "'" + t + "'"; }

// One line of the dump -> an Entry, or a ParseError naming what was expected.
Entry parseLine(int number, std::string_view text) {
    Entry e;
    e.line = number;
    while (static_cast<size_t>(e.indent) < text.size() && text[static_cast<size_t>(e.indent)] == ' ')
        e.indent++;
    const std::vector<std::string> tok = splitTokens(text);
    const std::string where = "line " + std::to_string(number) + ": ";
    if (tok.empty())
        throw ParseError{where + "expected a loop-nest line, found an empty line"};
    if (std::all_of(tok.begin(), tok.end(), [](const std::string &t) { return t == "gpu_none" || t == "t"; }) &&
        tok.back() == "gpu_none") {
        e.kind = LineKind::Root;
        return e;
    }
    if (tok[0] == "realize:") {
        // realize: NAME [e0, e1c] with K stages
        e.kind = LineKind::Realize;
        if (tok.size() < 5 || tok[tok.size() - 1] != "stages" || tok[tok.size() - 3] != "with")
            throw ParseError{where + "expected 'realize: NAME [extents] with K stages', found '" + std::string(text) + "'"};
        e.func = tok[1];
        const auto k = parseInt(tok[tok.size() - 2]);
        if (!k || *k < 1)
            throw ParseError{where + "expected a stage count after 'with', found " + found(tok[tok.size() - 2])};
        e.stages = *k;
        std::string list;
        for (size_t i = 2; i + 3 < tok.size(); i++)
            list += tok[i];
        if (list.size() < 2 || list.front() != '[' || list.back() != ']')
            throw ParseError{where + "expected a bracketed extent list such as [64c, 4c], found " + found(list)};
        std::string item;
        std::istringstream items(list.substr(1, list.size() - 2));
        while (std::getline(items, item, ',')) {
            if (item.empty() && list == "[]")
                break;
            const auto s = parseSize(item);
            if (!s)
                throw ParseError{where + "expected an extent such as 64 or 64c in the realize list, found " + found(item)};
            e.extents.push_back(*s);
        }
        return e;
    }
    if (tok[0] == "inlined:") {
        e.kind = LineKind::Inlined;
        if (tok.size() < 2)
            throw ParseError{where + "expected 'inlined: NAME CALLS', found '" + std::string(text) + "'"};
        e.func = tok[1];
        if (tok.size() >= 3) {
            const auto s = parseSize(tok[2]);
            if (!s || tok.size() > 3)
                throw ParseError{where + "expected a call count after 'inlined: " + e.func + "', found " + found(tok[2])};
            e.calls = s->value;
        }
        return e;
    }
    // NAME sizes... (v, d) [t] [*] [p] [label]
    e.kind = LineKind::Loop;
    e.func = tok[0];
    size_t i = 1;
    for (; i < tok.size() && tok[i][0] != '('; i++) {
        const auto s = parseSize(tok[i]);
        if (!s)
            throw ParseError{where + "expected a loop size such as 16, 16c or 1vc after '" + e.func + "', found " + found(tok[i])};
        e.sizes.push_back(*s);
    }
    if (i + 1 >= tok.size() || tok[i].size() < 3 || tok[i].back() != ',' || tok[i + 1].back() != ')')
        throw ParseError{where + "expected '(vectorized loop, vector dim)' such as (0, 0) after the sizes of '" + e.func +
                         "', found " + (i < tok.size() ? found(tok[i]) : std::string("the end of the line"))};
    const auto v = parseInt(std::string_view(tok[i]).substr(1, tok[i].size() - 2));
    const auto d = parseInt(std::string_view(tok[i + 1]).substr(0, tok[i + 1].size() - 1));
    if (!v || !d)
        throw ParseError{where + "expected two integers in '" + tok[i] + " " + tok[i + 1] + "'"};
    e.vectorLoop = *v;
    e.vectorDim = *d;
    for (i += 2; i < tok.size(); i++) {
        if (tok[i] == "t" || tok[i] == "p")
            continue;
        if (tok[i] == "*") {
            e.innermost = true;
            continue;
        }
        if (isLabel(tok[i]) && i + 1 == tok.size()) {
            e.label = tok[i];
            continue;
        }
        throw ParseError{where + "expected 't', '*' or a GPU label (gpu_block, gpu_thread, gpu_serial, gpu_simd) at the end of '" +
                         e.func + "''s loop, found " + found(tok[i])};
    }
    if (e.label.empty() && !e.innermost)
        throw ParseError{where + "expected a GPU label (gpu_block, gpu_thread, gpu_serial, gpu_simd) at the end of the line, found " +
                         found(tok.back())};
    return e;
}

bool looksLikeNestLine(std::string_view text) {
    const std::vector<std::string> tok = splitTokens(text);
    if (tok.empty())
        return false;
    if (tok[0] == "realize:" || tok[0] == "inlined:")
        return true;
    return isLabel(tok.back()) || tok.back() == "*";
}

class Builder {
public:
    Builder(const SearchDag &dag, std::vector<Entry> entries) : m_dag(dag), m_e(std::move(entries)) {
        for (int n = 0; n < dag.nodeCount(); n++) {
            m_byName[dag.node(n).name].push_back(n);
            if (baseName(dag.node(n).name) != dag.node(n).name)
                m_byBase[baseName(dag.node(n).name)].push_back(n);
        }
    }

    LoopNestParseResult build() {
        LoopNestParseResult r;
        buildTree();
        // The root's own entries: realizations, compute_root stages, inlined Funcs (a Func inlined into
        // a root-level innermost... cannot occur, but is accepted).
        const int root = m_root;
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
            addStage(f, stage, c, ComputeLocation::Root, node, stage);
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
    int m_root = -1;
    std::map<int, FuncSchedule> m_funcs;
    std::map<int, int> m_firstLine;
    std::map<int, int> m_rootRealized, m_blockRealized, m_threadRealized; // node -> entry
    std::set<int> m_inlined;
    // (node, stage) -> its chain's entries, outermost first; block counts per loop (Root stages)
    std::map<std::pair<int, int>, std::vector<int>> m_chains;

    // Names in messages as Halide prints them (without the DAG's "$N" uniquing suffix).
    std::string name(int node) const { return baseName(m_dag.node(node).name); }
    std::string at(const Entry &x) const { return "line " + std::to_string(x.line) + ": "; }

    int nodeOf(const Entry &x) {
        auto pick = [&](const std::vector<int> &v) -> int {
            if (v.size() > 1)
                throw ParseError{at(x) + "'" + x.func + "' names " + std::to_string(v.size()) +
                                 " Funcs of the pipeline (ambiguous after removing Halide's $N suffixes)"};
            return v.empty() ? -1 : v[0];
        };
        int n = -1;
        if (auto it = m_byName.find(x.func); it != m_byName.end())
            n = pick(it->second);
        if (n < 0)
            if (auto it = m_byName.find(baseName(x.func)); it != m_byName.end())
                n = pick(it->second);
        if (n < 0)
            if (auto it = m_byBase.find(baseName(x.func)); it != m_byBase.end())
                n = pick(it->second);
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

    void buildTree() {
        // Halide indents every nested entry by one more space than its parent loop's line; the
        // root's entries are not indented.
        if (m_e.empty())
            throw ParseError{"expected a loop nest (a ' gpu_none' root line followed by its loops), found no loop-nest lines"};
        if (m_e[0].kind != LineKind::Root)
            throw ParseError{at(m_e[0]) + "expected the root line ' gpu_none' first, found a " +
                             (m_e[0].kind == LineKind::Loop ? "loop of '" + m_e[0].func + "'" : std::string("'") +
                              (m_e[0].kind == LineKind::Realize ? "realize:" : "inlined:") + "' line")};
        m_root = 0;
        std::vector<std::pair<int, int>> open = {{0, 0}}; // (entry, indent of its children)
        for (size_t i = 1; i < m_e.size(); i++) {
            Entry &x = m_e[i];
            if (x.kind == LineKind::Root)
                throw ParseError{at(x) + "expected one root line ' gpu_none', found a second one (two loop nests in one text?)"};
            while (!open.empty() && open.back().second > x.indent)
                open.pop_back();
            if (open.empty() || open.back().second != x.indent) {
                const int want = open.empty() ? 0 : open.back().second;
                throw ParseError{at(x) + "expected an indentation of " + std::to_string(want) + " (or less) spaces, found " +
                                 std::to_string(x.indent)};
            }
            const int parent = open.back().first;
            if (m_e[static_cast<size_t>(parent)].kind == LineKind::Loop && m_e[static_cast<size_t>(parent)].innermost &&
                x.kind == LineKind::Loop)
                throw ParseError{at(x) + "expected only 'inlined:' lines inside the innermost loop of '" +
                                 m_e[static_cast<size_t>(parent)].func + "', found a loop of '" + x.func + "'"};
            x.parent = parent;
            m_e[static_cast<size_t>(parent)].children.push_back(static_cast<int>(i));
            if (x.kind == LineKind::Loop)
                open.push_back({static_cast<int>(i), x.indent + 1});
        }
    }

    void markInlined(const Entry &x) {
        const int node = nodeOf(x);
        if (m_dag.node(node).isOutput)
            throw ParseError{at(x) + "'" + x.func + "' is an output of the pipeline and cannot be inlined"};
        m_inlined.insert(node);
    }

    FuncSchedule &schedule(int node, int entry, ComputeLocation loc, int consumer, int consumerStage) {
        auto [it, inserted] = m_funcs.try_emplace(node);
        FuncSchedule &f = it->second;
        if (inserted) {
            f.node = node;
            f.location = loc;
            f.consumer = consumer;
            f.consumerStage = consumerStage;
        } else if (f.location != loc || f.consumer != consumer || f.consumerStage != consumerStage) {
            throw ParseError{at(m_e[static_cast<size_t>(entry)]) + name(node) +
                             " is computed at two different places (Beamscope computes each Func at one place; "
                             "its stages must all sit in the same loop)"};
        }
        return f;
    }

    // The chain of one stage starting at entry `first`: the stage's loops nested in one another
    // (block > thread > serial > simd), each the only child loop of its parent with the same Func.
    // Other Funcs' loops found inside are scheduled as block/thread-level Funcs of this stage.
    void addStage(FuncSchedule &f, int stage, int first, ComputeLocation loc, int ownerNode, int ownerStage) {
        const int node = f.node;
        if (m_dag.node(node).stages.size() <= static_cast<size_t>(stage))
            throw ParseError{at(m_e[static_cast<size_t>(first)]) + name(node) + " has " +
                             std::to_string(m_dag.node(node).stages.size()) +
                             " stage(s) in the pipeline; the dump gives loops for more"};
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
                throw ParseError{here + "expected " + std::to_string(nloops) + " loop sizes (" + loopNames(st) + "), found " +
                                 std::to_string(x.sizes.size())};
            if (x.label == "gpu_none" || x.label == "gpu_parallelized")
                throw ParseError{here + "the loop is labelled " + x.label +
                                 ": a partially scheduled stage (not yet tiled into GPU blocks and threads), which a "
                                 "Beamscope state cannot express"};
            const bool simd = x.innermost || x.label == "gpu_simd";
            if (x.label == "gpu_block") {
                if (loc != ComputeLocation::Root)
                    throw ParseError{here + "a gpu_block loop inside another Func's loops: Beamscope states have one block level, "
                                            "that of compute_root stages"};
                if (sawBlock || level > 0)
                    throw ParseError{here + "a second gpu_block level (or blocks inside threads), which Beamscope cannot express"};
                sawBlock = true;
                for (size_t j = 0; j < nloops; j++)
                    blocks[j] *= x.sizes[j].value;
            } else if (x.label == "gpu_thread") {
                if (level > 1)
                    throw ParseError{here + "a gpu_thread loop inside a serial loop, which Beamscope cannot express "
                                            "(its stages are blocks x threads x serial, in that order)"};
                if (loc == ComputeLocation::ThreadLevel)
                    throw ParseError{here + "gpu_thread loops inside another Func's gpu_thread loop, which Beamscope cannot express"};
                level = 1;
                for (size_t j = 0; j < nloops; j++)
                    t.threads[j] *= x.sizes[j].value;
            } else {
                level = simd ? 3 : 2;
                for (size_t j = 0; j < nloops; j++)
                    t.serial[j] *= x.sizes[j].value;
            }
            if (loc == ComputeLocation::Root && !sawBlock)
                throw ParseError{here + "a compute_root stage must start with its gpu_block loop, found " +
                                 (x.label.empty() ? std::string("the innermost loop") : x.label)};
            if (x.vectorLoop >= static_cast<int>(nloops))
                throw ParseError{here + "vectorized loop index " + std::to_string(x.vectorLoop) + " but the stage has " +
                                 std::to_string(nloops) + " loops"};
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
                    else
                        throw ParseError{at(y) + name(rn) + " is realized inside " + name(node) + "'s " +
                                         (x.label.empty() ? std::string("innermost") : x.label) +
                                         " loop; Beamscope stores Funcs at root, per block or per thread only"};
                    continue;
                }
                const int yn = nodeOf(y);
                if (yn == node) {
                    if (next >= 0)
                        throw ParseError{at(y) + "a second loop of " + name(node) + " inside one of its loops; Beamscope expects one "
                                                 "chain gpu_block > gpu_thread > gpu_serial > gpu_simd per stage"};
                    next = c;
                    continue;
                }
                // Another Func computed inside this stage's loop.
                if (loc != ComputeLocation::Root)
                    throw ParseError{at(y) + name(yn) + " is computed inside " + name(node) +
                                     ", which is not compute_root; Beamscope computes Funcs only inside compute_root stages"};
                ComputeLocation yl;
                if (x.label == "gpu_block")
                    yl = ComputeLocation::BlockLevel;
                else if (x.label == "gpu_thread")
                    yl = ComputeLocation::ThreadLevel;
                else
                    throw ParseError{at(y) + name(yn) + " is computed inside " + name(node) + "'s " +
                                     (x.label.empty() ? std::string("innermost") : x.label) +
                                     " loop; Beamscope can compute a Func only at root, inlined, or at a consumer's "
                                     "gpu_block or gpu_thread loop"};
                FuncSchedule &g = schedule(yn, c, yl, ownerNode, ownerStage);
                const int ys = nestedStageCount[yn]++;
                addStage(g, ys, c, yl, ownerNode, ownerStage);
            }
            if (next < 0 && !simd)
                throw ParseError{here + "the loop contains no further loop of " + name(node) +
                                 "; expected the chain to end in its innermost loop ('*')"};
            cur = simd ? -1 : next;
            if (simd && next >= 0)
                throw ParseError{at(m_e[static_cast<size_t>(next)]) + "a loop of " + name(node) + " inside its innermost loop"};
        }
        // Reduction loops: Beamscope runs them serially over their whole extent.
        int64_t product = 1;
        for (size_t j = 0; j < nloops; j++)
            product *= t.serial[j];
        t.unrolled = product > 1 && product <= kUnrollLimit;
        if (f.stages.size() != static_cast<size_t>(stage))
            throw ParseError{at(m_e[static_cast<size_t>(first)]) + name(node) + ": stages out of order"};
        f.stages.push_back(t);
        m_chains[{node, stage}] = chain;
        if (loc == ComputeLocation::Root)
            m_blocks[{node, stage}] = blocks;
    }

    std::map<std::pair<int, int>, std::vector<int64_t>> m_blocks;

    static std::string loopNames(const dag::Stage &st) {
        std::string s;
        for (const auto &l : st.loop)
            s += (s.empty() ? "" : ", ") + l.var;
        return s;
    }

    // Cross-checks that need the finished state: block counts (an error: the pipeline's
    // estimates must be Halide's) and realized extents (notes).
    void checkAgainstPipeline(const State &state, std::vector<std::string> &notes) const {
        for (const auto &[key, blocks] : m_blocks) {
            const auto [node, stage] = key;
            const FuncSchedule *f = state.scheduleOf(node);
            if (!f)
                continue;
            const StageTiling &t = f->stages[static_cast<size_t>(stage)];
            const Region &loops = m_dag.rootLoops(node, stage);
            const Entry &first = m_e[static_cast<size_t>(m_chains.at(key).front())];
            for (size_t j = 0; j < loops.size(); j++) {
                const int64_t tile = t.threads[j] * t.serial[j];
                const int64_t derived = (loops[j].extent() + tile - 1) / tile;
                if (derived != blocks[j])
                    throw ParseError{at(first) + name(node) + " stage " + std::to_string(stage) + " loop " +
                                     m_dag.node(node).stages[static_cast<size_t>(stage)].loop[j].var + ": the dump has " +
                                     std::to_string(blocks[j]) + " blocks of " + std::to_string(tile) +
                                     " points, but the pipeline's loop extent " + std::to_string(loops[j].extent()) +
                                     " needs " + std::to_string(derived) +
                                     " (the pipeline or its estimates differ from the one Halide scheduled)"};
            }
        }
        auto compare = [&](const std::map<int, int> &realized, const char *where) {
            for (const auto &[node, entry] : realized) {
                const Entry &x = m_e[static_cast<size_t>(entry)];
                const FuncSchedule *f = state.scheduleOf(node);
                if (!f)
                    continue;
                const bool atRoot = std::string(where) == "root";
                const Region region = atRoot                              ? m_dag.rootComputed(node)
                                      : std::string(where) == "block level" ? state.regionPerBlock(node)
                                                                            : state.computedRegion(node);
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
                    notes.push_back("line " + std::to_string(x.line) + ": realize: " + name(node) + " [" + dump + "] at " +
                                    where + "; Beamscope's region for this schedule is [" + ours + "]");
            }
        };
        compare(m_rootRealized, "root");
        compare(m_blockRealized, "block level");
        compare(m_threadRealized, "thread level");
    }

    std::map<std::string, std::vector<int>> m_byName, m_byBase;
};

} // namespace

std::string_view findLoopNest(std::string_view text, int *firstLine) {
    const std::string_view marker = "** Optimal schedule:";
    const size_t m = text.rfind(marker);
    if (m == std::string_view::npos) {
        if (firstLine)
            *firstLine = 1;
        return text;
    }
    size_t start = text.find('\n', m);
    start = start == std::string_view::npos ? text.size() : start + 1;
    if (firstLine)
        *firstLine = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
    size_t end = start;
    while (end < text.size()) {
        size_t eol = text.find('\n', end);
        if (eol == std::string_view::npos)
            eol = text.size();
        if (!looksLikeNestLine(text.substr(end, eol - end)))
            break;
        end = eol == text.size() ? eol : eol + 1;
    }
    return text.substr(start, end - start);
}

LoopNestParseResult parseLoopNestDump(const SearchDag &dag, std::string_view text) {
    int firstLine = 1;
    const std::string_view nest = findLoopNest(text, &firstLine);
    LoopNestParseResult result;
    try {
        std::vector<Entry> entries;
        int number = firstLine;
        size_t pos = 0;
        while (pos < nest.size()) {
            size_t eol = nest.find('\n', pos);
            if (eol == std::string_view::npos)
                eol = nest.size();
            std::string_view line = nest.substr(pos, eol - pos);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            const bool blank = line.find_first_not_of(" \t") == std::string_view::npos;
            if (!blank && line[0] != '#')
                entries.push_back(parseLine(number, line));
            pos = eol + 1;
            number++;
        }
        Builder b(dag, std::move(entries));
        result = b.build();
    } catch (const ParseError &e) {
        result.state.reset();
        result.error = e.message;
    }
    return result;
}

std::optional<State> parseLoopNest(const SearchDag &dag, std::string_view text, std::string *error) {
    LoopNestParseResult r = parseLoopNestDump(dag, text);
    if (!r.state && error)
        *error = r.error;
    return std::move(r.state);
}

} // namespace beamscope::search
