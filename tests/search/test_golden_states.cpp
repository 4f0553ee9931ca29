// Halide's chosen schedules read from its loop-nest dumps (core/search/loop_nest_parser)
// and featurized by Beamscope, against Halide's own features and predicted costs:
// the 12 golden pipeline runs (tests/fixtures/halide/pipelines/<p>/beam{1,32}) and the 24
// retrain_set schedules (tests/fixtures/halide/samples/retrain_set); the fixture tests
// below parse dumps written here for a pipeline built here.
//
// Setting BEAMSCOPE_FEATURE_MISMATCHES=<file> makes the test write its full mismatch table
// (per schedule, per stage and feature: expected, found) to that file as Markdown.

#include "tests/search/search_test_support.h"
#include "tests/support/test_data.h"
#include "core/util/halide_names.h"

#include "core/model/cost_model.h"
#include "core/search/featurizer.h"
#include "core/search/loop_nest_parser.h"
#include "core/search/search_space.h"
#include "core/search/autoschedule.h"
#include "core/search/state_from_decisions.h"
#include "core/pipelines/pipeline.h"
#include "core/util/atomic_file.h"
#include "core/util/json.h"
#include "core/weights/weights.h"

#include <QRegularExpression>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <cstdio>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

using namespace beamscope;
using namespace beamscope::search;

namespace {

// box_blur's output at root down to its serial loop, for dumps that place blur_x inside it.
const char *const kBoxBlurToOutputSerial = " gpu_none\n"
                                           "realize: output [1536, 2560] with 1 stages\n"
                                           "output 96 640 (0, 0) t gpu_block\n"
                                           " output 16c 2c (0, 0) t gpu_thread\n"
                                           "  output 1c 2c (0, 0) t gpu_serial\n";

// blur_x inlined (the golden beam-32 schedule), inside a log as Halide prints it.
const char *const kInlinedLog = "Best cost: 0.488598\n"
                                "** Optimal schedule:\n"
                                " gpu_none\n"
                                "realize: output [1536, 2560] with 1 stages\n"
                                "output 24 20 (0, 0) t gpu_block\n"
                                " output 64c 16c (0, 0) t gpu_thread\n"
                                "  output 1c 8c (0, 0) t gpu_serial\n"
                                "   output 1vc 1c (0, 0) * gpu_simd\n"
                                "    inlined: blur_x 3\n"
                                "Schedule features for output_s0\n"
                                "    num_realizations:                      1.000000\n";

// ---- comparison with Halide's features ------------------------------------------------

// Tolerance per feature: |expected - found| <= 1e-5 * max(1, |expected|). Halide's values are
// stored as float32 (relative rounding <= 6e-8) and Beamscope computes the same quantities in
// double, so exact definitions agree to ~1e-7; 1e-5 leaves room for float32 rounding of
// products of large extents (e.g. 4e9 points) without hiding any real difference, which are
// whole-number counts or ratios differing by far more.
constexpr double kFeatureTolerance = 1e-5;

bool featureClose(double expected, double found)
{
    return std::fabs(expected - found) <= kFeatureTolerance * std::max(1.0, std::fabs(expected));
}

// Known differences, all in core/search/featurizer.cpp (owned by the featurizer engineer, who
// is fixing them from /work/notes/feature-mismatches.md). Each says why it differs. A feature is
// listed only because it differs on at least one golden schedule; cleanupTestCase() reports
// listed features that no longer differ, so the list can shrink. The parsed states themselves
// are exact: block counts, thread and serial tiles, compute and store levels match the dumps.
enum class Scope {
    Any,          // may differ on any schedule
    StoredAtRoot, // only on schedules with a block-level Func stored at root (Halide v19's form)
};
struct KnownDifference {
    Scope scope;
    const char *reason;
};
const std::map<Feature, KnownDifference> &knownDifferences()
{
    // Empty: with the featurizer of this commit every feature of all 36 schedules is within
    // tolerance. (Listed until the featurizer followed the parsed states: num_scalars with
    // StageTiling::hasVectorLoop and GPU vector size 1, *_bytes_at_task / per-realization reads /
    // working sets of storedAtRoot Funcs, inner_parallelism of block-level Funcs, expr_branching,
    // and the global transaction counts and efficiency.)
    static const std::map<Feature, KnownDifference> known = {};
    return known;
}

bool hasStoredAtRootFunc(const State &s)
{
    return std::any_of(s.funcs().begin(), s.funcs().end(), [](const FuncSchedule &f) { return f.storedAtRoot; });
}

struct Mismatch {
    std::string schedule, stage, feature;
    double expected = 0, found = 0;
    bool known = false;
};

struct Summary {
    std::string schedule;
    int stages = 0, within = 0, total = 0;
    double cost = 0, halideCost = 0;
    bool parsed = false;
};

std::vector<Mismatch> &allMismatches()
{
    static std::vector<Mismatch> v;
    return v;
}
std::vector<Summary> &allSummaries()
{
    static std::vector<Summary> v;
    return v;
}
std::map<Feature, int> &knownSeen()
{
    static std::map<Feature, int> m;
    return m;
}

std::string stageNameOf(const SearchDag &d, size_t slot)
{
    return withoutUniqueSuffixes(d.dag().stage(d.costStages()[slot]).name);
}

// Compares every feature of every stage; returns the number of unexplained mismatches.
int compareFeatures(const std::string &schedule, const State &state, const std::vector<ScheduleFeatures> &found,
                    const std::vector<std::vector<double>> &expected, Summary &summary)
{
    const SearchDag &d = state.dag();
    const bool storedAtRoot = hasStoredAtRootFunc(state);
    int unexplained = 0;
    for (size_t slot = 0; slot < found.size(); slot++)
        for (int i = 0; i < kScheduleFeatureCount; i++) {
            const double e = expected[slot][static_cast<size_t>(i)], f = found[slot].values[static_cast<size_t>(i)];
            summary.total++;
            if (featureClose(e, f)) {
                summary.within++;
                continue;
            }
            const auto k = knownDifferences().find(static_cast<Feature>(i));
            const bool known = k != knownDifferences().end() && (k->second.scope == Scope::Any || storedAtRoot);
            if (known)
                knownSeen()[static_cast<Feature>(i)]++;
            else
                unexplained++;
            allMismatches().push_back({schedule, stageNameOf(d, slot), featureName(i), e, f, known});
            qInfo().noquote() << QString("%1 %2 %3: expected %4 found %5%6")
                                     .arg(QString::fromStdString(schedule),
                                          QString::fromStdString(stageNameOf(d, slot)), featureName(i))
                                     .arg(e, 0, 'g', 9)
                                     .arg(f, 0, 'g', 9)
                                     .arg(known ? " (known difference)" : "");
        }
    return unexplained;
}

const model::CostModel *baselineModel()
{
    static const model::CostModel model = test::baselineModel(); // loaded once, on first use
    return &model;
}

// Cost of Beamscope's features with the baseline weights at num_cores 80 (the golden runs'
// parallelism; predicted_cost.txt and manifest.tsv use 80).
double predictedCost(const SearchDag &d, const std::vector<ScheduleFeatures> &f)
{
    const model::CostModel *m = baselineModel();
    if (!m)
        return std::nan("");
    std::vector<float> sched;
    for (const ScheduleFeatures &s : f)
        for (double v : s.values)
            sched.push_back(static_cast<float>(v));
    const model::Evaluation e = m->evaluate(d.pipelineFeatures(), sched, static_cast<int>(f.size()), 1, 80);
    return e.predictions.at(0);
}

// schedule_features.tsv -> [slot][73]
std::vector<std::vector<double>> readFeatureTsv(const std::filesystem::path &tsv, std::vector<std::string> *names)
{
    std::ifstream in(tsv);
    std::vector<std::vector<double>> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream s(line);
        size_t stage;
        std::string func, name;
        int definition, index;
        double value;
        s >> stage >> func >> definition >> index >> name >> value;
        if (!s || index < 0 || index >= kScheduleFeatureCount)
            continue;
        if (out.size() <= stage) {
            out.resize(stage + 1, std::vector<double>(kScheduleFeatureCount, 0.0));
            names->resize(stage + 1);
        }
        (*names)[stage] = func + "_s" + std::to_string(definition);
        out[stage][static_cast<size_t>(index)] = value;
    }
    return out;
}

