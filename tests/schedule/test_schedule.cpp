// core/schedule on hand-made states: the exact source emitted for a known
// box_blur state, the same plan applied to the real Funcs (checked through
// Halide's own view of the schedule and by compiling PTX), names taken from
// another build of the pipeline, and errors for incomplete states.

#include "core/schedule/apply_schedule.h"
#include "core/schedule/emit_source.h"
#include "core/search/autoschedule.h"
#include "core/search/nest_lines.h"
#include "core/search/state_from_decisions.h"
#include "core/search/search_space.h"
#include "tests/search/search_test_support.h"
#include "tests/support/test_data.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace beamscope;
using search::ComputeLocation;
using search::FuncSchedule;

namespace {

// Halide 14 makes Func names unique per process: a second build of box_blur
// has "output$1". Nodes are found by the name the pipeline gave.
int nodeOf(const test::BuiltPipeline &p, const std::string &base)
{
    for (const dag::Node &n : p.dag->nodes)
        if (n.name == base || n.name.starts_with(base + "$"))
            return n.id;
    return -1;
}

// box_blur (golden pipeline): output 16 x 16 tiles of 16 x 8 threads with 2
// serial rows; blur_x per block in shared memory: the block needs 16 x 18 of
// it (3-row stencil), covered by 16 x 6 threads x 3 rows (a serial loop
// around constant-size thread loops).
search::State knownBoxBlurState(const test::BuiltPipeline &p)
{
    search::State s(*p.searchDag);
    FuncSchedule out;
    out.node = nodeOf(p, "output");
    out.location = ComputeLocation::Root;
    out.stages = {test::tiling({16, 8}, {1, 2}, false)};
    s.add(out);
    FuncSchedule bx;
    bx.node = nodeOf(p, "blur_x");
    bx.location = ComputeLocation::BlockLevel;
    bx.consumer = out.node;
    bx.stages = {test::tiling({16, 6}, {1, 3}, false)};
    s.add(bx);
    return s;
}

// box_blur's output in tiles of 1 x 32 threads, 4 x 8 points each; blur_x per thread of it, or
// inside its serial loops (once per point).
search::State blurXPerThreadOfOutput(const test::BuiltPipeline &p, bool insideSerialLoop, search::StageTiling blurX)
{
    search::State s(*p.searchDag);
    FuncSchedule out;
    out.node = nodeOf(p, "output");
    out.stages = {test::tiling({1, 32}, {4, 8}, false)};
    s.add(out);
    FuncSchedule bx;
    bx.node = nodeOf(p, "blur_x");
    bx.location = ComputeLocation::ThreadLevel;
    bx.consumer = out.node;
    bx.insideSerialLoop = insideSerialLoop;
    bx.stages = {std::move(blurX)};
    s.add(bx);
    return s;
}

const char *const kExpectedBoxBlur = R"(// Beamscope GPU schedule for box_blur (predicted cost 1.75)
Func output = pipeline.get_func(2);
Func blur_x = pipeline.get_func(1);
Var x("x");
Var y("y");
Var xi("xi");
Var xi_yi("xi_yi");
Var yi("yi");
Var yii("yii");

// output.s0: predicted cost 1.5
output
    .compute_root()
    .split(x, x, xi, 16, TailStrategy::GuardWithIf)
    .split(y, y, yi, 16, TailStrategy::GuardWithIf)
    .split(yi, yi, yii, 2, TailStrategy::GuardWithIf)
    .reorder(yii, xi, yi, x, y)
    .gpu_blocks(x, y)
    .fuse(xi, yi, xi_yi)
    .gpu_threads(xi_yi);

// blur_x.s0: predicted cost 0.25
blur_x
    .compute_at(output, x)
    .store_at(output, x)
    .store_in(MemoryType::GPUShared)
    .split(x, x, xi, 16, TailStrategy::GuardWithIf)
    .split(y, y, yii, 3, TailStrategy::GuardWithIf)
    .split(y, y, yi, 6, TailStrategy::GuardWithIf)
    .reorder(yii, xi, yi, x, y)
    .fuse(xi, yi, xi_yi)
    .gpu_threads(xi_yi);
)";

