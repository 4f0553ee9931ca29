// A child's featurization starts from its parent's (computeFeatures with a parent Featurization):
// on Halide's apps, every state a search costs must get the very features a whole featurization
// gives it. With BEAMSCOPE_CHECK_FEATURE_REUSE set (here, before the first featurization), every
// featurization that reuses is redone whole and compared bit for bit; a difference throws, naming
// the stage and the feature, and fails the row. The rows cover the shapes that once broke the rule:
// stages reading an input the decided Func also reads (bilateral_grid, unsharp), long chains of
// inlined Funcs (camera_pipe), Funcs computed inside kernels (bilateral_grid's blury), and beams
// wider than one with several passes (the coarse-to-fine penalties pick other parents, and the
// depth's StageFeatureMemo hands one beam state's root stage features to the others).

#include "tests/search/search_test_support.h"

#include "core/search/beam_search.h"
#include "core/search/featurizer.h"
#include "core/search/halide_steps.h"

#include <QtTest>

#include <stdexcept>

using namespace beamscope;
using namespace beamscope::search;

class TestFeatureReuse : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qputenv("BEAMSCOPE_CHECK_FEATURE_REUSE", "1"); }

    void searchesCostWhatWholeFeaturizationsGive_data()
    {
        QTest::addColumn<QString>("app");
        QTest::addColumn<int>("beam");
        QTest::addColumn<int>("passes");
        for (const char *app : {"bilateral_grid", "unsharp", "hist", "harris", "iir_blur", "max_filter", "conv_layer",
                                "depthwise_separable_conv", "nl_means", "camera_pipe", "stencil_chain"})
            QTest::newRow((std::string(app) + " beam 1").c_str()) << QString(app) << 1 << 1;
        for (const char *app : {"bilateral_grid", "unsharp", "hist", "harris", "max_filter"})
            QTest::newRow((std::string(app) + " beam 3, 2 passes").c_str()) << QString(app) << 3 << 2;
    }
    void searchesCostWhatWholeFeaturizationsGive()
    {
        QFETCH(QString, app);
        QFETCH(int, beam);
        QFETCH(int, passes);
        const test::BuiltPipeline p = test::buildRegistered(app.toStdString());
        const model::CostModel model = test::baselineModel();
        AutoscheduleParams params;
        params.beamSize = beam;
        params.numPasses = passes;
        params.threads = 1;
        try {
            const SearchResult r = BeamSearch(*p.searchDag, model, params).run(nullptr, nullptr);
            QVERIFY(r.best.has_value());
            QVERIFY(r.statesEvaluated > 0);
        } catch (const std::logic_error &e) {
            QFAIL(e.what());
        }
    }

    // The rule's other half: a child whose featurization may not reuse (the decided Func is read by
    // every stage) still equals a whole featurization, and a child of an empty state reuses nothing.
    void childrenOfEveryDepthEqualWholeFeaturizations()
    {
        const test::BuiltPipeline p = test::buildRegistered("unsharp");
        AutoscheduleParams params;
        State state(*p.searchDag);
        Featurization featurized = computeFeatures(state, params.device, nullptr, true);
        const int decisions = halideDecisionCount(*p.searchDag);
        int compared = 0;
        for (int depth = 0; depth < decisions; depth++) {
            StepOptions options;
            std::vector<StepChild> children = halideStepChildren(state, depth, params, options, &featurized);
            QVERIFY2(!children.empty(), qPrintable(QString("no children at depth %1").arg(depth)));
            for (const StepChild &c : children) {
                if (c.passThrough)
                    continue;
                std::vector<float> whole;
                packFeatures(computeFeatures(c.stateFrom(state), params.device), whole);
                QVERIFY(c.rows == whole);
                compared++;
            }
            // Go on from the last child, as a beam of one that took it would.
            StepChild &next = children.back();
            state = next.stateFrom(state);
            if (!next.passThrough)
                featurized = computeFeatures(state, params.device, nullptr, true);
        }
        QVERIFY(state.complete());
        QVERIFY(compared > 20);
    }
};

QTEST_GUILESS_MAIN(TestFeatureReuse)
#include "test_feature_reuse.moc"
