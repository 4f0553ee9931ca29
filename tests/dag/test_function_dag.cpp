// The FunctionDAG and its PipelineFeatures: element-for-element agreement with
// Halide's own featurizer on the golden pipelines, footprints of known
// stencils, stage order, and clear errors for missing estimates.

#include "core/dag/function_dag.h"
#include "core/search/search_dag.h"
#include "core/pipelines/pipeline.h"
#include "tests/dag/golden_features.h"
#include "tests/support/test_data.h"
#include "core/util/halide_names.h"

#include <QtTest>

#include <algorithm>
#include <cctype>
#include <sstream>

using namespace beamscope;
using namespace Halide;

namespace {

// Halide 14 renames a Func whose name is already taken in the process
// ("output" -> "output$3"); the golden data names the first copy.
QString baseName(const std::string &name) { return QString::fromStdString(baseFuncName(name)); }

// The same renaming inside printed expressions: drops "$<digits>" (but keeps
// RDom names such as "r$x").
std::string unnumbered(const std::string &text) { return withoutUniqueSuffixes(text); }

// Every differing element, "stage row type: ours vs golden", one per line.
std::string describeDifferences(const std::string &stage, const dag::PipelineFeatures &ours,
                                const dag::PipelineFeatures &golden)
{
    std::ostringstream out;
    for (int t = 0; t < dag::kScalarTypeCount; t++)
        if (ours.typesInUse[t] != golden.typesInUse[t])
            out << stage << " types_in_use " << dag::scalarTypeName(t) << ": " << ours.typesInUse[t] << " vs "
                << golden.typesInUse[t] << "\n";
    for (int r = 0; r < dag::kFeatureRows; r++)
        for (int t = 0; t < dag::kScalarTypeCount; t++)
            if (ours.matrix[r][t] != golden.matrix[r][t])
                out << stage << " " << dag::featureRowName(r) << " " << dag::scalarTypeName(t) << ": "
                    << ours.matrix[r][t] << " vs " << golden.matrix[r][t] << "\n";
    return out.str();
}

} // namespace

