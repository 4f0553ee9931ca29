// Every state Halide's recorded searches costed into a beam (tests/fixtures/halide/search_trees/
// beam_states.txt: 1369 states of the six golden pipelines at beam 1 and 32, partial ones included),
// read from Halide's dump, written back, featurized and costed on its decided stages, against
// Halide's total and per-stage costs.
//
// The kinds: complete states; tiled partial states (some Funcs undecided, which Halide's featurizer
// places at the deepest valid compute location, core/search/featurizer.h); phase-0 states (a root
// Func not yet tiled onto the GPU, featurized on the warp split Halide's feature root makes), with
// or without undecided Funcs. Tolerance 1e-5 relative, as for the golden schedules: the model
// reproduces Halide's predictions within 7.3e-6 on identical features.

#include "tests/search/search_test_support.h"
#include "tests/support/test_data.h"

#include "core/model/cost_model.h"
#include "core/search/beam_search.h"
#include "core/search/loop_nest_parser.h"
#include "core/util/fnv1a.h"
#include "core/util/json.h"
#include "core/weights/weights.h"

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

using namespace beamscope;
using namespace beamscope::search;

namespace {

constexpr double kCostTolerance = 1e-5;

struct RecordedState {
    std::string header; // "=== <pipeline> beam<N> pass ... stage_costs ..."
    std::string pipeline;
    double cost = 0;
    std::string hash;
    std::vector<double> stageCosts;
    std::string dump;
};

std::vector<RecordedState> readBeamStates(const std::string &text)
{
    std::vector<RecordedState> out;
    size_t pos = text.rfind("=== ", 0) == 0 ? 0 : text.find("\n=== ");
    while (pos != std::string::npos) {
        const size_t start = text[pos] == '\n' ? pos + 1 : pos;
        const size_t headerEnd = text.find('\n', start);
        const size_t next = text.find("\n=== ", headerEnd);
        RecordedState s;
        s.header = text.substr(start, headerEnd - start);
        s.dump = text.substr(headerEnd + 1, next == std::string::npos ? std::string::npos : next - headerEnd);
        pos = next;
        std::istringstream h(s.header);
        std::string marks, beam, word;
        h >> marks >> s.pipeline >> beam;
        while (h >> word)
            if (word == "cost")
                h >> s.cost;
            else if (word == "hash")
                h >> s.hash;
            else if (word == "stage_costs") {
                std::string list, c;
                h >> list;
                std::istringstream costs(list);
                while (std::getline(costs, c, ','))
                    s.stageCosts.push_back(std::stod(c));
            }
        out.push_back(std::move(s));
    }
    return out;
}

// A Func's loop at root still labelled gpu_none: Halide's phase 0 placed it, phase 1 has not tiled it.
bool hasUntiledRoot(const std::string &dump)
{
    std::istringstream ls(dump);
    std::string line;
    std::getline(ls, line); // " gpu_none", the root itself
    while (std::getline(ls, line))
        if (!line.empty() && line[0] != ' ' && line.size() > 9 && line.compare(line.size() - 9, 9, " gpu_none") == 0)
            return true;
    return false;
}

bool close(double found, double expected)
{
    return std::fabs(found - expected) <= kCostTolerance * std::fabs(expected);
}

} // namespace