std::string dimsOf(const Halide::Func &f)
{
    std::string out;
    // Halide names split loops by their path ("y.yi.yii"); the last part is the Var.
    for (const auto &d : f.get_schedule().dims())
        out += d.var.substr(d.var.rfind('.') + 1) + (d.for_type == Halide::Internal::ForType::GPUBlock    ? ":block "
                                                     : d.for_type == Halide::Internal::ForType::GPUThread ? ":thread "
                                                                                                          : " ");
    return out;
}

// PTX generation needs no GPU: lowering and codegen reject an illegal GPU schedule.
void compileForCuda(const std::vector<Halide::Func> &outputs)
{
    Halide::Pipeline pipeline(outputs);
    QTemporaryDir dir;
    pipeline.compile_to_llvm_assembly(dir.filePath("t.ll").toStdString(), pipeline.infer_arguments(), "t",
                                      Halide::Target("x86-64-linux-cuda-cuda_capability_70"));
}

// Halide only answers questions about a LoopLevel once it is locked (as lowering does).
Halide::LoopLevel computeLevel(const Halide::Func &f)
{
    Halide::LoopLevel l = f.function().schedule().compute_level();
    l.lock();
    return l;
}

} // namespace

class TestSchedule : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // First in the class: the process's first box_blur build has the plain names.
    void boxBlurSourceIsExact()
    {
        const test::BuiltPipeline p = test::buildRegistered("box_blur");
        const search::State s = knownBoxBlurState(p);
        QVERIFY2(s.legalityProblem(1024, 48 * 1024, 64).empty(), s.legalityProblem(1024, 48 * 1024, 64).c_str());
        QCOMPARE(s.computedRegion(nodeOf(p, "blur_x"))[1].extent(), 18); // the premise of the blur_x tiling
        const std::vector<float> costs = {1.5f, 0.25f};                  // cost-model order: output, blur_x
        schedule::EmitOptions o;
        o.pipeline = "box_blur";
        o.stageCosts = &costs;
        o.totalCost = 1.75;
        const std::string source = schedule::emitSource(s, p.outputs, o);
        QCOMPARE(QString::fromStdString(source), QString::fromUtf8(kExpectedBoxBlur));
    }

    void applyMatchesThePlanAndCompilesForCuda()
    {
        const test::BuiltPipeline p = test::buildRegistered("box_blur");
        const search::State s = knownBoxBlurState(p);
        schedule::applySchedule(s, p.outputs);
        const auto funcs = schedule::funcsByName(p.outputs);
        const std::string outName = p.dag->nodes[static_cast<size_t>(nodeOf(p, "output"))].name;
        const Halide::Func &out = funcs.at(outName),
                           &bx = funcs.at(p.dag->nodes[static_cast<size_t>(nodeOf(p, "blur_x"))].name);
        QCOMPARE(QString::fromStdString(dimsOf(out)), QString("yii xi_yi:thread x:block y:block __outermost "));
        // blur_x: its serial tile of 3 rows inside the threads, the serial outer loops around them.
        QCOMPARE(QString::fromStdString(dimsOf(bx)), QString("yii xi_yi:thread x y __outermost "));
        QVERIFY(computeLevel(out).is_root());
        QCOMPARE(QString::fromStdString(computeLevel(bx).var().name()), QString("x"));
        QCOMPARE(computeLevel(bx).func(), outName);
        QVERIFY(bx.function().schedule().memory_type() == Halide::MemoryType::GPUShared);
        // PTX generation needs no GPU: lowering and codegen reject an illegal GPU schedule.
        const Halide::Target cuda("x86-64-linux-cuda-cuda_capability_70");
        Halide::Pipeline pipeline(p.outputs);
        QTemporaryDir dir;
        const std::string ll = dir.filePath("box_blur.ll").toStdString();
        pipeline.compile_to_llvm_assembly(ll, pipeline.infer_arguments(), "box_blur_test", cuda);
        std::ifstream in(ll);
        std::stringstream text;
        text << in.rdbuf();
        // The PTX kernel is embedded in the host module as a string.
        QVERIFY(text.str().find(".target sm_70") != std::string::npos);
        QVERIFY(text.str().find("bar.sync") != std::string::npos); // the shared-memory stage needs barriers
    }

    void threadLevelFuncCompilesForCuda()
    {
        // blur_x per GPU thread of output (registers / local memory): 4 x 10 points per thread.
        const test::BuiltPipeline p = test::buildRegistered("box_blur");
        const search::State s = blurXPerThreadOfOutput(p, false, test::tiling({1, 1}, {4, 10}, false));
        QVERIFY2(s.legalityProblem(1024, 48 * 1024, 64).empty(), s.legalityProblem(1024, 48 * 1024, 64).c_str());
        schedule::applySchedule(s, p.outputs);
        compileForCuda(p.outputs);
    }

    void funcInASerialLoopIsComputedThere()
    {
        // blur_x inside output's serial loops, once per point a thread computes (Halide's
        // compute_in_tiles below the gpu_thread loop): its region is one point's 1 x 3.
        const test::BuiltPipeline p = test::buildRegistered("box_blur");
        const search::State s = blurXPerThreadOfOutput(p, true, test::tiling({1, 1}, {1, 3}, false));
        const FuncSchedule &bx = *s.scheduleOf(nodeOf(p, "blur_x")), &out = *s.scheduleOf(nodeOf(p, "output"));
        QVERIFY2(s.legalityProblem(1024, 48 * 1024, 64).empty(), s.legalityProblem(1024, 48 * 1024, 64).c_str());
        QCOMPARE(s.computedRegion(bx.node)[1].extent(), 3);
        schedule::applySchedule(s, p.outputs);
        const auto funcs = schedule::funcsByName(p.outputs);
        const std::string outName = p.dag->nodes[static_cast<size_t>(out.node)].name;
        const Halide::Func &output = funcs.at(outName),
                           &blurX = funcs.at(p.dag->nodes[static_cast<size_t>(bx.node)].name);
        // Serial xii and yii innermost, inside the thread loop: blur_x at the innermost, xii.
        QCOMPARE(QString::fromStdString(dimsOf(output)), QString("xii yii yi:thread x:block y:block __outermost "));
        QCOMPARE(computeLevel(blurX).func(), outName);
        QCOMPARE(QString::fromStdString(computeLevel(blurX).var().name()), QString("xii"));
        compileForCuda(p.outputs);
    }

    // A Func nested in a Func that is not compute_root (the placements of Halide's local_laplacian
    // and camera_pipe nests): at a block-level Func's thread loop, once per thread; inside its
    // serial loop, once per point; at a thread-level Func's innermost loop. Output runs 64 threads
    // here, so the kernel launches stage_4's 108 (with more, see threadLevelFuncInANarrowerLoop).
    void nestedFuncIsComputedInItsConsumer_data()
    {
        QTest::addColumn<QString>("placed");
        QTest::addColumn<QString>("func");
        QTest::addColumn<QString>("consumer");
        QTest::addColumn<QString>("loop");
        // stage_4's thread loops, fused, inside its serial outer loops (extent 1 at the estimate)
        // and around its serial tile (yii).
        QTest::newRow("block-level Func's thread loop") << "stage_3 per thread"
                                                        << "stage_3"
                                                        << "stage_4"
                                                        << "xi_yi";
        QTest::newRow("block-level Func's serial loop") << "stage_3 per point"
                                                        << "stage_3"
                                                        << "stage_4"
                                                        << "yii";
        QTest::newRow("thread-level Func's serial loop") << "stage_2 per point"
                                                         << "stage_2"
                                                         << "stage_3"
                                                         << "x";
    }

    void nestedFuncIsComputedInItsConsumer()
    {
        QFETCH(QString, placed);
        QFETCH(QString, func);
        QFETCH(QString, consumer);
        QFETCH(QString, loop);
        const test::BuiltPipeline p = test::buildRegistered("stencil_chain_u16");
        const search::State s =
            test::funcInABlockLevelFuncsThreadLoop(p, placed == "stage_2 per point", placed == "stage_3 per point", 4);
        QVERIFY2(s.legalityProblem(1024, 48 * 1024, 64).empty(), s.legalityProblem(1024, 48 * 1024, 64).c_str());
        // Every Func goes where the state puts it: no plan notes a departure.
        for (const schedule::StagePlan &stage : schedule::planSchedule(s).stages)
            QVERIFY2(stage.note.empty(), (stage.func + ": " + stage.note).c_str());
        schedule::applySchedule(s, p.outputs);
        const auto funcs = schedule::funcsByName(p.outputs);
        const auto nameOf = [&](const QString &f) {
            return p.dag->nodes[static_cast<size_t>(p.node(f.toStdString()))].name;
        };
        QCOMPARE(QString::fromStdString(dimsOf(funcs.at(nameOf("stage_4")))),
                 QString("yii xi_yi:thread x y __outermost "));
        const Halide::Func &nested = funcs.at(nameOf(func));
        QCOMPARE(computeLevel(nested).func(), nameOf(consumer));
        QCOMPARE(QString::fromStdString(computeLevel(nested).var().name()), loop);
        compileForCuda(p.outputs);
    }

    // The same nest in a kernel that launches output's 128 threads: stage_3, per thread of stage_4's
    // 108, would get a slot per thread sized for 108 and indexed by 128; it is computed at root,
    // and stage_2, once in its serial loop, goes with it.
    void threadLevelFuncInANarrowerLoop()
    {
        const test::BuiltPipeline p = test::buildRegistered("stencil_chain_u16");
        const search::State s = test::funcInABlockLevelFuncsThreadLoop(p, true, false, 8);
        const int stage3 = p.node("stage_3");
        int seen = 0;
        for (const schedule::StagePlan &stage : schedule::planSchedule(s).stages) {
            if (stage.node != stage3)
                continue;
            ++seen;
            QVERIFY2(QString::fromStdString(stage.note).contains("fewer threads than its kernel launches"),
                     stage.note.c_str());
            QCOMPARE(stage.directives.front().kind, schedule::Directive::Kind::ComputeRoot);
        }
        QCOMPARE(seen, 1);
        schedule::applySchedule(s, p.outputs);
        compileForCuda(p.outputs);
    }

    // Thread-level Funcs that Halide 14 allocates wrongly are computed at root
    // (tests/fixtures/schedule/README.md): one read through a transpose, whose region per thread
    // has a size that depends on the thread, and one in a thread loop that runs fewer threads than
    // its kernel launches.
    void threadLevelFuncsHalideMisallocatesAreComputedAtRoot_data()
    {
        QTest::addColumn<QString>("pipeline");
        QTest::addColumn<QString>("dump");
        QTest::addColumn<QString>("func");
        QTest::addColumn<QString>("why");
        QTest::newRow("transpose's input per thread") << "random_215_10"
                                                      << "random_215_10_state0"
                                                      << "s3"
                                                      << "move apart from thread to thread";
        QTest::newRow("demosaic row in a 136-thread loop of a 256-thread kernel")
            << "camera_pipe"
            << "camera_pipe_beam8_state0"
            << "f9"
            << "fewer threads than its kernel launches";
    }

    void threadLevelFuncsHalideMisallocatesAreComputedAtRoot()
    {
        QFETCH(QString, pipeline);
        QFETCH(QString, dump);
        QFETCH(QString, func);
        QFETCH(QString, why);
        const test::BuiltPipeline p = test::buildRegistered(pipeline.toStdString());
        const auto path = test::projectData("tests/fixtures/schedule/" + dump.toStdString() + ".loop_nest.txt");
        QVERIFY(path);
        const search::State s = search::stateFromDecisions(
            *p.searchDag, search::partialScheduleDecisions(*p.searchDag, test::readFile(*path)), p.name);
        QVERIFY(s.complete());
        const int node = nodeOf(p, func.toStdString());
        QCOMPARE(s.scheduleOf(node)->location, ComputeLocation::ThreadLevel);
        const schedule::SchedulePlan plan = schedule::planSchedule(s);
        int departures = 0;
        for (const schedule::StagePlan &stage : plan.stages) {
            if (stage.node != node)
                continue;
            QVERIFY2(QString::fromStdString(stage.note).contains(why), stage.note.c_str());
            if (stage.stage == 0)
                QCOMPARE(stage.directives.front().kind, schedule::Directive::Kind::ComputeRoot);
            departures++;
        }
        QCOMPARE(departures, static_cast<int>(p.searchDag->node(node).stages.size()));
    }

    void anotherBuildIsMatchedByPosition()
    {
        // Funcs and Vars without explicit names get new automatic names in every build.
        auto make = [] {
            Halide::ImageParam in(Halide::Float(32), 2);
            Halide::Var x, y;
            Halide::Func a, b;
            a(x, y) = in(x, y) * 2.0f;
            b(x, y) = a(x, y) + a(x + 1, y);
            b.set_estimates({{0, 256}, {0, 256}});
            return std::vector<Halide::Func>{b};
        };
        const test::BuiltPipeline p = test::fromOutputs("auto_names", make());
        search::State s(*p.searchDag);
        FuncSchedule root;
        root.node = p.dag->outputNodes[0];
        root.stages = {test::tiling({32, 4}, {1, 2}, true)};
        s.add(root);
        while (!s.complete()) {
            FuncSchedule f;
            f.node = s.nextNode();
            f.location = ComputeLocation::Inlined;
            s.add(f);
        }
        const std::vector<Halide::Func> other = make();
        QVERIFY(other[0].name() != p.outputs[0].name());
        schedule::applySchedule(s, other);
        QVERIFY(computeLevel(other[0]).is_root());
        QVERIFY(dimsOf(other[0]).find(":block") != std::string::npos);
        QVERIFY(dimsOf(p.outputs[0]).find(":block") == std::string::npos); // the searched build is untouched
    }

    // The memory a searched Func is labelled with (the decision's "memory", the
    // state dump the explorer shows) is the memory the emitted schedule stores
    // it in; the features still see a block-level Func where Halide's
    // featurizer does, at its outermost (root) site, in global memory.
    void memoryLabelsAreWhatTheScheduleStores()
    {
        const test::BuiltPipeline p = test::buildRegistered("box_blur");
        search::State parent(*p.searchDag);
        FuncSchedule out;
        out.node = nodeOf(p, "output");
        out.stages = {test::tiling({16, 8}, {1, 2}, false)};
        parent.add(out);
        search::AutoscheduleParams params;
        std::mt19937_64 rng(1);
        const std::vector<search::Child> children = search::generateChildren(parent, params, {}, rng);
        int checked[2] = {0, 0};
        for (const search::Child &c : children) {
            const FuncSchedule &f = *c.state.scheduleOf(nodeOf(p, "blur_x"));
            if (f.location != ComputeLocation::BlockLevel && f.location != ComputeLocation::ThreadLevel)
                continue;
            const bool block = f.location == ComputeLocation::BlockLevel;
            ++checked[block ? 0 : 1];
            QCOMPARE(f.storageMemory(), block ? search::MemoryType::Shared : search::MemoryType::Register);
            if (block) { // the search realizes it at root too, as Halide's does: featurized in global memory
                QVERIFY(f.storedAtRoot);
                QCOMPARE(f.featureMemory(), search::MemoryType::Global);
            }
            const std::string label = search::memoryTypeName(f.storageMemory());
            QCOMPARE(c.decision.toJson(*p.searchDag, f).find("memory")->toString(), label);
            // The explorer reads the state's dump into typed lines and colours the realization by its memory.
            bool realizeLine = false;
            for (const search::NestLine &l : search::readNestLines(c.state.dump()))
                if (l.kind == search::NestLine::Kind::Realize && l.func.starts_with("blur_x")) {
                    realizeLine = true;
                    QCOMPARE(l.memory, block ? search::NestLine::Memory::Shared : search::NestLine::Memory::Register);
                }
            QVERIFY2(realizeLine, c.state.dump().c_str());
            // The emitted schedule: store_in(GPUShared) exactly for the block-level Func.
            search::State complete = c.state;
            while (!complete.complete()) {
                FuncSchedule rest;
                rest.node = complete.nextNode();
                rest.location = ComputeLocation::Inlined;
                complete.add(rest);
            }
            bool storedShared = false;
            for (const schedule::StagePlan &st : schedule::planSchedule(complete).stages)
                for (const schedule::Directive &d : st.directives)
                    if (st.func.starts_with("blur_x") && d.kind == schedule::Directive::Kind::StoreIn)
                        storedShared = storedShared || d.memory == Halide::MemoryType::GPUShared;
            QCOMPARE(storedShared, block);
        }
        QVERIFY2(checked[0] > 0 && checked[1] > 0, "box_blur's blur_x has block- and thread-level children");
    }

    void incompleteStateIsRefused()
    {
        const test::BuiltPipeline p = test::buildRegistered("box_blur");
        search::State s(*p.searchDag);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, schedule::planSchedule(s));
    }
};

QTEST_GUILESS_MAIN(TestSchedule)
#include "test_schedule.moc"
