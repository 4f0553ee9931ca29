// core/bench/float_check: which pipelines call the device math library, and
// when a strict_float comparison may accept one-unit differences.

#include "core/bench/float_check.h"
#include "core/pipelines/pipeline.h"

#include <QtTest>

using namespace beamscope;
using namespace beamscope::bench;

namespace {

Measurement wrongOutput(double mismatches, double values, double maxAbsError, const char *type)
{
    Measurement m;
    m.failure = Failure::WrongOutput;
    m.checked = true;
    m.values = values;
    m.mismatches = mismatches;
    m.maxAbsError = maxAbsError;
    Json out = Json::object();
    out["name"] = "out";
    out["type"] = type;
    Json outputs = Json::array();
    outputs.push(out);
    m.outputs = outputs;
    return m;
}

} // namespace

class TestFloatCheck : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void findsMathCallsThroughTheWholePipeline()
    {
        Halide::Var x("x");
        Halide::Func a("a"), b("b"), c("c");
        a(x) = Halide::exp(Halide::cast<float>(x)) + Halide::sqrt(Halide::cast<float>(x));
        b(x) = a(x) * 2.0f;
        b(x) += Halide::pow(b(x), 0.5f); // in an update, two Funcs away from the output
        c(x) = Halide::cast<uint8_t>(b(x));
        const std::vector<std::string> calls = inexactMathCalls({c});
        QCOMPARE(calls, (std::vector<std::string>{"exp", "pow", "sqrt"}));
    }

    void plainArithmeticCallsNothing()
    {
        Halide::Var x("x");
        Halide::Func f("f");
        f(x) = Halide::cast<uint8_t>(Halide::floor(Halide::cast<float>(x) * 0.299f + 0.5f) / 3.0f);
        QVERIFY(inexactMathCalls({f}).empty());
    }

    void builtInAppsAsDocumented()
    {
        // float_check.h's evidence names these two: hist has no math calls (its
        // differences were all fast-math), local_laplacian calls exp.
        const auto hist = pipelines::findPipeline("hist");
        const auto ll = pipelines::findPipeline("local_laplacian");
        QVERIFY(hist && ll);
        QVERIFY(inexactMathCalls(hist->build().outputs).empty());
        QCOMPARE(inexactMathCalls(ll->build().outputs), (std::vector<std::string>{"exp"}));
    }

    void toleranceOnlyForMathCallsAndIntegerOutputs()
    {
        const std::vector<std::string> exp = {"exp"};
        QVERIFY(withinMathLibraryTolerance(wrongOutput(16, 61440, 1, "uint16"), exp));
        QVERIFY(!withinMathLibraryTolerance(wrongOutput(16, 61440, 1, "uint16"), {}));   // no math calls: exact
        QVERIFY(!withinMathLibraryTolerance(wrongOutput(16, 61440, 2, "uint16"), exp));  // two units
        QVERIFY(!withinMathLibraryTolerance(wrongOutput(700, 61440, 1, "uint16"), exp)); // over 1% of values
        QVERIFY(!withinMathLibraryTolerance(wrongOutput(16, 61440, 1, "float32"), exp)); // floats have their own
        Measurement crashed = wrongOutput(16, 61440, 1, "uint8");
        crashed.failure = Failure::Crash;
        QVERIFY(!withinMathLibraryTolerance(crashed, exp));
    }

    // bgu's solver divides by fast_inverse: its OpenCL run cannot be compared with the host
    // reference, only run to its end (schedule::AppCheck::outputNotComparable), and it alone.
    void approximateReciprocalsAreNamed()
    {
        const auto bgu = pipelines::findPipeline("bgu");
        QVERIFY(bgu);
        const std::vector<std::string> calls = inexactMathCalls(bgu->build().outputs);
        QVERIFY(callsApproximateReciprocal(calls));
        QVERIFY(callsApproximateReciprocal({"exp", "fast_inverse_sqrt"}));
        QVERIFY(!callsApproximateReciprocal({"exp", "sqrt"}));
        QVERIFY(!callsApproximateReciprocal({}));
        for (const char *app : {"local_laplacian", "camera_pipe", "nl_means", "hist"}) {
            const auto info = pipelines::findPipeline(app);
            QVERIFY(info);
            QVERIFY2(!callsApproximateReciprocal(inexactMathCalls(info->build().outputs)), app);
        }
    }
};

QTEST_GUILESS_MAIN(TestFloatCheck)
#include "test_float_check.moc"