class TestPartialStates : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyRecordedBeamStateCostsAsHalide()
    {
        BEAMSCOPE_REQUIRE_DATA(path, "tests/fixtures/halide/search_trees/beam_states.txt");
        const std::vector<RecordedState> states = readBeamStates(test::readFile(path));
        QCOMPARE(states.size(), size_t{1369});
        const auto weightsPath = test::projectData("weights/anderson2021/baseline.weights");
        QVERIFY(weightsPath);
        auto loaded = weights::loadWeights(*weightsPath);
        QVERIFY(loaded.ok());
        const model::CostModel model(*loaded.weights);

        std::map<std::string, test::BuiltPipeline> pipelines;
        std::map<std::string, std::pair<int, int>> byKind; // kind -> (matched, total)
        int reported = 0;
        for (const RecordedState &s : states) {
            // The dump is Halide's, byte for byte: its FNV-1a is the tree's hash.
            QCOMPARE(fnv1aHex(fnv1a(s.dump)), s.hash);
            auto it = pipelines.find(s.pipeline);
            if (it == pipelines.end())
                it = pipelines.emplace(s.pipeline, test::buildRegistered(s.pipeline)).first;
            const SearchDag &d = *it->second.searchDag;

            const LoopNestParseResult r = parseLoopNestDump(d, s.dump);
            QVERIFY2(r.state.has_value(), (s.header + ": " + r.error).c_str());
            // Written back as Halide prints it (what compare-search's hashes rest on).
            QVERIFY2(r.state->halideLoopNest() == s.dump,
                     (s.header + "\nwritten back as\n" + r.state->halideLoopNest() + "read from\n" + s.dump).c_str());

            const std::string kind = std::string(hasUntiledRoot(s.dump) ? "phase-0" : "tiled") +
                                     (r.state->complete() ? " complete" : " with undecided Funcs");
            BeamSearch search(d, model, AutoscheduleParams{});
            std::vector<float> stageCosts;
            const double cost = search.evaluate(*r.state, &stageCosts);
            bool matched = close(cost, s.cost) && stageCosts.size() == s.stageCosts.size();
            for (size_t i = 0; matched && i < stageCosts.size(); i++)
                // Stage costs near zero (an inlined stage's -1.9e-13) are compared against the total.
                matched = std::fabs(stageCosts[i] - s.stageCosts[i]) <= kCostTolerance * std::fabs(s.cost);
            auto &k = byKind[kind];
            k.first += matched;
            k.second++;
            if (!matched && reported++ < 10) {
                std::string ours;
                for (float v : stageCosts)
                    ours += std::to_string(v) + " ";
                qInfo().noquote() << QString::fromStdString(s.header + "\n  Beamscope " + std::to_string(cost) +
                                                            ", stages " + ours + "\n" + s.dump);
            }
        }
        for (const auto &[kind, counts] : byKind)
            qInfo().noquote() << QString("%1: %2 of %3 as Halide")
                                     .arg(QString::fromStdString(kind))
                                     .arg(counts.first)
                                     .arg(counts.second);
        QCOMPARE(byKind.size(), size_t{4});
        for (const auto &[kind, counts] : byKind)
            QVERIFY2(counts.first == counts.second, kind.c_str());
        QCOMPARE(byKind["tiled complete"].second, 419);
        QCOMPARE(byKind["tiled with undecided Funcs"].second, 762);
    }

    // `beamscope-cli state` costs a partial dump as the search ranks it: its decided stages, with
    // the undecided Funcs placed as Halide's featurizer places them. Every tiled partial state of
    // the beam-1 searches, given to the CLI, gives Halide's total and stage costs, and each stage's
    // cost terms add up to its cost.
    void cliCostsAPartialStateAsTheSearchRanksIt()
    {
        BEAMSCOPE_REQUIRE_DATA(path, "tests/fixtures/halide/search_trees/beam_states.txt");
        const std::filesystem::path dir = std::filesystem::temp_directory_path() / "beamscope_partial_states_cli";
        std::filesystem::create_directories(dir);
        const std::filesystem::path dump = dir / "partial.txt";
        std::map<std::string, test::BuiltPipeline> pipelines;
        int checked = 0;
        for (const RecordedState &s : readBeamStates(test::readFile(path))) {
            if (s.header.find(" beam1 ") == std::string::npos || hasUntiledRoot(s.dump))
                continue;
            auto it = pipelines.find(s.pipeline);
            if (it == pipelines.end())
                it = pipelines.emplace(s.pipeline, test::buildRegistered(s.pipeline)).first;
            const LoopNestParseResult parsed = parseLoopNestDump(*it->second.searchDag, s.dump);
            QVERIFY2(parsed.state.has_value(), parsed.error.c_str());
            if (parsed.state->complete())
                continue;
            test::writeFile(dump, s.dump);
            const test::ProcessResult r =
                test::runProcess(test::cliPath(), {"state", "--app", s.pipeline, "--loop-nest", dump.string(),
                                                   "--weights", "baseline", "--json"});
            QVERIFY2(r.exitCode == 0, r.err.c_str());
            const auto j = parseJson(r.out);
            QVERIFY2(j.value.has_value(), r.out.c_str());
            QCOMPARE(j.value->find("complete")->toBool(), false);
            const Json *cost = j.value->find("predicted_cost");
            QVERIFY2(cost && close(cost->toNumber(), s.cost), (s.header + "\n" + r.out).c_str());
            const Json *stages = j.value->find("stages");
            QVERIFY(stages && stages->size() == s.stageCosts.size());
            for (size_t i = 0; i < s.stageCosts.size(); i++) {
                const Json &stage = stages->items()[i];
                QVERIFY(std::fabs(stage.find("cost")->toNumber() - s.stageCosts[i]) <=
                        kCostTolerance * std::fabs(s.cost));
                // The cost terms behind the stage's cost add up to it.
                const Json *terms = stage.find("cost_terms");
                QVERIFY(terms && terms->size() > 10);
                double sum = 0;
                for (const auto &[name, value] : terms->members())
                    sum += value.toNumber();
                QVERIFY2(std::fabs(sum - stage.find("cost")->toNumber()) <= kCostTolerance * std::fabs(s.cost),
                         s.header.c_str());
            }
            checked++;
        }
        std::filesystem::remove_all(dir);
        qInfo() << checked << "partial states of the beam-1 searches costed by the CLI as Halide";
        QCOMPARE(checked, 11);
    }
};

QTEST_MAIN(TestPartialStates)
#include "test_partial_states.moc"
