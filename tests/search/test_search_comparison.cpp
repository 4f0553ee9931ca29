// core/search/golden_tree and search_comparison: reading Halide's recorded search trees
// (tests/fixtures/halide/search_trees/<p>/beam<N>) and comparing a search with one, and
// `beamscope-cli compare-search` on a real Beamscope trace.

#include "tests/search/search_test_support.h"
#include "tests/support/test_data.h"

#include "core/search/golden_tree.h"
#include "core/search/search_comparison.h"
#include "core/util/fnv1a.h"
#include "core/util/json.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace beamscope;
using namespace beamscope::search;

namespace {

std::string treeFolder(const std::string &run)
{
    const auto p = test::projectData("tests/fixtures/halide/search_trees/" + run + "/states.tsv");
    if (!p)
        throw std::runtime_error("tests/fixtures/halide/search_trees/" + run + " is missing from the project");
    return p->parent_path().string();
}

// Halide's own tree seen as a Beamscope search: the states after both of a Func's steps
// (depth 2k as depth k), with their model costs and beams.
std::vector<ComparedState> asBeamscopeSearch(const GoldenTree &g)
{
    std::vector<ComparedState> out;
    int lastDepth = 0;
    for (const GoldenState &s : g.states())
        if (s.depth % 2 == 0 && s.depth > 0 && !s.func.empty() && s.func.find("_im") == std::string::npos)
            lastDepth = std::max(lastDepth, s.depth / 2);
    for (const GoldenState &s : g.states()) {
        if (s.depth == 0 || s.depth % 2 != 0 || s.depth / 2 > lastDepth)
            continue;
        ComparedState c;
        c.pass = s.pass;
        c.depth = s.depth / 2;
        c.id = s.id;
        c.cost = g.modelCost(s);
        c.inBeam = s.rank >= 0;
        c.hash = s.hash;
        c.decision = s.func + ": phase " + std::to_string(s.phase);
        out.push_back(c);
    }
    return out;
}

} // namespace

