// The search on Halide's steps (beam_search.h, halide_steps.h) against Halide's recorded search
// trees (tests/fixtures/halide/search_trees; with BEAMSCOPE_SEARCH_TREES=shared/golden/search_trees
// all twelve runs): each golden pipeline is searched with baseline.weights at the run's beam size
// and passes, as Halide ran it, and the trace is compared with Halide's tree state for state
// (compareSearch: per pass and depth the same loop nests by hash, the same costs within 1e-5
// relative, the same beam). Asserted per run: how far the two trees agree (the first divergence,
// or none), the number of states costed, the winner's cost against Halide's, and that every state
// costs as Halide costed it (but for 70 states of stencil_chain_u16 at beam 32, outside every
// beam, see test_phase0_children).

#include "tests/search/search_test_support.h"
#include "tests/support/test_data.h"

#include "core/model/cost_model.h"
#include "core/search/beam_search.h"
#include "core/search/golden_tree.h"
#include "core/search/search_comparison.h"
#include "core/weights/weights.h"

#include <QtTest>

#include <cmath>
#include <map>

using namespace beamscope;
using namespace beamscope::search;

namespace {

// Relative, as test_partial_states': the model reproduces Halide's predictions within 7.3e-6 on
// identical features.
constexpr double kCostTolerance = 1e-5;

} // namespace

class TestHalideSearch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void reproducesHalidesTrees_data()
    {
        QTest::addColumn<QString>("pipeline");
        QTest::addColumn<int>("beam");
        for (const char *p : {"box_blur", "histogram", "matmul", "select_cast", "conv_relu", "stencil_chain_u16"})
            for (int beam : {1, 32})
                QTest::newRow((std::string(p) + "/beam" + std::to_string(beam)).c_str()) << QString(p) << beam;
    }

    void reproducesHalidesTrees()
    {
        QFETCH(QString, pipeline);
        QFETCH(int, beam);
        const std::string run = pipeline.toStdString() + "/beam" + std::to_string(beam);
        std::optional<GoldenTree> g;
        try {
            g = test::readTree(run);
        } catch (const std::exception &e) {
            QFAIL(e.what());
        }
        if (!g)
            QSKIP("recorded tree not in the fixtures; set BEAMSCOPE_SEARCH_TREES to shared/golden/search_trees");
        const test::BuiltPipeline p = test::buildRegistered(pipeline.toStdString());
        const model::CostModel model = test::baselineModel();
        AutoscheduleParams params;
        params.beamSize = beam;
        params.randomDropoutSeed = 1;
        SearchTrace trace(1u << 30);
        trace.pipeline = pipeline.toStdString();
        const SearchResult r = BeamSearch(*p.searchDag, model, params).run(&trace, nullptr);
        QVERIFY(r.best);
        QVERIFY(trace.params.halideSteps);
        const std::vector<ComparedState> ours = comparedStates(trace, *p.searchDag);
        const SearchComparison c = compareSearch(ours, *g, kCostTolerance, true);
        qInfo().noquote() << QString::fromStdString(run + ": " + std::to_string(r.statesEvaluated) +
                                                    " states costed, best " + std::to_string(r.cost) + "\n" +
                                                    formatComparison(c));

        // The same tree: every depth of every pass has Halide's states (by loop-nest hash) and
        // Halide's beam, and each pass costs as many states and ends on Halide's result.
        QCOMPARE(static_cast<int>(c.passes.size()), g->passes());
        for (const PassComparison &pc : c.passes) {
            const std::string where = run + " pass " + std::to_string(pc.pass);
            QVERIFY2(pc.oursStates == pc.halideCosted, where.c_str());
            QVERIFY2(std::fabs(pc.oursBest - pc.halideBest) <= kCostTolerance * pc.halideBest, where.c_str());
            QCOMPARE(static_cast<int>(pc.depths.size()), g->finalDepth());
            for (const DepthComparison &dc : pc.depths) {
                const std::string at = where + " depth " + std::to_string(dc.depth);
                QVERIFY2(dc.ours == dc.halide && dc.common == dc.halide, at.c_str());
                QVERIFY2(dc.oursBeam == dc.halideBeam && dc.commonBeam == dc.halideBeam, at.c_str());
            }
        }

        // The same costs, state for state, wherever the state's decision computes its Func (at
        // root, at a block loop, at a thread loop or inside its serial loop, or inlined); any state
        // costed otherwise is counted by that location and fails the run.
        std::map<std::string, int> offByLocation;
        for (const ComparedState &s : ours) {
            const GoldenState *h = nullptr;
            for (const GoldenState *x : g->at(s.pass, s.depth))
                if (x->hash == s.hash)
                    h = x;
            QVERIFY(h);
            if (std::fabs(s.cost - h->cost) <= kCostTolerance * std::fabs(h->cost))
                continue;
            const Json &detail = trace.find(s.id)->detail;
            offByLocation[detail.find("location") ? detail.find("location")->toString() : "?"]++;
        }
        std::string off;
        for (const auto &[location, count] : offByLocation)
            off += " " + location + " " + std::to_string(count);
        qInfo().noquote() << QString::fromStdString(
            run + ": states costed unlike Halide, by location:" + (off.empty() ? std::string(" none") : off));
        // The one known exception, in the full recorded set only: 70 block-level states of
        // stencil_chain_u16 at beam 32, 2.5e-5 to 3e-5 off, none in a beam (test_phase0_children).
        if (run == "stencil_chain_u16/beam32" && offByLocation.size() == 1 && offByLocation.count("block") &&
            offByLocation["block"] <= 70)
            return;
        QVERIFY2(offByLocation.empty(), (run + ": states costed unlike Halide, by location:" + off).c_str());
    }
};

QTEST_GUILESS_MAIN(TestHalideSearch)
#include "test_halide_search.moc"
