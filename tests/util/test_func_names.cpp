// Func names as Beamscope shows them: unique within a pipeline, and the same
// whatever Halide's process-wide counters reached before the pipeline was built.

#include "core/util/halide_names.h"

#include "tests/weights/qtest_std_string.h"

#include <QtTest>

#include <set>

using beamscope::FuncNames;

class TestFuncNames : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void freshProcessNamesAreKept()
    {
        const FuncNames names({"output", "sum", "sum$1", "blur_x", "repeat_edge", "lambda_0"});
        QVERIFY(!names.renames());
        QCOMPARE(names.name("sum$1"), std::string("sum$1"));
        QCOMPARE(names.rewrite("sum$1_s0 reads sum"), std::string("sum$1_s0 reads sum"));
    }

    // The explorer builds a generator again in the same process: Halide's
    // counters moved on, the shown names do not.
    void rebuiltPipelineReadsAsTheFirstBuild()
    {
        const FuncNames names({"output$3", "sum$6", "sum$7", "blur_x$3", "lambda_4", "lambda_2"});
        QCOMPARE(names.name("output$3"), std::string("output"));
        QCOMPARE(names.name("sum$6"), std::string("sum"));
        QCOMPARE(names.name("sum$7"), std::string("sum$1"));
        QCOMPARE(names.name("lambda_2"), std::string("lambda_0"));
        QCOMPARE(names.name("lambda_4"), std::string("lambda_1"));
        QCOMPARE(names.name("not_a_func"), std::string("not_a_func"));
    }

    void rewriteReplacesWholeNamesAndStageSuffixesOnly()
    {
        const FuncNames names({"sum$6", "sum$7", "sum_x$2"});
        QCOMPARE(names.rewrite("sum$7_s1: root, threads 16x8; sum$6.s0 inside sum$7"),
                 std::string("sum$1_s1: root, threads 16x8; sum.s0 inside sum$1"));
        // Not a prefix of a longer name, nor inside one.
        QCOMPARE(names.rewrite("sum$6x sum$66 xsum$6 sum_x$2_s0"), std::string("sum$6x sum$66 xsum$6 sum_x_s0"));
    }

    void distinctFuncsNeverShareAName()
    {
        const std::vector<std::string> halide{"sum$4", "sum$1", "sum$9", "lambda_7", "lambda_0", "lambda_3", "sum_1"};
        const FuncNames names(halide);
        std::set<std::string> shown;
        for (const std::string &n : halide)
            shown.insert(names.name(n));
        QCOMPARE(shown.size(), halide.size());
        QCOMPARE(names.name("sum$1"), std::string("sum"));
        QCOMPARE(names.name("sum$9"), std::string("sum$2"));
        QCOMPARE(names.name("lambda_0"), std::string("lambda_0"));
        QCOMPARE(names.name("lambda_7"), std::string("lambda_2"));
    }

    void fromStageNames()
    {
        const FuncNames names = FuncNames::fromStageNames({"output$2_s0", "sum$9_s0", "sum$9_s1", "sum$8_s1"});
        QCOMPARE(names.name("sum$8"), std::string("sum"));
        QCOMPARE(names.rewrite("sum$9_s1"), std::string("sum$1_s1"));
        QCOMPARE(names.name("output$2"), std::string("output"));
    }
};

QTEST_APPLESS_MAIN(TestFuncNames)
#include "test_func_names.moc"