class TestSearchComparison : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsHalidesTree()
    {
        std::string error;
        const auto g = GoldenTree::read(treeFolder("box_blur/beam1"), &error);
        QVERIFY2(g.has_value(), error.c_str());
        // The folder's README: 251 rows, final depth 6, 247 costed.
        QCOMPARE(g->states().size(), size_t{251});
        QCOMPARE(g->passes(), 1);
        QCOMPARE(g->finalDepth(), 6);
        QCOMPARE(g->at(1, 2).size(), size_t{240});
        const GoldenState *s = g->find(1, 1);
        QVERIFY(s);
        QCOMPARE(QString::fromStdString(s->func), QString("output"));
        QCOMPARE(s->phase, 0);
        QCOMPARE(fnv1aHex(s->hash), std::string("293bbc86122f15a4"));
        // Every recorded dump hashes to its state's hash.
        int dumps = 0;
        for (const GoldenState &st : g->states())
            if (const auto d = g->dump(st.pass, st.id)) {
                QCOMPARE(fnv1aHex(fnv1a(*d)), fnv1aHex(st.hash));
                dumps++;
            }
        QCOMPARE(dumps, 7);
        // A pass-through state's model cost is its costed ancestor's (blur_x inlined at depth 3).
        const GoldenState *passThrough = g->find(1, 248);
        QVERIFY(passThrough && !passThrough->costed);
        QCOMPARE(g->modelCost(*passThrough), g->find(1, 242)->cost);
    }

    void badTreeIsRefusedWithThePlace()
    {
        QTemporaryDir dir;
        const std::string folder = dir.path().toStdString();
        {
            std::ofstream s(folder + "/states.tsv");
            s << "pass\tdepth\tid\tparent\tfunc\tphase\tcosted\tcost\thash\trank\n"
                 "1\t0\t0\t-1\t-\t-\t0\t0\t6bdd70d010ad9520\t0\n"
                 "1\t1\t1\t0\toutput\t0\t1\tcheap\t293bbc86122f15a4\t0\n";
            std::ofstream(folder + "/beam_dumps.txt") << "";
        }
        std::string error;
        QVERIFY(!GoldenTree::read(folder, &error));
        QCOMPARE(
            QString::fromStdString(error),
            QString::fromStdString(folder + "/states.tsv: line 3: column cost: expected a number, found \"cheap\""));
        QVERIFY(!GoldenTree::read(folder + "/absent", &error));
        QVERIFY2(error.find("absent/states.tsv: cannot read it") != std::string::npos, error.c_str());
    }

    // Halide's tree against itself: nothing differs; then each kind of difference is the one reported.
    void findsTheFirstDivergence()
    {
        std::string error;
        const auto g = GoldenTree::read(treeFolder("box_blur/beam32"), &error);
        QVERIFY2(g.has_value(), error.c_str());
        std::vector<ComparedState> same = asBeamscopeSearch(*g);
        const SearchComparison c = compareSearch(same, *g);
        QVERIFY2(!c.first.found, formatComparison(c).c_str());
        QCOMPARE(c.passes.size(), size_t{5});
        QCOMPARE(c.passes[0].depths.size(), size_t{2}); // output, blur_x
        QCOMPARE(c.passes[0].depths[0].halide, size_t{240});
        QCOMPARE(c.passes[0].depths[0].common, size_t{240});
        QCOMPARE(c.passes[0].depths[0].halideBeam, size_t{32});
        QCOMPARE(c.passes[0].halideCosted, size_t{2348});
        QCOMPARE(c.passes[0].halideBest, 0.488598317);

        // A state of pass 2, depth 1 missing: the children differ there, and the example is Halide's.
        std::vector<ComparedState> missing = same;
        const auto gone = std::find_if(missing.begin(), missing.end(),
                                       [](const ComparedState &s) { return s.pass == 2 && s.depth == 1; });
        const uint64_t goneHash = gone->hash;
        missing.erase(gone);
        SearchComparison d = compareSearch(missing, *g);
        QVERIFY(d.first.found);
        QCOMPARE(d.first.pass, 2);
        QCOMPARE(d.first.depth, 1);
        QCOMPARE(d.first.goldenDepth, 2);
        QCOMPARE(QString::fromStdString(d.first.what.substr(0, 9)), QString("children:"));
        QVERIFY(d.first.halide && d.first.halide->hash == goneHash);
        // Not a beam member, so the report shows its parent, output computed at root untiled.
        QVERIFY(d.first.halideDump.empty() || d.first.halide->rank >= 0);
        if (d.first.halideDump.empty())
            QVERIFY(d.first.halideParentDump.find("gpu_none\n output 1vc") != std::string::npos);

        // One cost off by 1e-4: "costs", at that state.
        std::vector<ComparedState> costed = same;
        auto changed = std::find_if(costed.begin(), costed.end(),
                                    [](const ComparedState &s) { return s.pass == 1 && s.depth == 2; });
        changed->cost *= 1.0001;
        d = compareSearch(costed, *g);
        QCOMPARE(d.first.pass, 1);
        QCOMPARE(d.first.depth, 2);
        QCOMPARE(QString::fromStdString(d.first.what.substr(0, 6)), QString("costs:"));
        QCOMPARE(d.first.ours->id, changed->id);
        // ... but 1e-6 is within the tolerance.
        costed = same;
        std::find_if(costed.begin(), costed.end(), [](const ComparedState &s) {
            return s.pass == 1 && s.depth == 2;
        })->cost *= 1.000001;
        QVERIFY(!compareSearch(costed, *g).first.found);

        // A different beam member at pass 1, depth 1.
        std::vector<ComparedState> beam = same;
        for (ComparedState &s : beam)
            if (s.pass == 1 && s.depth == 1) {
                s.inBeam = !s.inBeam;
                break;
            }
        d = compareSearch(beam, *g);
        QCOMPARE(d.first.pass, 1);
        QCOMPARE(d.first.depth, 1);
        QCOMPARE(QString::fromStdString(d.first.what.substr(0, 5)), QString("beam:"));
    }

    // The command on a real search: Beamscope's box_blur at beam 1 against Halide's.
    void compareSearchCommand()
    {
        QTemporaryDir dir;
        const std::string trace = dir.filePath("box_blur.jsonl").toStdString();
        const auto weights = test::projectData("weights/anderson2021/baseline.weights");
        QVERIFY(weights);
        test::ProcessResult r = test::runProcess(test::cliPath(), {"autoschedule", "--app", "box_blur", "--beam", "1",
                                                                   "--weights", weights->string(), "--trace", trace});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        r = test::runProcess(test::cliPath(),
                             {"compare-search", "--trace", trace, "--golden", treeFolder("box_blur/beam1"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const auto j = parseJson(r.out);
        QVERIFY2(j.value.has_value(), r.out.c_str());
        const Json *passes = j.value->find("passes");
        QVERIFY(passes && passes->items().size() == 1);
        const Json &pass = passes->items()[0];
        // The search takes Halide's steps, so the two trees are the same, depth for depth: the
        // same states costed, the same loop nests, the same beam, the same winner (0.503959).
        QCOMPARE(pass.find("costed_halide")->toInt(), int64_t{247});
        QCOMPARE(pass.find("costed_ours")->toInt(), int64_t{247});
        const std::vector<Json> &depths = pass.find("depths")->items();
        QCOMPARE(depths.size(), size_t(6)); // output, blur_x and input_im, two steps each
        QCOMPARE(QString::fromStdString(depths[1].find("func")->toString()), QString("output"));
        QCOMPARE(depths[1].find("states_halide")->toInt(), int64_t{240}); // the output's tilings
        for (const Json &d : depths) {
            QCOMPARE(d.find("states_ours")->toInt(), d.find("states_halide")->toInt());
            QCOMPARE(d.find("states_same")->toInt(), d.find("states_halide")->toInt());
            QCOMPARE(d.find("beam_same")->toInt(), d.find("beam_halide")->toInt());
        }
        QVERIFY(std::fabs(pass.find("best_ours")->toNumber() - pass.find("best_halide")->toNumber()) <= 1e-6);

        // Text output names the first divergence; a folder that is not a tree is an error naming the file.
        r = test::runProcess(test::cliPath(),
                             {"compare-search", "--trace", trace, "--golden", dir.path().toStdString()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find("states.tsv: cannot read it") != std::string::npos, r.err.c_str());
    }
};

QTEST_MAIN(TestSearchComparison)
#include "test_search_comparison.moc"