// The 73 float32 schedule features per stage of a .sample (1440 bytes per stage + 12).
std::vector<std::vector<double>> readSampleFeatures(const std::filesystem::path &path)
{
    const std::string bytes = test::readFile(path);
    std::vector<std::vector<double>> out;
    if (bytes.size() < 12 || (bytes.size() - 12) % 1440 != 0)
        return out;
    const size_t stages = (bytes.size() - 12) / 1440;
    for (size_t s = 0; s < stages; s++) {
        std::vector<double> v(kScheduleFeatureCount);
        for (int i = 0; i < kScheduleFeatureCount; i++) {
            float f;
            std::memcpy(&f, bytes.data() + s * 1440 + static_cast<size_t>(i) * 4, 4);
            v[static_cast<size_t>(i)] = f;
        }
        out.push_back(v);
    }
    return out;
}

double readTotalCost(const std::filesystem::path &predictedCostTxt)
{
    std::ifstream in(predictedCostTxt);
    std::string word;
    while (in >> word)
        if (word == "total") {
            double v;
            in >> v;
            return v;
        }
    return std::nan("");
}

std::map<std::string, double> readManifestCosts(const std::filesystem::path &manifest)
{
    std::ifstream in(manifest);
    std::string line;
    std::getline(in, line);
    std::map<std::string, double> out;
    while (std::getline(in, line)) {
        std::istringstream s(line);
        std::vector<std::string> cols;
        std::string c;
        while (std::getline(s, c, '\t'))
            cols.push_back(c);
        if (cols.size() >= 11)
            out[cols[0]] = std::stod(cols[10]);
    }
    return out;
}

// One golden schedule end to end: parse, complete, legal, features, cost.
void checkGoldenSchedule(const std::string &label, const std::string &pipeline, const std::string &dumpText,
                         const std::vector<std::vector<double>> &expected,
                         const std::vector<std::string> &expectedNames, double halideCost)
{
    test::BuiltPipeline p = test::buildRegistered(pipeline);
    const SearchDag &d = *p.searchDag;
    Summary summary;
    summary.schedule = label;
    summary.halideCost = halideCost;
    LoopNestParseResult r = parseLoopNestDump(d, dumpText);
    QVERIFY2(r.state.has_value(), (label + ": " + r.error).c_str());
    summary.parsed = true;
    for (const std::string &n : r.notes)
        qInfo().noquote() << QString::fromStdString(label + ": note: " + n);
    const State &s = *r.state;
    QVERIFY2(s.complete(), (label + ": parsed state is incomplete:\n" + s.dump()).c_str());
    // The state is Halide's schedule exactly: written back in Halide's form it is Halide's dump,
    // line for line (sizes, 'v'/'c' marks, realize extents, inlined call counts, order).
    QCOMPARE(QString::fromStdString(s.halideLoopNest()), QString::fromStdString(std::string(findLoopNest(dumpText))));
    const FeatureParams params; // Halide's defaults: parallelism 80, 48/96 KiB, 32 blocks, 64 warps
    QCOMPARE(QString::fromStdString(s.legalityProblem(1024, params.sharedMemoryLimitBytes, params.activeWarpLimit)),
             QString());
    const std::vector<ScheduleFeatures> f = computeFeatures(s, params);
    // The plugin's path (HL_PARTIAL_SCHEDULE): the dump as decisions, rebuilt into a state. It is the
    // same schedule, line for line, with the same features (a stage without a vectorized loop, "(-1, 0)",
    // included).
    {
        const State replayed = stateFromDecisions(d, partialScheduleDecisions(p.outputs, dumpText), pipeline);
        QCOMPARE(QString::fromStdString(replayed.halideLoopNest()), QString::fromStdString(s.halideLoopNest()));
        const std::vector<ScheduleFeatures> g = computeFeatures(replayed, params);
        QCOMPARE(g.size(), f.size());
        for (size_t slot = 0; slot < f.size(); slot++)
            for (int i = 0; i < kScheduleFeatureCount; i++)
                QVERIFY2(
                    f[slot].values[static_cast<size_t>(i)] == g[slot].values[static_cast<size_t>(i)],
                    (label + ": replayed state differs in " + stageNameOf(d, slot) + " " + featureName(i)).c_str());
    }
    QCOMPARE(f.size(), expected.size());
    for (size_t slot = 0; slot < f.size() && slot < expectedNames.size(); slot++)
        QCOMPARE(QString::fromStdString(stageNameOf(d, slot)), QString::fromStdString(expectedNames[slot]));
    summary.stages = static_cast<int>(f.size());
    const int unexplained = compareFeatures(label, s, f, expected, summary);
    summary.cost = predictedCost(d, f);
    allSummaries().push_back(summary);
    qInfo().noquote() << QString("%1: %2/%3 features within tolerance; predicted cost %4 (Halide %5)")
                             .arg(QString::fromStdString(label))
                             .arg(summary.within)
                             .arg(summary.total)
                             .arg(summary.cost, 0, 'g', 9)
                             .arg(halideCost, 0, 'g', 9);
    // On identical features the cost model reproduces Halide's predictions within 7.3e-6 relative
    // (worst of the 39 golden cases in tests/model; float32 network, summation order), so when
    // every feature matches the totals must agree to 1e-5 relative (found: at most 3.5e-7).
    if (summary.within == summary.total && std::isfinite(summary.cost))
        QVERIFY2(std::fabs(summary.cost - halideCost) <= 1e-5 * std::fabs(halideCost),
                 (label + ": identical features but a different predicted cost").c_str());
    QVERIFY2(unexplained == 0, (label + ": " + std::to_string(unexplained) +
                                " features differ from Halide's and are not listed as known differences (table above)")
                                   .c_str());
}

