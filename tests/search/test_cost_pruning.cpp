// Which Funcs Anderson2021 always lets be inlined however often they are recomputed
// (core/search/cost_pruning's alwaysConsideredInline): the ones trivial to inline, whatever reads
// them, and pointwise ones whose inlined consumers end in a single loop nest.

#include "tests/search/search_test_support.h"

#include "core/search/cost_pruning.h"

#include <QtTest>

using namespace beamscope;
using namespace beamscope::search;

namespace {

// copy and heavy are each read by two Funcs with their own loop nests (a and b).
test::BuiltPipeline twoReaders()
{
    Halide::ImageParam input(Halide::Float(32), 2, "input");
    Halide::Var x("x"), y("y");
    Halide::Func copy("copy"), heavy("heavy"), a("a"), b("b"), output("output");
    copy(x, y) = input(x, y);
    heavy(x, y) = Halide::sqrt(input(x, y)) * input(x + 1, y) + Halide::sin(input(x, y + 1));
    a(x, y) = copy(x, y) + copy(x, y + 1) + heavy(x, y) + heavy(x, y + 1);
    b(x, y) = copy(x + 1, y) * heavy(x + 1, y);
    output(x, y) = a(x, y) + b(x, y);
    input.set_estimates({{0, 1026}, {0, 1026}});
    output.set_estimates({{0, 1024}, {0, 1024}});
    return test::fromOutputs("two_readers", {output});
}

} // namespace

class TestCostPruning : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_pipeline = twoReaders(); }

    // Calling copy costs what inlining it does (one load), heavy's arithmetic costs more.
    void trivialToInlineIsHalidesJudgement()
    {
        const SearchDag &dag = *m_pipeline.searchDag;
        QVERIFY(dag.node(m_pipeline.node("copy")).trivialToInline);
        QVERIFY(!dag.node(m_pipeline.node("heavy")).trivialToInline);
        QVERIFY(!dag.node(m_pipeline.node("a")).trivialToInline);
    }

    // Two readers with loop nests of their own: only the trivial Func is always considered inline.
    void aTrivialFuncIsAlwaysConsideredInline()
    {
        const State state(*m_pipeline.searchDag);
        QVERIFY(alwaysConsideredInline(state, m_pipeline.node("copy")));
        QVERIFY(!alwaysConsideredInline(state, m_pipeline.node("heavy")));
        QVERIFY(!alwaysConsideredInline(state, m_pipeline.node("output")));
    }

private:
    test::BuiltPipeline m_pipeline;
};

QTEST_GUILESS_MAIN(TestCostPruning)
#include "test_cost_pruning.moc"