class TestFunctionDag : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void goldenFeatures_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *n : {"box_blur", "stencil_chain_u16", "matmul", "histogram", "conv_relu", "select_cast"})
            QTest::newRow(n) << QString(n);
    }

    // Exact: features are integer counts, so any difference is a real one.
    void goldenFeatures()
    {
        QFETCH(QString, name);
        const std::string pipeline = name.toStdString();
        BEAMSCOPE_REQUIRE_DATA(file, "tests/fixtures/halide/pipelines/" + pipeline + "/pipeline_features.txt");
        const auto golden = test::readGoldenFeatures(file);

        auto info = pipelines::findPipeline(pipeline);
        QVERIFY(info);
        const pipelines::PipelineInstance p = info->build();
        const dag::FunctionDAG dag(p.outputs);
        const auto stages = dag.costModelStages();
        QCOMPARE(stages.size(), golden.size());
        std::string differences;
        for (size_t i = 0; i < stages.size(); i++) {
            const dag::Stage &s = dag.stage(stages[i]);
            QCOMPARE(baseName(s.node->name), QString::fromStdString(golden[i].func));
            QCOMPARE(s.index, golden[i].definition);
            differences += describeDifferences(s.name, s.features, golden[i].features);
        }
        if (!differences.empty())
            qWarning("%s", (pipeline + " differs from Halide's features:\n" + differences + dag.dump()).c_str());
        QVERIFY2(differences.empty(), differences.c_str());
    }

    void goldenEdges_data() { goldenFeatures_data(); }

    // Footprints as printed expressions (Halide 14's printer gives the same text
    // as v19's for these pipelines) and load Jacobians, edge by edge.
    void goldenEdges()
    {
        QFETCH(QString, name);
        const std::string pipeline = name.toStdString();
        BEAMSCOPE_REQUIRE_DATA(file, "tests/fixtures/halide/pipelines/" + pipeline + "/dag_dump.txt");
        const auto golden = test::readGoldenEdges(file);
        const dag::FunctionDAG dag(pipelines::findPipeline(pipeline)->build().outputs);
        QCOMPARE(dag.edges.size(), golden.size());
        for (const dag::Edge &e : dag.edges) {
            const dag::Node &consumer = dag.nodes[e.consumerNode];
            const std::string producerName = unnumbered(dag.nodes[e.producer].name);
            std::string consumerName = unnumbered(consumer.name);
            if (e.consumerStage > 0)
                consumerName += ".update(" + std::to_string(e.consumerStage - 1) + ")";
            const test::GoldenEdge *g = nullptr;
            for (const auto &candidate : golden)
                if (candidate.producer == producerName && candidate.consumer == consumerName)
                    g = &candidate;
            QVERIFY2(g, (producerName + " -> " + consumerName + " is not in the golden DAG").c_str());
            std::vector<std::string> footprint;
            for (size_t d = 0; d < e.bounds.size(); d++) {
                std::ostringstream mn, mx;
                mn << e.bounds[d].first;
                mx << e.bounds[d].second;
                footprint.push_back("Min " + std::to_string(d) + ": " + unnumbered(mn.str()));
                footprint.push_back("Max " + std::to_string(d) + ": " + unnumbered(mx.str()));
            }
            QCOMPARE(footprint, g->footprint);
            std::vector<std::string> jacobians;
            for (const dag::LoadJacobian &j : e.loadJacobians) {
                std::string text = std::to_string(j.count) + ":";
                for (const auto &row : j.matrix) {
                    text += " [";
                    for (const dag::JacobianEntry &c : row)
                        text += " " + (!c.known ? std::string("_")
                                       : c.denominator == 1
                                           ? std::to_string(c.numerator)
                                           : std::to_string(c.numerator) + "/" + std::to_string(c.denominator));
                    text += " ]";
                }
                jacobians.push_back(text);
            }
            auto expected = g->jacobians;
            std::sort(jacobians.begin(), jacobians.end());
            std::sort(expected.begin(), expected.end());
            QCOMPARE(jacobians, expected);
        }
    }

    // Hand-counted features of box_blur's blur_x (no shared data needed):
    // (in(x,y) + in(x+1,y) + in(x+2,y)) / 3 simplifies to a multiply by 1/3.
    void boxBlurFeaturesByHand()
    {
        auto info = pipelines::findPipeline("box_blur");
        QVERIFY(info);
        const dag::FunctionDAG dag(info->build().outputs);
        const auto stages = dag.costModelStages();
        QCOMPARE(stages.size(), size_t(2));
        const dag::Stage &blurX = dag.stage(stages[1]);
        QCOMPARE(baseName(blurX.node->name), QString("blur_x"));
        QCOMPARE(blurX.index, 0);
        auto f = blurX.features;
        const int u32 = int(dag::ScalarType::UInt32), f32 = int(dag::ScalarType::Float);
        QCOMPARE(f.op(dag::OpType::Variable, dag::ScalarType::UInt32), 8); // x,y three times + the two store args
        QCOMPARE(f.op(dag::OpType::Const, dag::ScalarType::UInt32), 2);    // 1, 2
        QCOMPARE(f.op(dag::OpType::Add, dag::ScalarType::Float), 2);
        QCOMPARE(f.op(dag::OpType::Mul, dag::ScalarType::Float), 1);
        QCOMPARE(f.op(dag::OpType::Div, dag::ScalarType::Float), 0);
        QCOMPARE(f.op(dag::OpType::FuncCall, dag::ScalarType::Float), 3); // through input_im
        QCOMPARE(f.access(dag::AccessPattern::Pointwise, dag::AccessType::LoadFunc, dag::ScalarType::Float), 3);
        QCOMPARE(f.access(dag::AccessPattern::Slice, dag::AccessType::Store, dag::ScalarType::Float), 1);
        QCOMPARE(f.typesInUse[u32], 1);
        QCOMPARE(f.typesInUse[f32], 1);
        QCOMPARE(f.typesInUse[int(dag::ScalarType::Double)], 0);
        // The input wrapper is a node, but not a stage.
        bool sawInput = false;
        for (const dag::Node &n : dag.nodes)
            if (baseName(n.name) == "input_im") {
                sawInput = true;
                QVERIFY(n.isInput);
            }
        QVERIFY(sawInput);
    }

    void updatesComeFirstInStageOrder()
    {
        auto info = pipelines::findPipeline("matmul");
        QVERIFY(info);
        const dag::FunctionDAG dag(info->build().outputs);
        QStringList names;
        for (const auto &ref : dag.costModelStages())
            names << baseName(dag.stage(ref).node->name) + "_s" + QString::number(dag.stage(ref).index);
        QCOMPARE(names, (QStringList{"output_s0", "prod_s1", "prod_s0"}));
    }

    void stencilFootprint()
    {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func producer("producer"), consumer("consumer");
        producer(x, y) = in(x, y) * 2.0f;
        Expr sum = 0.0f;
        for (int dy = 0; dy < 3; dy++)
            for (int dx = 0; dx < 3; dx++)
                sum += producer(x + dx, y + dy);
        consumer(x, y) = sum;
        in.set_estimates({{0, 102}, {0, 102}});
        consumer.set_estimates({{0, 100}, {0, 100}});
        const dag::FunctionDAG dag({consumer});

        const dag::Edge *edge = nullptr;
        for (const dag::Edge &e : dag.edges)
            if (baseName(dag.nodes[e.producer].name) == "producer")
                edge = &e;
        QVERIFY(edge);
        QCOMPARE(edge->calls, 9);
        // Consumer loops over [0,10) x [0,10) (inclusive max 9) need [0,12) x [0,12).
        const auto region = dag.producerRegion(*edge, {{0, 9}, {0, 9}});
        QCOMPARE(region.size(), size_t(2));
        QCOMPARE(region[0], (dag::Span{0, 11}));
        QCOMPARE(region[1], (dag::Span{0, 11}));
        const auto shifted = dag.producerRegion(*edge, {{5, 14}, {-3, 6}});
        QCOMPARE(shifted[0], (dag::Span{5, 16}));
        QCOMPARE(shifted[1], (dag::Span{-3, 8}));
        // Nine call sites with the identity Jacobian merge into one record.
        QCOMPARE(edge->loadJacobians.size(), size_t(1));
        QCOMPARE(edge->loadJacobians[0].count, 9);

        // From the output estimate all the way to the input wrapper.
        const auto required = dag.estimatedRegionsRequired();
        for (const dag::Node &n : dag.nodes) {
            if (baseName(n.name) == "producer" || baseName(n.name) == "in_im") {
                QCOMPARE(required[n.id][0], (dag::Span{0, 101}));
                QCOMPARE(required[n.id][1], (dag::Span{0, 101}));
            }
        }
    }

    void downsampleJacobianIsRational()
    {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func down("down");
        down(x, y) = in(2 * x, y / 2);
        in.set_estimates({{0, 200}, {0, 50}});
        down.set_estimates({{0, 100}, {0, 100}});
        const dag::FunctionDAG dag({down});
        QCOMPARE(dag.edges.size(), size_t(1));
        const auto &j = dag.edges[0].loadJacobians.at(0).matrix;
        QCOMPARE(j[0][0].numerator, int64_t(2));
        QCOMPARE(j[1][1].numerator * 2, j[1][1].denominator);
        QCOMPARE(dag.producerRegion(dag.edges[0], {{0, 9}, {0, 9}})[0], (dag::Span{0, 18}));
    }

    // Store Jacobians as Halide derives them (iir_blur's scans): a constant coordinate is a row of
    // zeros, a flipped scan coordinate is -1 along its reduction loop, a data-dependent one unknown.
    void storeJacobianDifferentiatesTheStoreCoordinates()
    {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func scan("scan"), out("out");
        scan(x, y) = undef<float>();
        scan(x, 0) = in(x, 0);
        RDom r(1, 99, "r");
        scan(x, 99 - r) = scan(x, 100 - r) + in(x, r);
        scan(x, clamp(cast<int>(in(x, 0)), 0, 99)) += 1.0f;
        out(x, y) = scan(x, y);
        in.set_estimates({{0, 64}, {0, 100}});
        out.set_estimates({{0, 64}, {0, 100}});
        const dag::FunctionDAG dag({out});
        const dag::Node &n = dag.nodes.at(1);
        QCOMPARE(QString::fromStdString(n.name), QString("scan"));
        auto entry = [&](int stage, int coordinate, const std::string &loop) {
            const dag::Stage &s = n.stages.at(static_cast<size_t>(stage));
            for (size_t j = 0; j < s.loop.size(); j++)
                if (s.loop[j].var == loop)
                    return s.storeJacobian.at(static_cast<size_t>(coordinate)).at(j);
            return dag::JacobianEntry{};
        };
        // scan(x, 0): x along x, the constant row all zeros (known).
        QVERIFY(entry(1, 0, "x").isOne());
        QVERIFY(entry(1, 1, "x").isZero());
        // scan(x, 99 - r): -1 along r, 0 along x.
        QVERIFY(entry(2, 1, "x").isZero());
        QVERIFY(entry(2, 1, "x").known);
        QCOMPARE(entry(2, 1, "r$x").known, true);
        QCOMPARE(entry(2, 1, "r$x").numerator, int64_t(-1));
        QVERIFY(entry(2, 0, "x").isOne());
        // A data-dependent coordinate is unknown along the loop it reads with.
        QCOMPARE(entry(3, 1, "x").known, false);
        // The search reads the same Jacobians.
        const search::SearchDag searchDag(dag);
        QVERIFY(searchDag.storeJacobian(1, 2) == n.stages[2].storeJacobian);
    }

    // Anderson2021 adds Jacobian terms testing their denominators with a bitwise and: x / 8 + 1 is
    // unknown there (8 & 1 == 0), while x / 8 alone is 1/8.
    void jacobianSumsFollowHalidesDenominatorTest()
    {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func a("a"), b("b"), out("out");
        a(x, y) = in(x / 8 + 1, y);
        b(x, y) = in(x / 8, y);
        out(x, y) = a(x, y) + b(x, y);
        in.set_estimates({{0, 200}, {0, 64}});
        out.set_estimates({{0, 64}, {0, 64}});
        const dag::FunctionDAG dag({out});
        auto entryFrom = [&](const std::string &consumer) {
            for (const dag::Edge &e : dag.edges)
                if (dag.nodes[static_cast<size_t>(e.consumerNode)].name == consumer &&
                    dag.nodes[static_cast<size_t>(e.producer)].isInput)
                    return e.loadJacobians.at(0).matrix.at(0).at(0);
            return dag::JacobianEntry{true, -99, 1};
        };
        QCOMPARE(entryFrom("a").known, false);
        QCOMPARE(entryFrom("b").known, true);
        QCOMPARE(entryFrom("b").numerator * 8, entryFrom("b").denominator);
    }

    void missingOutputEstimateNamesFuncAndDimension()
    {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y");
        Func out("blurred_output");
        out(x, y) = in(x, y) + 1.0f;
        out.set_estimate(x, 0, 64); // y has none
        in.set_estimates({{0, 64}, {0, 64}});
        try {
            dag::FunctionDAG dag({out});
            QFAIL("expected a DagError");
        } catch (const dag::DagError &e) {
            const QString message = e.what();
            QVERIFY2(message.contains("blurred_output") && message.contains("dimension 1") && message.contains("(y)"),
                     e.what());
        }
    }

    void missingParamEstimateNamesParam()
    {
        Param<float> k("strength");
        Var x("x");
        Func out("out");
        out(x) = k * cast<float>(x);
        out.set_estimate(x, 0, 16);
        try {
            dag::FunctionDAG dag({out});
            QFAIL("expected a DagError");
        } catch (const dag::DagError &e) {
            QVERIFY2(QString(e.what()).contains("strength"), e.what());
        }
        k.set_estimate(2.0f);
        QCOMPARE(dag::FunctionDAG({out}).costModelStages().size(), size_t(1));
    }

    // A Func the generator scheduled itself (Halide 14's cuda_mat_mul applies its schedule
    // whatever auto_schedule says): the refusal says what to do about the schedule, and
    // says nothing of estimates, which are all set.
    void alreadyScheduledFuncIsRefusedWithWhatToDo()
    {
        ImageParam in(Float(32), 2, "in");
        Var x("x"), y("y"), xi("xi");
        Func out("prescheduled");
        out(x, y) = in(x, y) * 2.0f;
        out.split(x, x, xi, 8);
        out.set_estimates({{0, 64}, {0, 64}});
        in.set_estimates({{0, 64}, {0, 64}});
        try {
            dag::FunctionDAG dag({out});
            QFAIL("expected a DagError");
        } catch (const dag::DagError &e) {
            const QString message = e.what();
            QVERIFY2(message.contains("prescheduled") && message.contains("already scheduled") &&
                         message.contains("auto_schedule=true") && !message.contains("estimate"),
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestFunctionDag)
#include "test_function_dag.moc"