std::string markdownTable()
{
    std::ostringstream os;
    os << "# Feature mismatches: Halide's golden schedules parsed into Beamscope states\n\n"
       << "Generated by tests/search/test_golden_states (BEAMSCOPE_FEATURE_MISMATCHES=<file>). Tolerance "
       << kFeatureTolerance << " relative (of max(1, |expected|)).\n\n"
       << "## Per schedule\n\n| schedule | stages | features within tolerance | Beamscope cost | Halide cost |\n"
       << "| --- | --- | --- | --- | --- |\n";
    for (const Summary &s : allSummaries())
        os << "| " << s.schedule << " | " << s.stages << " | " << s.within << "/" << s.total << " | " << s.cost << " | "
           << s.halideCost << " |\n";
    std::map<std::string, int> byFeature;
    for (const Mismatch &m : allMismatches())
        byFeature[m.feature]++;
    os << "\n## Mismatches per feature\n\n| feature | stages differing | why (tests/search/test_golden_states.cpp) |\n"
       << "| --- | --- | --- |\n";
    for (const auto &[name, count] : byFeature) {
        const auto k = knownDifferences().find(static_cast<Feature>(featureIndex(name)));
        os << "| " << name << " | " << count << " | "
           << (k == knownDifferences().end()
                   ? "NOT EXPLAINED"
                   : std::string(k->second.scope == Scope::StoredAtRoot ? "(block-level Funcs stored at root) " : "") +
                         k->second.reason)
           << " |\n";
    }
    os << "\n## Every mismatch\n\n| schedule | stage | feature | expected (Halide) | found (Beamscope) | known |\n"
       << "| --- | --- | --- | --- | --- | --- |\n";
    os.precision(9);
    for (const Mismatch &m : allMismatches())
        os << "| " << m.schedule << " | " << m.stage << " | " << m.feature << " | " << m.expected << " | " << m.found
           << " | " << (m.known ? "yes" : "") << " |\n";
    return os.str();
}

} // namespace

class GoldenStatesTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // ---- the project's own fixtures ----

    void parsesBlockLevelFuncStoredAtRoot()
    {
        test::BuiltPipeline p = test::goldenBoxBlur();
        const SearchDag &d = *p.searchDag;
        LoopNestParseResult r = parseLoopNestDump(d, test::kBoxBlurBlockLevelDump);
        QVERIFY2(r.state.has_value(), r.error.c_str());
        const State &s = *r.state;
        QVERIFY(s.complete());
        const FuncSchedule *out = s.scheduleOf(p.node("output"));
        const FuncSchedule *bx = s.scheduleOf(p.node("blur_x"));
        QVERIFY(out && bx);
        QCOMPARE(out->location, ComputeLocation::Root);
        QCOMPARE(out->stages.size(), size_t(1));
        QCOMPARE(out->stages[0].threads, (std::vector<int64_t>{16, 2}));
        QCOMPARE(out->stages[0].serial, (std::vector<int64_t>{1, 2}));
        QCOMPARE(out->stages[0].unrolled, true); // 2 serial points: unrolled (<= 16)
        QCOMPARE(s.numBlocks(p.node("output"), 0), int64_t(96 * 640));
        QCOMPARE(bx->location, ComputeLocation::BlockLevel);
        QCOMPARE(bx->consumer, p.node("output"));
        QCOMPARE(bx->storedAtRoot, true);
        QCOMPARE(bx->featureMemory(), MemoryType::Global); // featurized at its root site
        QCOMPARE(bx->storageMemory(), MemoryType::Shared); // stored in shared memory by the schedule
        QCOMPARE(bx->stages[0].threads, (std::vector<int64_t>{16, 1}));
        QCOMPARE(bx->stages[0].serial, (std::vector<int64_t>{1, 6}));
        // The block computes blur_x over 16 x (4 + 2) points, as the dump's realize line says.
        const Region region = s.computedRegion(p.node("blur_x"));
        QCOMPARE(region[0].extent(), int64_t(16));
        QCOMPARE(region[1].extent(), int64_t(6));
        QVERIFY2(r.notes.empty(), r.notes.empty() ? "" : r.notes.front().c_str());
        // Stored in global memory, yet counted in the block's shared-memory total as Halide does.
        QCOMPARE(s.sharedBytesPerBlock(p.node("output")), int64_t(16 * 6 * 4));
        QCOMPARE(QString::fromStdString(s.legalityProblem(1024, 48 * 1024, 64)), QString());
        const std::vector<ScheduleFeatures> f = computeFeatures(s, FeatureParams{});
        QCOMPARE(f.size(), size_t(2));
    }

    // Without the root realize line the block-level Func lives in shared memory (Beamscope's own form).
    void parsesBlockLevelFuncInSharedMemory()
    {
        test::BuiltPipeline p = test::goldenBoxBlur();
        std::string text = test::kBoxBlurBlockLevelDump;
        const std::string rootRealize = "realize: blur_x [1536, 2562] with 1 stages\n";
        text.erase(text.find(rootRealize), rootRealize.size());
        LoopNestParseResult r = parseLoopNestDump(*p.searchDag, text);
        QVERIFY2(r.state.has_value(), r.error.c_str());
        const FuncSchedule *bx = r.state->scheduleOf(p.node("blur_x"));
        QCOMPARE(bx->storedAtRoot, false);
        QCOMPARE(bx->featureMemory(), MemoryType::Shared);
        QCOMPARE(r.state->sharedBytesPerBlock(p.node("output")), int64_t(16 * 6 * 4));
    }

    // lens_blur's pattern (Halide's own-weights dump of f54): a Func computed at its consumer's
    // thread level and realized at root, per block and per thread, whose per-thread region depends
    // on the position (final(x, y, c) reads f(x, y, c) and f(x, y, 3)).
    void parsesThreadLevelFuncStoredAtRoot()
    {
        Halide::ImageParam in(Halide::Float(32), 3, "in");
        Halide::Var x("x"), y("y"), c("c");
        Halide::Func f("f"), final_("final");
        f(x, y, c) = in(x, y, c) * 2.0f;
        final_(x, y, c) = f(x, y, c) * f(x, y, 3);
        in.set_estimates({{0, 64}, {0, 64}, {0, 4}});
        final_.set_estimates({{0, 64}, {0, 64}, {0, 3}});
        test::BuiltPipeline p = test::fromOutputs("channel_select", {final_});
        const char *const dump = " gpu_none\n"
                                 "realize: final [64, 64, 3] with 1 stages\n"
                                 "realize: f [64, 64, 4] with 1 stages\n"
                                 "final 2 64 1 (0, 0) t gpu_block\n"
                                 " realize: f [32c, 1c, 4] with 1 stages\n"
                                 " final 32c 1c 3c (0, 0) t gpu_thread\n"
                                 "  realize: f [1c, 1c, 3] with 1 stages\n"
                                 "  f 1c 1c 3 (0, 0) t gpu_serial\n"
                                 "   f 1vc 1c 1c (0, 0) * gpu_simd\n"
                                 "  final 1c 1c 1c (0, 0) t gpu_serial\n"
                                 "   final 1vc 1c 1c (0, 0) * gpu_simd\n";
        LoopNestParseResult r = parseLoopNestDump(*p.searchDag, dump);
        QVERIFY2(r.state.has_value(), r.error.c_str());
        const State &s = *r.state;
        const FuncSchedule *fs = s.scheduleOf(p.node("f"));
        QVERIFY(fs);
        QCOMPARE(fs->location, ComputeLocation::ThreadLevel);
        QCOMPARE(fs->storedAtRoot, true);
        QCOMPARE(fs->featureMemory(), MemoryType::Global);
        QCOMPARE(fs->storageMemory(), MemoryType::Register);
        // Halide's representative thread is the middle one (c = 1): it reads channels 1 .. 3.
        const Region region = s.computedRegion(p.node("f"));
        QCOMPARE(region.size(), size_t(3));
        QCOMPARE(region[0].extent(), int64_t(1));
        QCOMPARE(region[2], (dag::Span{1, 3}));
        QVERIFY2(r.notes.empty(), r.notes.empty() ? "" : r.notes.front().c_str());
        // Written back as Halide wrote it, byte for byte: its three realize lines, and no 'c' on the
        // channel extents, which min(c, 3) and max(c, 3) bound (not affine, so not constant).
        const std::string back = s.halideLoopNest();
        QCOMPARE(QString::fromStdString(back), QString::fromStdString(dump));
        // Its loops' extent is not a compile-time constant (min(c, 3) is not affine): not unrolled.
        const std::vector<ScheduleFeatures> feats = computeFeatures(s, FeatureParams{});
        const auto &ff = feats.at(static_cast<size_t>(p.searchDag->stageSlot(p.node("f"), 0)));
        QCOMPARE(ff[Feature::InnermostPureLoopExtent], 3.0);
        QCOMPARE(ff[Feature::UnrolledLoopExtent], 1.0);
        // Through the plugin's path (decisions) it is the same schedule.
        const State replayed = stateFromDecisions(*p.searchDag, partialScheduleDecisions(p.outputs, dump), p.name);
        QCOMPARE(QString::fromStdString(replayed.halideLoopNest()), QString::fromStdString(back));
    }

    // A block of a loop its tiles do not divide (210 points in 7 blocks of 32): Halide's representative
    // block is a whole tile (LoopNest::parallelize_in_tiles), so the block-level Func's region is 32
    // wide, not ceil(210 / 7) = 30 (lens_blur's sum and camera_pipe's f10 and f28 showed it).
    void blockRegionIsAWholeTile()
    {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Var x("x"), y("y");
        Halide::Func f("f"), out("out");
        f(x, y) = in(x, y) * 2.0f;
        out(x, y) = f(x, y) + 1.0f;
        in.set_estimates({{0, 210}, {0, 8}});
        out.set_estimates({{0, 210}, {0, 8}});
        test::BuiltPipeline p = test::fromOutputs("uneven_blocks", {out});
        const char *const dump = " gpu_none\n"
                                 "realize: out [210, 8] with 1 stages\n"
                                 "realize: f [210, 8] with 1 stages\n"
                                 "out 7 1 (0, 0) t gpu_block\n"
                                 " realize: f [32c, 8c] with 1 stages\n"
                                 " f 32c 8c (0, 0) t gpu_thread\n"
                                 "  f 1c 1c (0, 0) t gpu_serial\n"
                                 "   f 1vc 1c (0, 0) * gpu_simd\n"
                                 " out 32c 8c (0, 0) t gpu_thread\n"
                                 "  out 1c 1c (0, 0) t gpu_serial\n"
                                 "   out 1vc 1c (0, 0) * gpu_simd\n";
        LoopNestParseResult r = parseLoopNestDump(*p.searchDag, dump);
        QVERIFY2(r.state.has_value(), r.error.c_str());
        QVERIFY2(r.notes.empty(), r.notes.empty() ? "" : r.notes.front().c_str());
        const Region region = r.state->computedRegion(p.node("f"));
        QCOMPARE(region[0], (dag::Span{96, 127})); // the middle (4th) block
        QCOMPARE(region[1].extent(), int64_t(8));
    }

    // The same nest where the per-thread region is reached through affine bounds: constant, unrolled.
    void unrollsThreadLevelFuncOfConstantRegion()
    {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Var x("x"), y("y");
        Halide::Func f("f"), out("out");
        f(x, y) = in(x, y) * 2.0f;
        out(x, y) = f(x, y) + f(x + 1, y) + f(x + 2, y);
        in.set_estimates({{0, 66}, {0, 64}});
        out.set_estimates({{0, 64}, {0, 64}});
        test::BuiltPipeline p = test::fromOutputs("stencil_in_registers", {out});
        const char *const dump = " gpu_none\n"
                                 "realize: out [64, 64] with 1 stages\n"
                                 "out 2 64 (0, 0) t gpu_block\n"
                                 " out 32c 1c (0, 0) t gpu_thread\n"
                                 "  realize: f [3c, 1c] with 1 stages\n"
                                 "  f 3c 1c (0, 0) t gpu_serial\n"
                                 "   f 1vc 1c (0, 0) * gpu_simd\n"
                                 "  out 1c 1c (0, 0) t gpu_serial\n"
                                 "   out 1vc 1c (0, 0) * gpu_simd\n";
        LoopNestParseResult r = parseLoopNestDump(*p.searchDag, dump);
        QVERIFY2(r.state.has_value(), r.error.c_str());
        const FuncSchedule *fs = r.state->scheduleOf(p.node("f"));
        QCOMPARE(fs->location, ComputeLocation::ThreadLevel);
        QCOMPARE(fs->storedAtRoot, false);
        QCOMPARE(fs->featureMemory(), MemoryType::Register);
        const std::vector<ScheduleFeatures> feats = computeFeatures(*r.state, FeatureParams{});
        QCOMPARE(feats.at(static_cast<size_t>(p.searchDag->stageSlot(p.node("f"), 0)))[Feature::UnrolledLoopExtent],
                 3.0);
    }

    void findsTheDumpInALog()
    {
        int first = 0;
        const std::string_view nest = findLoopNest(kInlinedLog, &first);
        QCOMPARE(first, 3);
        QVERIFY(nest.starts_with(" gpu_none\n"));
        QVERIFY(nest.ends_with("inlined: blur_x 3\n"));
        test::BuiltPipeline p = test::goldenBoxBlur();
        std::string error;
        const std::optional<State> s = parseLoopNest(*p.searchDag, kInlinedLog, &error);
        QVERIFY2(s.has_value(), error.c_str());
        QVERIFY(s->complete());
        QCOMPARE(s->scheduleOf(p.node("blur_x"))->location, ComputeLocation::Inlined);
        QCOMPARE(s->scheduleOf(p.node("output"))->stages[0].threads, (std::vector<int64_t>{64, 16}));
        QCOMPARE(s->scheduleOf(p.node("output"))->stages[0].serial, (std::vector<int64_t>{1, 8}));
        QCOMPARE(s->numBlocks(p.node("output"), 0), int64_t(24 * 20));
        // Hand-worked: blur_x inlined 3 times into each of 1536 x 2560 output points.
        const std::vector<ScheduleFeatures> f = computeFeatures(*s, FeatureParams{});
        QCOMPARE(f.at(static_cast<size_t>(p.searchDag->stageSlot(p.node("blur_x"), 0)))[Feature::InlinedCalls],
                 3.0 * 1536 * 2560);
    }

    // A partial dump (output only) gives a partial state: a prefix of the scheduling order.
    void parsesAPartialState()
    {
        test::BuiltPipeline p = test::goldenBoxBlur();
        std::string text = kInlinedLog;
        text.erase(text.find("    inlined: blur_x 3\n"), std::strlen("    inlined: blur_x 3\n"));
        std::string error;
        const std::optional<State> s = parseLoopNest(*p.searchDag, text, &error);
        QVERIFY2(s.has_value(), error.c_str());
        QCOMPARE(s->numScheduled(), 1);
        QCOMPARE(s->nextNode(), p.node("blur_x"));
    }

    // Halide's phase 0 (box_blur, blur_x at root not yet tiled onto the GPU, from its golden search
    // trees): read with awaitingGpuTiling, written back as Halide's dump, and featurized as Halide
    // does, on blur_x split into blocks of one full warp along x.
    void readsAnUntiledRootState()
    {
        test::BuiltPipeline p = test::goldenBoxBlur();
        const std::string outputTiled = "output 96 80 (0, 0) t gpu_block\n"
                                        " output 16c 4c (0, 0) t gpu_thread\n"
                                        "  output 1c 8c (0, 0) t gpu_serial\n"
                                        "   output 1vc 1c (0, 0) * gpu_simd\n";
        const std::string head = " gpu_none\n"
                                 "realize: output [1536, 2560] with 1 stages\n"
                                 "realize: blur_x [1536, 2562] with 1 stages\n";
        const std::string untiled = head +
                                    "blur_x 1536 2562 (0, 0) t gpu_none\n"
                                    " blur_x 1vc 1c (0, 0) * gpu_simd\n" +
                                    outputTiled;
        const std::string warpTiled = head +
                                      "blur_x 48 2562 (0, 0) t gpu_block\n"
                                      " blur_x 32c 1c (0, 0) t gpu_thread\n"
                                      "  blur_x 1c 1c (0, 0) t gpu_serial\n"
                                      "   blur_x 1vc 1c (0, 0) * gpu_simd\n" +
                                      outputTiled;
        std::string error;
        const std::optional<State> s = parseLoopNest(*p.searchDag, untiled, &error);
        QVERIFY2(s.has_value(), error.c_str());
        QVERIFY(s->scheduleOf(p.node("blur_x"))->awaitingGpuTiling);
        QVERIFY(!s->scheduleOf(p.node("output"))->awaitingGpuTiling);
        QCOMPARE(s->halideLoopNest(), untiled);
        const std::optional<State> t = parseLoopNest(*p.searchDag, warpTiled, &error);
        QVERIFY2(t.has_value(), error.c_str());
        const std::vector<ScheduleFeatures> fu = computeFeatures(*s, FeatureParams{});
        const std::vector<ScheduleFeatures> ft = computeFeatures(*t, FeatureParams{});
        QCOMPARE(fu.size(), ft.size());
        for (size_t i = 0; i < fu.size(); i++)
            QVERIFY(fu[i].values == ft[i].values);

        // Halide's phase 0 leaves the stage's innermost loop one point.
        std::string notOnePoint = untiled;
        notOnePoint.replace(notOnePoint.find(" blur_x 1vc"), std::strlen(" blur_x 1vc"), " blur_x 2vc");
        QVERIFY(!parseLoopNest(*p.searchDag, notOnePoint, &error));
        QVERIFY2(error.starts_with("line 5: expected the innermost loop of an untiled root stage to be one point"),
                 error.c_str());
    }

    void reportsErrors_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown Func") << "output 96 640"
                                      << "outptu 96 640"
                                      << "line 4: the pipeline has no Func 'outptu'";
        QTest::newRow("bad size") << "16c 2c (0, 0) t gpu_thread"
                                  << "16c 2x (0, 0) t gpu_thread"
                                  << "line 9: expected a loop size such as 16, 16c or 1vc after 'output', found '2x'";
        QTest::newRow("indentation") << "  output 1c 2c"
                                     << "   output 1c 2c"
                                     << "line 10: expected an indentation of 2";
        QTest::newRow("missing label") << "(0, 0) t gpu_block"
                                       << "(0, 0) t"
                                       << "line 4: expected a GPU label";
        QTest::newRow("partial stage")
            << "(0, 0) t gpu_block"
            << "(0, 0) t gpu_none"
            << "line 4: output stage 0: a gpu_none loop (a root Func not yet tiled onto the GPU) holds only the "
               "stage's innermost loop, found 3 entries in it";
        QTest::newRow("block count") << "output 96 640"
                                     << "output 96 641"
                                     << "line 4: output stage 0 loop y: the dump has 641 blocks of 4 points, but the "
                                        "pipeline's loop extent 2560 needs 640";
        QTest::newRow("sizes per loop") << "blur_x 16c 1c (0, 0) t gpu_thread"
                                        << "blur_x 16c (0, 0) t gpu_thread"
                                        << "line 6: blur_x stage 0: expected 2 loop sizes (x, y), found 1";
        QTest::newRow("input") << "realize: blur_x [16c"
                               << "realize: input_im [16c"
                               << "line 5: 'input_im' is an input of the pipeline";
        QTest::newRow("no root") << " gpu_none\n"
                                 << ""
                                 << "line 1: expected the root line ' gpu_none' first";
    }

    void reportsErrors()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, message);
        test::BuiltPipeline p = test::goldenBoxBlur();
        std::string text = test::kBoxBlurBlockLevelDump;
        const size_t at = text.find(from.toStdString());
        QVERIFY(at != std::string::npos);
        text.replace(at, static_cast<size_t>(from.size()), to.toStdString());
        std::string error;
        QVERIFY(!parseLoopNest(*p.searchDag, text, &error).has_value());
        QVERIFY2(error.starts_with(message.toStdString()), error.c_str());
    }

    // A Func computed in a compute_root stage's serial loop, right inside its thread loop (Halide's
    // compute_in_tiles placing it once per point a thread computes), reads as a thread-level Func
    // inside that serial loop, and its dump reads back as the same state.
    void readsAFuncComputedInASerialLoop()
    {
        test::BuiltPipeline p = test::goldenBoxBlur();
        const std::string text = std::string(kBoxBlurToOutputSerial) + "   realize: blur_x [1c, 3c] with 1 stages\n"
                                                                       "   blur_x 1c 3c (0, 0) t gpu_serial\n"
                                                                       "    blur_x 1vc 1c (0, 0) * gpu_simd\n"
                                                                       "   output 1vc 1c (0, 0) * gpu_simd\n";
        std::string error;
        const std::optional<State> state = parseLoopNest(*p.searchDag, text, &error);
        QVERIFY2(state, error.c_str());
        const FuncSchedule *blurX = state->scheduleOf(p.node("blur_x"));
        QVERIFY(blurX);
        QCOMPARE(blurX->location, ComputeLocation::ThreadLevel);
        QVERIFY(blurX->insideSerialLoop);
        QCOMPARE(blurX->consumer, p.node("output"));
        QCOMPARE(state->computedRegion(blurX->node)[1].extent(), int64_t(3));
        QVERIFY2(QString::fromStdString(state->dump())
                     .contains(QRegularExpression(R"(blur_x\S*_s0 at output\S*\.serial in register)")),
                 state->dump().c_str());
        const std::optional<State> again = parseLoopNest(*p.searchDag, state->halideLoopNest(), &error);
        QVERIFY2(again, error.c_str());
        QCOMPARE(again->halideLoopNest(), state->halideLoopNest());
        QVERIFY(again->scheduleOf(blurX->node)->insideSerialLoop);
    }

    // A Func computed at a block-level Func's thread loop (Halide's local_laplacian places f155 so
    // in f157, itself per block in output): computed once per thread of that Func, in its kernel, its
    // realizations at the block and the thread printed where Halide prints them, read back the same.
    void readsAFuncInABlockLevelFuncsThreadLoop()
    {
        const test::BuiltPipeline p = test::buildRegistered("stencil_chain_u16");
        const State s = test::funcInABlockLevelFuncsThreadLoop(p);
        QVERIFY2(s.legalityProblem(1024, 48 * 1024, 64).empty(), s.legalityProblem(1024, 48 * 1024, 64).c_str());
        const int stage3 = p.node("stage_3"), stage4 = p.node("stage_4");
        QCOMPARE(s.kernelOf(stage3), std::make_pair(p.node("output"), 0));
        // One thread of stage_4 computes 1 x 3 points: 3 x 5 of stage_3; its 18 x 18 block needs 20 x 20.
        QCOMPARE(s.computedRegion(stage3)[0].extent(), int64_t(3));
        QCOMPARE(s.computedRegion(stage3)[1].extent(), int64_t(5));
        QCOMPARE(s.regionPerBlock(stage3)[0].extent(), int64_t(20));
        QCOMPARE(s.regionPerBlock(stage3)[1].extent(), int64_t(20));
        QVERIFY2(QString::fromStdString(s.dump()).contains(QRegularExpression(
                     R"(stage_4\S*_s0 at output\S*\.block(.|\n)*stage_3\S*_s0 at stage_4\S*\.thread)")),
                 s.dump().c_str());
        const std::string nest = s.halideLoopNest();
        QVERIFY2(nest.find(" stage_4 18c 6c (0, 0) t gpu_thread\n  realize: stage_3 [3c, 5c] with 1 stages\n"
                           "  stage_3 3c 5c (0, 0) t gpu_serial\n") != std::string::npos,
                 nest.c_str());
        std::string error;
        const std::optional<State> again = parseLoopNest(*p.searchDag, nest, &error);
        QVERIFY2(again, error.c_str());
        QCOMPARE(again->halideLoopNest(), nest);
        QCOMPARE(again->scheduleOf(stage3)->location, ComputeLocation::ThreadLevel);
        QCOMPARE(again->scheduleOf(stage3)->consumer, stage4);
        // Per block of that Func is not a placement Beamscope's states hold (nor Halide's: a
        // block-level Func has no block loop of its own).
        State perBlock(*p.searchDag);
        for (FuncSchedule f : s.funcs()) {
            if (f.node == stage3)
                f.location = ComputeLocation::BlockLevel;
            perBlock.add(f);
        }
        QVERIFY2(perBlock.legalityProblem(1024, 48 * 1024, 64).starts_with("stage_3"),
                 perBlock.legalityProblem(1024, 48 * 1024, 64).c_str());
    }

    // One level further in: a Func computed in that thread-level Func's serial loop, once per point
    // of it, stored at root too (Halide's camera_pipe computes f9 so in f18, itself at the thread
    // loop of f28, per block in processed).
    void readsAFuncInAThreadLevelFuncsSerialLoop()
    {
        const test::BuiltPipeline p = test::buildRegistered("stencil_chain_u16");
        const State s = test::funcInABlockLevelFuncsThreadLoop(p, true);
        QVERIFY2(s.legalityProblem(1024, 48 * 1024, 64).empty(), s.legalityProblem(1024, 48 * 1024, 64).c_str());
        const int stage2 = p.node("stage_2"), stage3 = p.node("stage_3");
        QCOMPARE(s.kernelOf(stage2), std::make_pair(p.node("output"), 0));
        // One point of stage_3 needs 3 x 3; its thread's 3 x 5 points 5 x 7; its block's 20 x 20, 22 x 22.
        const auto extents = [](const Region &r) { return std::make_pair(r[0].extent(), r[1].extent()); };
        QCOMPARE(extents(s.computedRegion(stage2)), std::make_pair(int64_t(3), int64_t(3)));
        QCOMPARE(extents(s.regionPerThread(stage2)), std::make_pair(int64_t(5), int64_t(7)));
        QCOMPARE(extents(s.regionPerBlock(stage2)), std::make_pair(int64_t(22), int64_t(22)));
        const std::string nest = s.halideLoopNest();
        QVERIFY2(nest.find("  stage_3 3c 5c (0, 0) t gpu_serial\n   realize: stage_2 [3c, 3c] with 1 stages\n"
                           "   stage_2 3c 3c (0, 0) t gpu_serial\n") != std::string::npos,
                 nest.c_str());
        QVERIFY2(nest.find(" stage_4 18c 6c (0, 0) t gpu_thread\n  realize: stage_3 [3c, 5c] with 1 stages\n"
                           "  realize: stage_2 [5c, 7c] with 1 stages\n") != std::string::npos,
                 nest.c_str());
        std::string error;
        const std::optional<State> again = parseLoopNest(*p.searchDag, nest, &error);
        QVERIFY2(again, error.c_str());
        QCOMPARE(again->halideLoopNest(), nest);
        QCOMPARE(again->scheduleOf(stage2)->consumer, stage3);
        QVERIFY(again->scheduleOf(stage2)->insideSerialLoop);
        QVERIFY2(QString::fromStdString(s.dump()).contains(
                     QRegularExpression(R"(stage_2\S*_s0 at stage_3\S*\.serial in register)")),
                 s.dump().c_str());
    }

    // A Func computed inside a stage's innermost loop is a structure Beamscope cannot express:
    // named as such.
    void refusesInexpressibleNests()
    {
        test::BuiltPipeline p = test::goldenBoxBlur();
        const std::string text = std::string(kBoxBlurToOutputSerial) + "   output 1vc 1c (0, 0) * gpu_simd\n"
                                                                       "    realize: blur_x [1c, 3c] with 1 stages\n"
                                                                       "    blur_x 1c 3c (0, 0) t gpu_serial\n"
                                                                       "     blur_x 1vc 1c (0, 0) * gpu_simd\n";
        std::string error;
        QVERIFY(!parseLoopNest(*p.searchDag, text, &error).has_value());
        QVERIFY2(error.starts_with("line 8: expected only 'inlined:' lines inside the innermost loop of 'output'"),
                 error.c_str());
    }

    // Every form Beamscope's own search produces (root, inline, block level in shared memory,
    // thread level in registers) survives State::halideLoopNest() -> parseLoopNest unchanged:
    // random complete states of every built-in pipeline, seeded walks over generateChildren.
    void roundTripsSearchStates()
    {
        int states = 0, blockLevel = 0, threadLevel = 0;
        for (const pipelines::PipelineInfo &info : pipelines::builtinPipelines()) {
            test::BuiltPipeline p = test::fromOutputs(info.name, info.build().outputs);
            const SearchDag &d = *p.searchDag;
            AutoscheduleParams params;
            GenerateOptions options;
            options.maxTilings = 8;
            for (uint64_t seed = 1; seed <= 3; seed++) {
                std::mt19937_64 rng(seed * 7919 + static_cast<uint64_t>(states));
                State s(d);
                while (!s.complete()) {
                    std::vector<Child> children = generateChildren(s, params, options, rng);
                    QVERIFY2(!children.empty(), (info.name + ": no children").c_str());
                    s = std::move(children[rng() % children.size()].state);
                }
                const std::string text = s.halideLoopNest();
                LoopNestParseResult r = parseLoopNestDump(d, text);
                QVERIFY2(r.state.has_value(), (info.name + ": " + r.error + "\n" + text).c_str());
                QVERIFY2(r.notes.empty(),
                         (info.name + ": " + (r.notes.empty() ? "" : r.notes[0]) + "\n" + text).c_str());
                QCOMPARE(r.state->numScheduled(), s.numScheduled());
                for (const FuncSchedule &f : s.funcs()) {
                    const FuncSchedule *g = r.state->scheduleOf(f.node);
                    QVERIFY(g);
                    const std::string what = info.name + " " + d.node(f.node).name + "\n" + text;
                    QVERIFY2(g->location == f.location && g->consumer == f.consumer &&
                                 g->consumerStage == f.consumerStage && g->storedAtRoot == f.storedAtRoot,
                             what.c_str());
                    QVERIFY2(g->stages.size() == f.stages.size(), what.c_str());
                    for (size_t st = 0; st < f.stages.size(); st++) {
                        const StageTiling &a = f.stages[st], &b = g->stages[st];
                        QVERIFY2(a.threads == b.threads && a.serial == b.serial && a.unrolled == b.unrolled,
                                 what.c_str());
                        QVERIFY2(!a.hasVectorLoop || a.vectorLoop == b.vectorLoop, what.c_str());
                    }
                    blockLevel += f.location == ComputeLocation::BlockLevel;
                    threadLevel += f.location == ComputeLocation::ThreadLevel;
                }
                states++;
            }
        }
        qInfo() << states << "random states round-tripped," << blockLevel << "block-level and" << threadLevel
                << "thread-level Funcs among them";
        QVERIFY(blockLevel > 0 && threadLevel > 0);
    }

    // ---- beamscope-cli state ----

    void cliPrintsFeaturesOfADump()
    {
        const std::filesystem::path dir = std::filesystem::temp_directory_path() / "beamscope_golden_states_cli";
        std::filesystem::create_directories(dir);
        const std::filesystem::path dump = dir / "box_blur_block.txt";
        test::writeFile(dump, test::kBoxBlurBlockLevelDump);
        const test::ProcessResult r =
            test::runProcess(test::cliPath(), {"state", "--app", "box_blur", "--loop-nest", dump.string(), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const auto j = parseJson(r.out);
        QVERIFY2(j.value.has_value(), r.out.c_str());
        QCOMPARE(j.value->find("complete")->toBool(), true);
        QCOMPARE(QString::fromStdString(j.value->find("legality")->toString()), QString());
        const Json *stages = j.value->find("stages");
        QVERIFY(stages && stages->size() == 2);
        // The CLI reports the library's features for the parsed state.
        test::BuiltPipeline p = test::goldenBoxBlur();
        const std::optional<State> s = parseLoopNest(*p.searchDag, test::kBoxBlurBlockLevelDump, nullptr);
        QVERIFY(s.has_value());
        const std::vector<ScheduleFeatures> f = computeFeatures(*s, FeatureParams{});
        for (size_t slot = 0; slot < 2; slot++) {
            const Json &st = stages->items()[slot];
            QCOMPARE(QString::fromStdString(st.find("stage")->toString()),
                     QString::fromStdString(stageNameOf(*p.searchDag, slot)));
            QCOMPARE(st.find("features")->size(), size_t(kScheduleFeatureCount));
            for (int i = 0; i < kScheduleFeatureCount; i++)
                QCOMPARE(st.find("features")->find(featureName(i))->toNumber(), f[slot].values[static_cast<size_t>(i)]);
        }
        // Text form: the loop nest and every feature name.
        const test::ProcessResult t =
            test::runProcess(test::cliPath(), {"state", "--app", "box_blur", "--loop-nest", dump.string()});
        QVERIFY2(t.exitCode == 0, t.err.c_str());
        QVERIFY(t.out.find("loop nest:") != std::string::npos);
        QVERIFY(t.out.find("blur_x_s0 at output.block in shared memory") != std::string::npos);
        QVERIFY(t.out.find("working_set_at_thread") != std::string::npos);
        std::filesystem::remove_all(dir);
    }

    void cliRefusesBadInput()
    {
        const std::filesystem::path dir = std::filesystem::temp_directory_path() / "beamscope_golden_states_cli_bad";
        std::filesystem::create_directories(dir);
        const std::filesystem::path dump = dir / "bad.txt";
        std::string text = test::kBoxBlurBlockLevelDump;
        text.replace(text.find("output 96 640"), 13, "outptu 96 640");
        test::writeFile(dump, text);
        const test::ProcessResult r =
            test::runProcess(test::cliPath(), {"state", "--app", "box_blur", "--loop-nest", dump.string()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find(dump.string() + ": line 4: the pipeline has no Func 'outptu'") != std::string::npos,
                 r.err.c_str());
        QCOMPARE(test::runProcess(test::cliPath(), {"state", "--app", "nonexistent_app", "--loop-nest", dump.string()})
                     .exitCode,
                 1);
        QCOMPARE(test::runProcess(test::cliPath(), {"state", "--loop-nest", dump.string()}).exitCode, 2);
        QCOMPARE(test::runProcess(test::cliPath(), {"state", "--app", "box_blur"}).exitCode, 2);
        std::filesystem::remove_all(dir);
    }

    // With Halide's weights: the CLI's total is the cost model on the parsed state's features.
    void cliPredictsTheCost()
    {
        BEAMSCOPE_REQUIRE_DATA(log, "tests/fixtures/halide/pipelines/matmul/beam32/search_log_excerpt.txt");
        BEAMSCOPE_REQUIRE_DATA(weightsPath, "weights/anderson2021/baseline.weights");
        const test::ProcessResult r =
            test::runProcess(test::cliPath(), {"state", "--app", "matmul", "--loop-nest", log.string(), "--weights",
                                               weightsPath.string(), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const auto j = parseJson(r.out);
        QVERIFY2(j.value.has_value(), r.out.c_str());
        QVERIFY(j.value->find("predicted_cost"));
        test::BuiltPipeline p = test::buildRegistered("matmul");
        const std::optional<State> s = parseLoopNest(*p.searchDag, test::readFile(log), nullptr);
        QVERIFY(s.has_value());
        const double expected = predictedCost(*p.searchDag, computeFeatures(*s, FeatureParams{}));
        // Same features and model in both processes: float32 network, so equal to ~1e-7.
        QVERIFY(std::fabs(j.value->find("predicted_cost")->toNumber() - expected) <= 1e-6 * std::fabs(expected));
        double stageSum = 0;
        for (const Json &st : j.value->find("stages")->items())
            stageSum += st.find("cost")->toNumber();
        QVERIFY(std::fabs(stageSum - expected) <= 1e-5 * std::fabs(expected));
    }

    // ---- Halide's golden schedules (tests/fixtures/halide) ----

    void goldenPipelines_data()
    {
        QTest::addColumn<QString>("pipeline");
        QTest::addColumn<int>("beam");
        for (const char *p : {"box_blur", "stencil_chain_u16", "matmul", "histogram", "conv_relu", "select_cast"})
            for (int beam : {1, 32})
                QTest::newRow(qPrintable(QString("%1 beam%2").arg(p).arg(beam))) << QString(p) << beam;
    }

    void goldenPipelines()
    {
        QFETCH(QString, pipeline);
        QFETCH(int, beam);
        const std::string dir =
            "tests/fixtures/halide/pipelines/" + pipeline.toStdString() + "/beam" + std::to_string(beam);
        BEAMSCOPE_REQUIRE_DATA(folder, dir);
        std::vector<std::string> names;
        const auto expected = readFeatureTsv(folder / "schedule_features.tsv", &names);
        checkGoldenSchedule(pipeline.toStdString() + " beam" + std::to_string(beam), pipeline.toStdString(),
                            test::readFile(folder / "search_log_excerpt.txt"), expected, names,
                            readTotalCost(folder / "predicted_cost.txt"));
    }

    // Every complete state Halide's search costed into a beam (tests/fixtures/halide/search_trees,
    // 419 states of many shapes, 192 with a block-level Func): parsed, featurized and costed, each
    // must give Halide's cost. Tolerance 1e-5 relative, as for the golden schedules above (the
    // model reproduces Halide's predictions within 7.3e-6 on identical features).
    void searchTreeCompleteStates()
    {
        BEAMSCOPE_REQUIRE_DATA(file, "tests/fixtures/halide/search_trees/complete_states.txt");
        const std::string text = test::readFile(file);
        std::map<std::string, test::BuiltPipeline> pipelines;
        int checked = 0, block = 0;
        size_t pos = text.find("\n=== ");
        while (pos != std::string::npos) {
            const size_t headerEnd = text.find('\n', pos + 1);
            const size_t next = text.find("\n=== ", headerEnd);
            const std::string header = text.substr(pos + 1, headerEnd - pos - 1);
            const std::string dump =
                text.substr(headerEnd + 1, next == std::string::npos ? std::string::npos : next - headerEnd);
            pos = next;
            std::istringstream h(header);
            std::string marks, pipeline, beam, word, hash;
            double cost = 0;
            h >> marks >> pipeline >> beam;
            while (h >> word)
                if (word == "cost")
                    h >> cost;
                else if (word == "hash")
                    h >> hash;
            // The dump is Halide's, byte for byte: its FNV-1a is the tree's hash.
            uint64_t fnv = 0xcbf29ce484222325ULL;
            for (unsigned char c : dump)
                fnv = (fnv ^ c) * 0x100000001b3ULL;
            char hex[17];
            std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv));
            QCOMPARE(QString(hex), QString::fromStdString(hash));
            auto it = pipelines.find(pipeline);
            if (it == pipelines.end())
                it = pipelines.emplace(pipeline, test::buildRegistered(pipeline)).first;
            const SearchDag &d = *it->second.searchDag;
            LoopNestParseResult r = parseLoopNestDump(d, dump);
            QVERIFY2(r.state.has_value(), (header + ": " + r.error).c_str());
            QVERIFY2(r.state->complete(), header.c_str());
            const double ours = predictedCost(d, computeFeatures(*r.state, FeatureParams{}));
            QVERIFY2(std::fabs(ours - cost) <= 1e-5 * std::fabs(cost),
                     (header + ": Beamscope's cost " + std::to_string(ours) + "\n" + dump).c_str());
            block += dump.find("\n realize:") != std::string::npos ? 1 : 0;
            checked++;
        }
        QCOMPARE(checked, 419);
        QCOMPARE(block, 192);
    }

    void retrainSet_data()
    {
        QTest::addColumn<QString>("stem");
        // The retrain set's 24 schedules (samples/README.md: the first 12 distinct per pipeline).
        for (int k : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13})
            QTest::newRow(qPrintable(QString("box_blur_seed%1").arg(k, 3, 10, QChar('0'))))
                << QString("box_blur_seed%1").arg(k, 3, 10, QChar('0'));
        for (int k = 1; k <= 12; k++)
            QTest::newRow(qPrintable(QString("conv_relu_seed%1").arg(k, 3, 10, QChar('0'))))
                << QString("conv_relu_seed%1").arg(k, 3, 10, QChar('0'));
    }

    void retrainSet()
    {
        QFETCH(QString, stem);
        const std::string s = stem.toStdString();
        BEAMSCOPE_REQUIRE_DATA(root, "tests/fixtures/halide/samples/retrain_set/manifest.tsv");
        const std::filesystem::path dir = root.parent_path();
        const std::string pipeline = s.substr(0, s.find("_seed"));
        std::vector<std::string> names;
        const auto golden =
            test::projectData("tests/fixtures/halide/pipelines/" + pipeline + "/beam1/schedule_features.tsv");
        QVERIFY(golden.has_value());
        readFeatureTsv(*golden, &names); // stage names of the .sample's stage axis
        checkGoldenSchedule(s, pipeline, test::readFile(dir / "schedules" / (s + ".loop_nest.txt")),
                            readSampleFeatures(dir / (s + ".sample")), names,
                            readManifestCosts(root).at(s + ".sample"));
    }

    void cleanupTestCase()
    {
        int schedules = 0, parsed = 0;
        for (const Summary &s : allSummaries()) {
            schedules++;
            parsed += s.parsed;
        }
        qInfo() << "golden schedules parsed:" << parsed << "of" << schedules;
        for (const auto &[feature, k] : knownDifferences())
            if (!knownSeen().count(feature) && schedules > 0)
                qInfo() << "listed as a known difference but matches on every golden schedule:"
                        << featureName(static_cast<int>(feature)) << "-" << k.reason;
        if (const char *out = std::getenv("BEAMSCOPE_FEATURE_MISMATCHES"); out && *out && schedules > 0) {
            const std::string md = markdownTable();
            writeFileAtomically(out, std::span<const char>(md.data(), md.size()), Overwrite::Replace);
        }
    }
};

QTEST_GUILESS_MAIN(GoldenStatesTest)
#include "test_golden_states.moc"
