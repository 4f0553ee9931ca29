// core/search/halide_root_tilings against Halide's recorded search trees
// (tests/fixtures/halide/search_trees): for a Func Halide has just computed at root, the
// children it made in phase 1 are exactly Beamscope's halideRootTilings, compared by the
// FNV-1a hash of each child's loop-nest dump and in Halide's generation (id) order.
//
// Cases: the first Func (the output, Halide's depths 1-2) of all six pipelines, every pass
// of the recorded runs; and every deeper root Func, every pass: the first parent in the beam
// to tile that Func gets fresh tilings, later ones copies (Halide memoizes the accepted
// tilings per Func and vector dimension, checked again in each parent's state; the test
// models that memo too).
//
// Every case checked is exact. Not checked: a parent none of whose children was a beam member,
// since without a recorded dump the parent's state cannot be rebuilt (its own dump, an untiled
// root Func, is not parseable); the test prints how many (beam-32 runs only: box_blur 2,
// select_cast 1, stencil_chain_u16 201 of its 300 parents). Of Halide's calculate_cost
// rejections only the serial-extent limit (in halideRootTilings) removed tilings here; the
// thread and shared-memory limits (State::legalityProblem) are applied but never fired, and
// nothing is yet computed inside a Func's kernel when Halide tiles it (its producers are
// decided later), so no other Func constrains these tilings.

#include "tests/search/search_test_support.h"
#include "tests/support/test_data.h"

#include "core/search/featurizer.h"
#include "core/search/golden_tree.h"
#include "core/search/halide_root_tilings.h"
#include "core/search/loop_nest_parser.h"
#include "core/search/thread_info.h"
#include "core/util/fnv1a.h"

#include <QtTest>

#include <map>
#include <regex>
#include <set>

using namespace beamscope;
using namespace beamscope::search;

namespace {

// `base` with `node` computed at root and tiled by `tiling` (every other Func as it was).
State withTiling(const State &base, int node, const FuncTiling &tiling)
{
    State s(base.dag());
    for (FuncSchedule f : base.funcs()) {
        if (f.node == node)
            f.stages = tiling;
        s.add(std::move(f));
    }
    if (!base.scheduleOf(node)) {
        FuncSchedule f;
        f.node = node;
        f.location = ComputeLocation::Root;
        f.stages = tiling;
        s.add(std::move(f));
    }
    return s;
}

// The rejections of Halide's State::calculate_cost that a root tiling can trigger.
bool legal(const State &s)
{
    const FeatureParams device;
    const bool ok =
        s.legalityProblem(kMaxThreadsPerBlock, device.sharedMemoryLimitBytes, device.activeWarpLimit).empty();
    if (!ok && std::getenv("SHOW_TILINGS"))
        qInfo() << "rejected by legalityProblem";
    return ok;
}

// The dump hashes of Beamscope's Halide tilings of `node` in `base` (where it is computed at root).
std::vector<FuncTiling> ourTilings(const State &base, int node, int vectorDim)
{
    const SearchDag &d = base.dag();
    std::vector<Region> loops;
    for (size_t s = 0; s < d.node(node).stages.size(); s++)
        loops.push_back(d.rootLoops(node, static_cast<int>(s)));
    const auto accept = [&](const FuncTiling &t) { return legal(withTiling(base, node, t)); };
    return halideRootTilings(d.node(node), loops, vectorDim, FeatureParams{}.parallelism, accept);
}

// The dump hashes of `base` with `node` tiled by each of `tilings` that is legal there.
std::vector<uint64_t> hashesOf(const State &base, int node, const std::vector<FuncTiling> &tilings)
{
    std::vector<uint64_t> out;
    for (const FuncTiling &t : tilings) {
        if (!legal(withTiling(base, node, t)))
            continue;
        const std::string dump = withTiling(base, node, t).halideLoopNest();
        out.push_back(fnv1a(dump));
        if (std::getenv("SHOW_TILINGS"))
            qInfo().noquote() << QString::fromStdString(fnv1aHex(out.back()) + "\n" + dump);
    }
    return out;
}

std::vector<uint64_t> halidesChildren(const GoldenTree &g, const GoldenState &parent)
{
    std::vector<uint64_t> out;
    for (const GoldenState *c : g.at(parent.pass, parent.depth + 1))
        if (c->parent == parent.id)
            out.push_back(c->hash);
    return out;
}

std::string describeMismatch(const std::vector<uint64_t> &halide, const std::vector<uint64_t> &ours)
{
    const std::set<uint64_t> h(halide.begin(), halide.end()), o(ours.begin(), ours.end());
    size_t common = 0;
    for (uint64_t x : o)
        common += h.count(x);
    size_t firstDiff = 0;
    while (firstDiff < halide.size() && firstDiff < ours.size() && halide[firstDiff] == ours[firstDiff])
        firstDiff++;
    return "Halide " + std::to_string(halide.size()) + ", ours " + std::to_string(ours.size()) + ", common " +
           std::to_string(common) + ", equal up to position " + std::to_string(firstDiff);
}

// The dimension `func` is vectorized over in an untiled dump (its loop line "<func> 1536 2560 (0, 0)
// t gpu_none" names the vectorized loop and dimension), -1 when the dump has no such line.
int vectorDimIn(const std::string &dump, const std::string &func)
{
    const std::regex line("(^|\n)" + func + " [^(\n]*\\((-?[0-9]+), (-?[0-9]+)\\)");
    std::smatch m;
    return std::regex_search(dump, m, line) ? std::stoi(m[3].str()) : -1;
}

std::vector<const GoldenState *> byRank(std::vector<const GoldenState *> states)
{
    std::erase_if(states, [](const GoldenState *s) { return s->rank < 0; });
    std::sort(states.begin(), states.end(),
              [](const GoldenState *a, const GoldenState *b) { return a->rank < b->rank; });
    return states;
}

} // namespace

