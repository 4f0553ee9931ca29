// core/search/halide_root_tilings against Halide's recorded search trees
// (tests/fixtures/halide/search_trees): for a Func Halide has just computed at root, the
// children it made in phase 1 are exactly Beamscope's halideRootTilings, compared by the
// FNV-1a hash of each child's loop-nest dump and in Halide's generation (id) order.
//
// Cases: the first Func (the output, Halide's depths 1-2) of all six pipelines, every pass
// of the recorded runs; and every deeper root Func of pass 1 whose phase-1 children Halide
// generated afresh (the first parent in the beam to tile that Func: Halide memoizes the
// accepted tilings per Func and vector dimension and hands later parents copies of those,
// which this test does not model).

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
#include <set>

using namespace beamscope;
using namespace beamscope::search;

namespace {

std::optional<GoldenTree> readTree(const std::string &run)
{
    const auto p = test::projectData("tests/fixtures/halide/search_trees/" + run + "/states.tsv");
    if (!p)
        return std::nullopt;
    std::string error;
    auto g = GoldenTree::read(p->parent_path().string(), &error);
    if (!g)
        throw std::runtime_error(error);
    return g;
}

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
    return s.legalityProblem(kMaxThreadsPerBlock, device.sharedMemoryLimitBytes, device.activeWarpLimit).empty();
}

// The dump hashes of Beamscope's Halide tilings of `node` in `base` (where it is computed at root).
std::vector<uint64_t> ourChildren(const State &base, int node, int vectorDim)
{
    const SearchDag &d = base.dag();
    std::vector<Region> loops;
    for (size_t s = 0; s < d.node(node).stages.size(); s++)
        loops.push_back(d.rootLoops(node, static_cast<int>(s)));
    std::vector<uint64_t> out;
    const auto accept = [&](const FuncTiling &t) { return legal(withTiling(base, node, t)); };
    for (const FuncTiling &t : halideRootTilings(d.node(node), loops, vectorDim, FeatureParams{}.parallelism, accept)) {
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

struct Case {
    std::string label;
    std::vector<uint64_t> halide, ours;
};

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
        const auto g = readTree(run.toStdString());
        if (!g)
            QSKIP("this run's tree is not among the fixtures");
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
                const std::vector<uint64_t> ours = ourChildren(empty, output, 0);
                QVERIFY2(ours == halide,
                         ("pass " + std::to_string(pass) + ": " + describeMismatch(halide, ours)).c_str());
                parents++;
            }
        QVERIFY(parents > 0);
    }
};

QTEST_GUILESS_MAIN(TestRootTilings)
#include "test_root_tilings.moc"
