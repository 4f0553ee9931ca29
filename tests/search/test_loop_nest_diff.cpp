// Two loop-nest dumps compared Func by Func (core/search/loop_nest_diff): the first Func, in the
// order the search decides them, placed otherwise; dumps a Beamscope state cannot hold compare too.

#include "tests/search/search_test_support.h"

#include "core/search/loop_nest_diff.h"
#include "core/search/loop_nest_parser.h"

#include <QtTest>

#include <string>

using namespace beamscope;
using namespace beamscope::search;

namespace {

// test::kBoxBlurBlockLevelDump's output tiling with blur_x inlined.
const char *const kInlined = " gpu_none\n"
                             "realize: output [1536, 2560] with 1 stages\n"
                             "output 96 640 (0, 0) t gpu_block\n"
                             " output 16c 2c (0, 0) t gpu_thread\n"
                             "  output 1c 2c (0, 0) t gpu_serial\n"
                             "   output 1vc 1c (0, 0) * gpu_simd\n"
                             "    inlined: blur_x 3\n";

// Another output tiling, blur_x inlined.
const char *const kOtherTiling = " gpu_none\n"
                                 "realize: output [1536, 2560] with 1 stages\n"
                                 "output 24 20 (0, 0) t gpu_block\n"
                                 " output 64c 16c (0, 0) t gpu_thread\n"
                                 "  output 1c 8c (0, 0) t gpu_serial\n"
                                 "   output 1vc 1c (0, 0) * gpu_simd\n"
                                 "    inlined: blur_x 3\n";

// box_blur's output at root down to a second serial loop inside its first.
const char *const kOutputToInnerSerial = " gpu_none\n"
                                         "realize: output [1536, 2560] with 1 stages\n"
                                         "output 96 640 (0, 0) t gpu_block\n"
                                         " output 16c 2c (0, 0) t gpu_thread\n"
                                         "  output 1c 2c (0, 0) t gpu_serial\n"
                                         "   output 1c 1c (0, 0) t gpu_serial\n";

// blur_x computed inside output's second serial loop: a placement Beamscope's states do not hold.
const std::string kInInnerSerialLoop = std::string(kOutputToInnerSerial) +
                                       "    realize: blur_x [1c, 3c] with 1 stages\n"
                                       "    blur_x 1c 3c (0, 0) t gpu_serial\n"
                                       "     blur_x 1vc 1c (0, 0) * gpu_simd\n"
                                       "    output 1vc 1c (0, 0) * gpu_simd\n";

// The same output loops, blur_x inlined.
const std::string kInlinedInnerSerial = std::string(kOutputToInnerSerial) + "    output 1vc 1c (0, 0) * gpu_simd\n"
                                                                            "     inlined: blur_x 3\n";

} // namespace

class TestLoopNestDiff : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_boxBlur = test::goldenBoxBlur(); }

    void aDumpEqualsItself()
    {
        const FuncPlacementDifference d =
            firstDifferingFunc(*m_boxBlur.searchDag, parseLoopNestText(test::kBoxBlurBlockLevelDump),
                               parseLoopNestText(test::kBoxBlurBlockLevelDump));
        QVERIFY2(d.error.empty(), d.error.c_str());
        QCOMPARE(d.node, -1);
        QVERIFY(d.func.empty());
    }

    // A state read from a dump and printed again in Halide's form places every Func as the dump does.
    void aStatePrintedAgainEqualsItsDump()
    {
        const LoopNestParseResult parsed = parseLoopNestDump(*m_boxBlur.searchDag, test::kBoxBlurBlockLevelDump);
        QVERIFY2(parsed.state, parsed.error.c_str());
        const FuncPlacementDifference d = firstDifferingFunc(
            *m_boxBlur.searchDag, parseLoopNestText(test::kBoxBlurBlockLevelDump), parsed.state->halideLoopNestTree());
        QVERIFY2(d.error.empty(), d.error.c_str());
        QCOMPARE(d.node, -1);
    }

    // output is decided before blur_x: with the same output tiling the dumps part at blur_x.
    void thePlacementOfALaterFunc()
    {
        const FuncPlacementDifference d = firstDifferingFunc(
            *m_boxBlur.searchDag, parseLoopNestText(test::kBoxBlurBlockLevelDump), parseLoopNestText(kInlined));
        QVERIFY2(d.error.empty(), d.error.c_str());
        QCOMPARE(d.node, m_boxBlur.node("blur_x"));
        QCOMPARE(d.func, std::string("blur_x"));
        QCOMPARE(d.first,
                 std::string("s0 at output.s0 gpu_block: gpu_thread 16 1 (0, 0), gpu_serial 1 6, gpu_simd 1v 1; "
                             "stored at root, output.s0 gpu_block"));
        QCOMPARE(d.second, std::string("inline"));
    }

    // A different output tiling is the first step, whatever follows.
    void theTilingOfTheFirstFunc()
    {
        const FuncPlacementDifference d = firstDifferingFunc(
            *m_boxBlur.searchDag, parseLoopNestText(test::kBoxBlurBlockLevelDump), parseLoopNestText(kOtherTiling));
        QVERIFY2(d.error.empty(), d.error.c_str());
        QCOMPARE(d.func, std::string("output"));
        QVERIFY2(d.first.find("gpu_block 96 640") != std::string::npos, d.first.c_str());
        QVERIFY2(d.second.find("gpu_block 24 20") != std::string::npos, d.second.c_str());
    }

    // The state reader refuses a Func computed in a second serial loop (a state holds one, right inside
    // the thread loop); the comparison still names it.
    void aPlacementNoStateHolds()
    {
        QVERIFY(!parseLoopNestDump(*m_boxBlur.searchDag, kInInnerSerialLoop).state);
        const FuncPlacementDifference d = firstDifferingFunc(
            *m_boxBlur.searchDag, parseLoopNestText(kInInnerSerialLoop), parseLoopNestText(kInlinedInnerSerial));
        QVERIFY2(d.error.empty(), d.error.c_str());
        QCOMPARE(d.func, std::string("blur_x"));
        QVERIFY2(d.first.starts_with("s0 at output.s0 gpu_serial: gpu_serial 1 3"), d.first.c_str());
        QCOMPARE(d.second, std::string("inline"));
    }

    void aFuncThePipelineLacks()
    {
        std::string dump = kInlined;
        dump.replace(dump.find("inlined: blur_x"), 15, "inlined: blur_q");
        const FuncPlacementDifference d =
            firstDifferingFunc(*m_boxBlur.searchDag, parseLoopNestText(kInlined), parseLoopNestText(dump));
        QCOMPARE(d.node, -1);
        QVERIFY2(d.error.find("second dump: line 7: 'blur_q' names 0 Funcs") != std::string::npos, d.error.c_str());
    }

private:
    test::BuiltPipeline m_boxBlur;
};

QTEST_GUILESS_MAIN(TestLoopNestDiff)
#include "test_loop_nest_diff.moc"
