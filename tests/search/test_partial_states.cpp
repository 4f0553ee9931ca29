// Every costed beam state of Halide's recorded searches, partial ones included, parsed, featurized
// and costed on its decided stages, against Halide's cost (1e-5 relative). Complete and tiled partial
// states must all match (partial ones need Halide's placement of the unscheduled Funcs, see
// core/search/featurizer.h); the untiled roots of phase 0 are counted and printed, not yet checked.
#include "tests/search/search_test_support.h"
#include "tests/support/test_data.h"

#include "core/model/cost_model.h"
#include "core/search/beam_search.h"
#include "core/search/featurizer.h"
#include "core/search/loop_nest_parser.h"
#include "core/weights/weights.h"

#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

using namespace beamscope;
using namespace beamscope::search;

class TestPartialStates : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void measure()
    {
        BEAMSCOPE_REQUIRE_DATA(path, "tests/fixtures/halide/search_trees/beam_states.txt");
        std::ifstream in(path);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        auto loaded = weights::loadWeights(*test::projectData("weights/anderson2021/baseline.weights"));
        const model::CostModel model(*loaded.weights);
        std::map<std::string, test::BuiltPipeline> pipelines;
        std::map<std::string, std::pair<int, int>> byKind; // kind -> (ok, total)
        size_t pos = text.rfind("=== ", 0) == 0 ? 0 : text.find("\n=== ");
        int shown = 0;
        while (pos != std::string::npos) {
            const size_t start = text[pos] == '\n' ? pos + 1 : pos;
            const size_t headerEnd = text.find('\n', start);
            const size_t next = text.find("\n=== ", headerEnd);
            const std::string header = text.substr(start, headerEnd - start);
            const std::string dump =
                text.substr(headerEnd + 1, next == std::string::npos ? std::string::npos : next - headerEnd);
            pos = next;
            std::istringstream h(header);
            std::string marks, pipeline, beam, word, stageCosts, func, phase;
            double cost = 0;
            int depth = 0;
            h >> marks >> pipeline >> beam;
            while (h >> word)
                if (word == "cost")
                    h >> cost;
                else if (word == "stage_costs")
                    h >> stageCosts;
                else if (word == "depth")
                    h >> depth;
                else if (word == "func")
                    h >> func;
                else if (word == "phase")
                    h >> phase;
            auto it = pipelines.find(pipeline);
            if (it == pipelines.end())
                it = pipelines.emplace(pipeline, test::buildRegistered(pipeline)).first;
            const SearchDag &d = *it->second.searchDag;
            bool untiled = false;
            {
                std::istringstream ls(dump);
                std::string line;
                std::getline(ls, line);
                while (std::getline(ls, line))
                    if (!line.empty() && line[0] != ' ' && line.size() > 9 &&
                        line.substr(line.size() - 9) == " gpu_none")
                        untiled = true;
            }
            LoopNestParseResult r = parseLoopNestDump(d, dump);
            std::string kind = untiled ? "untiled-root" : "tiled";
            if (!r.state) {
                byKind[kind + "/parse-error"].second++;
                if (shown++ < 5)
                    qInfo().noquote() << QString::fromStdString(header + ": " + r.error);
                continue;
            }
            kind += r.state->complete() ? "/complete" : "/partial";
            AutoscheduleParams params;
            BeamSearch bs(d, model, params);
            std::vector<float> ours;
            double c = 0;
            try {
                c = bs.evaluate(*r.state, &ours);
            } catch (const std::exception &e) {
                byKind[kind + "/throws"].second++;
                continue;
            }
            const bool ok = std::fabs(c - cost) <= 1e-5 * std::fabs(cost);
            auto &k = byKind[kind];
            k.first += ok;
            k.second++;
            if (!ok && shown++ < 40) {
                std::string o;
                for (float v : ours)
                    o += std::to_string(v) + ",";
                qInfo().noquote() << QString::fromStdString(header + "\n  ours " + std::to_string(c) + " " + o + "\n" +
                                                            dump);
            }
        }
        for (const auto &[k, v] : byKind)
            qInfo().noquote() << QString::fromStdString(k) << v.first << "/" << v.second;
        // Nothing tiled may fail to parse or throw, and every tiled state matches Halide's cost.
        for (const auto &[k, v] : byKind)
            if (k.rfind("tiled/", 0) == 0)
                QVERIFY2(k == "tiled/complete" || k == "tiled/partial", k.c_str());
        QCOMPARE(byKind["tiled/complete"].second, 419);
        QCOMPARE(byKind["tiled/complete"].first, 419);
        QCOMPARE(byKind["tiled/partial"].second, 762);
        QCOMPARE(byKind["tiled/partial"].first, 762);
    }
};

QTEST_MAIN(TestPartialStates)
#include "test_partial_states.moc"