class TestRootTilings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void outputsTilingsAreHalides_data()
    {
        QTest::addColumn<QString>("run");
        for (const char *p : {"box_blur", "stencil_chain_u16", "matmul", "histogram", "conv_relu", "select_cast"})
            for (const char *b : {"beam1", "beam32"})
                QTest::newRow((std::string(p) + "/" + b).c_str()) << QString("%1/%2").arg(p, b);
    }

    // Depth 1 is the output placed at root, untiled; its children at depth 2 are the output's tilings.
    void outputsTilingsAreHalides()
    {
        QFETCH(QString, run);
        const auto g = test::readTree(run.toStdString());
        if (!g)
            QSKIP("this run's tree is not among the fixtures (BEAMSCOPE_SEARCH_TREES may name a folder with it)");
        const test::BuiltPipeline p = test::buildRegistered(run.section('/', 0, 0).toStdString());
        const SearchDag &d = *p.searchDag;
        const int output = d.scheduleOrder().front();
        const State empty(d);
        int parents = 0;
        for (int pass = 1; pass <= g->passes(); pass++)
            for (const GoldenState *parent : g->at(pass, 1)) {
                if (parent->rank < 0)
                    continue;
                const std::vector<uint64_t> halide = halidesChildren(*g, *parent);
                const std::vector<uint64_t> ours = hashesOf(empty, output, ourTilings(empty, output, 0));
                QVERIFY2(ours == halide,
                         ("pass " + std::to_string(pass) + ": " + describeMismatch(halide, ours)).c_str());
                if (pass == 1)
                    qInfo().noquote() << run << d.node(output).name.c_str() << ": Halide" << halide.size()
                                      << "children, ours" << ours.size();
                parents++;
            }
        QVERIFY(parents > 0);
    }

    void deeperRootFuncsTilingsAreHalides_data() { outputsTilingsAreHalides_data(); }

    // A Func placed at root by a phase-0 beam state P (depth 2k - 1): Halide's children of P are its
    // tilings. The base state is one of those children that was a beam member (its dump is recorded)
    // with that Func's tiling replaced. Halide tiles a Func afresh only for the first parent that
    // reaches it with a given vector dimension and hands later parents the tilings it accepted there
    // (SearchSpace's memoized blocks), each checked again in the new state.
    void deeperRootFuncsTilingsAreHalides()
    {
        QFETCH(QString, run);
        const auto g = test::readTree(run.toStdString());
        if (!g)
            QSKIP("this run's tree is not among the fixtures (BEAMSCOPE_SEARCH_TREES may name a folder with it)");
        const test::BuiltPipeline p = test::buildRegistered(run.section('/', 0, 0).toStdString());
        const SearchDag &d = *p.searchDag;
        int fresh = 0, memoized = 0, withoutBase = 0;
        for (int pass = 1; pass <= g->passes(); pass++)
            for (int depth = 3; depth < g->finalDepth(); depth += 2) {
                std::map<int, std::optional<std::vector<FuncTiling>>> memo; // vector dimension -> accepted
                for (const GoldenState *parent : byRank(g->at(pass, depth))) {
                    std::vector<const GoldenState *> children;
                    for (const GoldenState *c : g->at(pass, depth + 1))
                        if (c->parent == parent->id)
                            children.push_back(c);
                    if (children.empty() || !children.front()->costed)
                        continue; // not computed at root (or an input): a pass-through
                    const int node = p.node(parent->func);
                    const int vectorDim = vectorDimIn(*g->dump(pass, parent->id), parent->func);
                    QVERIFY(node >= 0 && vectorDim >= 0);
                    std::optional<State> base;
                    for (const GoldenState *c : children)
                        if (const auto dump = g->dump(pass, c->id)) {
                            LoopNestParseResult r = parseLoopNestDump(d, *dump);
                            QVERIFY2(r.state.has_value(), r.error.c_str());
                            base = std::move(r.state);
                            break;
                        }
                    // Halide's choice of vector dimension in phase 0, which the tilings follow.
                    QCOMPARE(halideRootVectorDim(d.node(node), d.rootLoops(node, 0)), vectorDim);
                    const bool first = !memo.count(vectorDim);
                    if (!base) {
                        if (first)
                            memo[vectorDim] = std::nullopt; // Halide's list for later parents is unknown here
                        withoutBase++;
                        continue;
                    }
                    if (first)
                        memo[vectorDim] = ourTilings(*base, node, vectorDim);
                    if (!memo[vectorDim])
                        continue;
                    const std::vector<uint64_t> ours = hashesOf(*base, node, *memo[vectorDim]);
                    const std::vector<uint64_t> halide = halidesChildren(*g, *parent);
                    QVERIFY2(ours == halide,
                             ("pass " + std::to_string(pass) + " depth " + std::to_string(depth + 1) + " " +
                              parent->func + " (parent " + std::to_string(parent->id) +
                              (first ? ", fresh" : ", memoized") + "): " + describeMismatch(halide, ours))
                                 .c_str());
                    if (first)
                        qInfo().noquote() << run << "pass" << pass << "depth" << depth + 1 << parent->func.c_str()
                                          << "(fresh): Halide" << halide.size() << "children, ours" << ours.size();
                    (first ? fresh : memoized)++;
                }
            }
        qInfo().noquote() << run << ": parents checked" << fresh << "fresh," << memoized
                          << "memoized; without a recorded child" << withoutBase;
    }
};

QTEST_GUILESS_MAIN(TestRootTilings)
#include "test_root_tilings.moc"
