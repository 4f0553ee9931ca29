// beamscope-cli's and beamscope-bench-worker's command lines (CLI11 through
// app/cli/arguments.h): a number out of range, too large for any integer or
// not a number at all, two options that exclude each other, a flag given a
// value, an unknown option are each exit 2 with a message naming the option,
// what it takes and what it was given; --help is exit 0.

#include "core/util/json.h"
#include "tests/support/test_data.h"

#include <QTest>

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace beamscope;

namespace {

test::ProcessResult cli(const std::vector<std::string> &args) { return test::runProcess(test::cliPath(), args); }

std::string explain(const test::ProcessResult &r)
{
    return "exit " + std::to_string(r.exitCode) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// Exit 2, and the first line of stderr is "beamscope-cli: <message>" followed by the command's usage.
void expectUsageError(const std::vector<std::string> &args, const std::string &message, const std::string &usage)
{
    const test::ProcessResult r = cli(args);
    QVERIFY2(r.exitCode == 2, explain(r).c_str());
    QVERIFY2(contains(r.err, "beamscope-cli: " + message + "\n"), explain(r).c_str());
    QVERIFY2(contains(r.err, "\nusage: beamscope-cli " + usage), explain(r).c_str());
    QVERIFY2(r.out.empty(), explain(r).c_str());
}

} // namespace

class CliOptionsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // It used to say "found 1215752191": the value, cut to 32 bits.
    void beamOverflowNamesTheValueGiven()
    {
#ifdef BEAMSCOPE_CLI_HAS_SEARCH
        expectUsageError({"autoschedule", "--app", "box_blur", "--beam", "99999999999"},
                         "--beam: expected an integer in 1..100000, found 99999999999", "autoschedule ");
        expectUsageError({"autoschedule", "--app", "box_blur", "--dropout", "101"},
                         "--dropout: expected an integer in 1..100, found 101", "autoschedule ");
#else
        QSKIP("beamscope-cli was built without Halide: no autoschedule");
#endif
    }

    void integersBeyondSixtyFourBitsAreErrors()
    {
        expectUsageError({"predict", "--weights", "w", "--samples", "s", "--num-cores", "99999999999999999999"},
                         "--num-cores: expected an integer in 1..1000000, found 99999999999999999999", "predict ");
        expectUsageError({"weights", "diff", "a", "b", "--top", "99999999999999999999"},
                         "--top: expected an integer in 0..18446744073709551615, found 99999999999999999999",
                         "weights diff A B");
    }

    void valuesOutOfRangeOrMalformed()
    {
        expectUsageError({"retrain", "--samples", "s", "--initial", "w", "--out", "o", "--learning-rate", "2"},
                         "--learning-rate: expected a number in (0, 1], found 2", "retrain ");
        expectUsageError({"retrain", "--samples", "s", "--initial", "w", "--out", "o", "--min-batch", "65"},
                         "--min-batch: expected an integer in 1..64, found 65", "retrain ");
        expectUsageError({"weights", "diff", "a", "b", "--top", "-1"},
                         "--top: expected an integer in 0..18446744073709551615, found -1", "weights diff");
        // Decimal only: CLI11 alone would read 0x10 as 16 and 010 as 8.
        for (const char *text : {"x", "0x10", "1e3", " 4", "+5", ""})
            expectUsageError({"weights", "diff", "a", "b", "--top", text},
                             std::string("--top: expected an integer in 0..18446744073709551615, found '") + text + "'",
                             "weights diff");
        expectUsageError({"retrain", "--samples", "s", "--initial", "w", "--out", "o", "--learning-rate", "nan"},
                         "--learning-rate: expected a number in (0, 1], found 'nan'", "retrain ");
        expectUsageError({"retrain", "--samples", "s", "--init", "zeros", "--seed", "1", "--out", "o"},
                         "--init: expected random, found 'zeros'", "retrain ");
    }

    void exclusiveOptions()
    {
        expectUsageError(
            {"retrain", "--samples", "s", "--initial", "w", "--init", "random", "--seed", "1", "--out", "o"},
            "--initial excludes --init", "retrain ");
        expectUsageError(
            {"retrain", "--samples", "s", "--initial", "w", "--hold-one-out", "--out", "o", "--out-dir", "d"},
            "--out excludes --hold-one-out", "retrain ");
        expectUsageError({"retrain", "--samples", "s", "--init", "random", "--out", "o"}, "--init requires --seed",
                         "retrain ");
#ifdef BEAMSCOPE_CLI_HAS_SEARCH
        expectUsageError({"features", "--app", "box_blur", "--generator", "lib.so", "--name", "g"},
                         "--app excludes --generator", "features ");
#endif
    }

    void flagsUnknownOptionsAndMissingValues()
    {
        expectUsageError({"weights", "inspect", "p", "--json=true"}, "option --json takes no value", "weights inspect");
        expectUsageError({"weights", "inspect", "p", "--jsn"}, "unknown option --jsn", "weights inspect");
        expectUsageError({"weights", "inspect", "p", "q"}, "unexpected argument 'q'", "weights inspect");
        expectUsageError({"weights", "diff", "a", "b", "--top"}, "option --top needs a value", "weights diff");
        expectUsageError({"weights", "inspect"}, "PATH is required", "weights inspect");
        // The unknown option is what to fix, not the required option it may have been meant as.
        expectUsageError({"predict", "--weight", "w", "--samples", "s"}, "unknown option --weight", "predict ");
        const test::ProcessResult unknown = cli({"weights", "nope"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(contains(unknown.err, "unknown command 'weights nope'"), unknown.err.c_str());
    }

    void helpExitsZero()
    {
        const test::ProcessResult all = cli({"--help"});
        QVERIFY2(all.exitCode == 0, explain(all).c_str());
        QVERIFY(contains(all.out, "  weights inspect PATH [--json]\n"));
        const test::ProcessResult one = cli({"weights", "diff", "--help"});
        QVERIFY2(one.exitCode == 0, explain(one).c_str());
        QVERIFY2(one.out.rfind("usage: beamscope-cli weights diff A B [--json] [--top N]\n", 0) == 0, one.out.c_str());
        QVERIFY2(contains(one.out, "--top"), one.out.c_str());
        // A group's help lists that group only (slurm's commands need the Halide build).
#ifdef BEAMSCOPE_CLI_HAS_SEARCH
        const test::ProcessResult group = cli({"slurm", "--help"});
        QVERIFY2(group.exitCode == 0, explain(group).c_str());
        QVERIFY2(contains(group.out, "slurm status DIR [--json]"), group.out.c_str());
        QVERIFY2(!contains(group.out, "weights inspect"), group.out.c_str());
#else
        const test::ProcessResult group = cli({"weights", "--help"});
        QVERIFY2(group.exitCode == 0, explain(group).c_str());
        QVERIFY2(contains(group.out, "weights inspect PATH [--json]"), group.out.c_str());
        QVERIFY2(!contains(group.out, "retrain"), group.out.c_str());
#endif
        QCOMPARE(cli({}).exitCode, 2);
    }

    // cost-gap: its targets and feature files checked before any work, and a run whose targets are the
    // model's own totals (the cost of the features as they are) reporting no gap.
    void costGapChecksItsInputs()
    {
#ifdef BEAMSCOPE_CLI_HAS_SEARCH
        const auto convRelu = test::projectData("tests/fixtures/halide/samples/from_pipelines/conv_relu_beam32.sample");
        const auto matmul = test::projectData("tests/fixtures/halide/samples/from_pipelines/matmul_beam32.sample");
        QVERIFY(convRelu && matmul);
        expectUsageError({"cost-gap", convRelu->string(), "--target", "baseline=-1"},
                         "--target: expected WEIGHTS=COST with a positive cost, found \"baseline=-1\"", "cost-gap ");
        expectUsageError({"cost-gap", convRelu->string(), matmul->string(), convRelu->string(), "--target",
                          "baseline=1", "--target", "unsharp=1"},
                         "expected one FEATURES file for all targets or one per target (2), found 3", "cost-gap ");
        const test::ProcessResult other =
            cli({"cost-gap", convRelu->string(), matmul->string(), "--target", "baseline=1", "--target", "unsharp=1"});
        QVERIFY2(other.exitCode == 1 && contains(other.err, matmul->string()), explain(other).c_str());

        const test::ProcessResult first =
            cli({"cost-gap", convRelu->string(), "--target", "baseline=1", "--target", "unsharp=1", "--json"});
        QVERIFY2(first.exitCode == 0, explain(first).c_str());
        const auto doc = parseJson(first.out);
        QVERIFY2(doc.value, doc.error.c_str());
        const auto &targets = doc.value->find("targets")->items();
        QCOMPARE(targets.size(), size_t(2));
        std::vector<std::string> again{"cost-gap", convRelu->string(), "--top", "3", "--json"};
        for (const Json &t : targets) {
            char total[64];
            std::snprintf(total, sizeof total, "%.9g", t.find("total")->toNumber());
            again.insert(again.end(), {"--target", t.find("weights")->toString() + "=" + total});
        }
        const test::ProcessResult second = cli(again);
        QVERIFY2(second.exitCode == 0, explain(second).c_str());
        const auto doc2 = parseJson(second.out);
        QVERIFY2(doc2.value, doc2.error.c_str());
        for (const Json &t : doc2.value->find("targets")->items()) {
            const double target = t.find("target")->toNumber(), total = t.find("total")->toNumber();
            QVERIFY2(std::abs(total - target) <= 1e-7 * target, second.out.c_str());
        }
        const auto &candidates = doc2.value->find("candidates")->items();
        QCOMPARE(candidates.size(), size_t(3));
        for (const Json &c : candidates) // a change, never the value the features already hold
            QVERIFY(c.find("to")->toNumber() != c.find("from")->toNumber());
        for (const Json &scanned : doc2.value->find("schedule_scanned")->items())
            QVERIFY(scanned.toBool()); // one schedule for both targets: every stage scanned
#else
        QSKIP("beamscope-cli was built without Halide: no cost-gap");
#endif
    }

    void samplesDiffExitsOneWhenFeaturizationsDiffer()
    {
#ifdef BEAMSCOPE_CLI_HAS_SEARCH
        const auto beam32 = test::projectData("tests/fixtures/halide/samples/from_pipelines/conv_relu_beam32.sample");
        const auto beam1 = test::projectData("tests/fixtures/halide/samples/from_pipelines/conv_relu_beam1.sample");
        const auto selectCast =
            test::projectData("tests/fixtures/halide/samples/from_pipelines/select_cast_beam32.sample");
        QVERIFY(beam32 && beam1 && selectCast);
        const test::ProcessResult same = cli({"samples", "diff", beam32->string(), beam32->string()});
        QVERIFY2(same.exitCode == 0 && contains(same.out, " stages, 0 values differ\n"), explain(same).c_str());
        const test::ProcessResult other = cli({"samples", "diff", beam32->string(), beam1->string(), "--json"});
        QVERIFY2(other.exitCode == 1, explain(other).c_str());
        const auto doc = parseJson(other.out);
        QVERIFY2(doc.value, doc.error.c_str());
        const auto &differences = doc.value->find("differences")->items();
        QVERIFY(!differences.empty());
        for (const Json &d : differences) // one algorithm: only schedule features differ
            QVERIFY2(!contains(d.find("feature")->toString(), "pipeline "), other.out.c_str());
        const test::ProcessResult mismatch = cli({"samples", "diff", beam32->string(), selectCast->string()});
        QVERIFY2(mismatch.exitCode == 1 && contains(mismatch.err, "stage counts differ"), explain(mismatch).c_str());
#else
        QSKIP("beamscope-cli was built without Halide: no samples diff");
#endif
    }

    // core/bench writes the worker's command line; a value it cannot read is refused, not read as 0.
    void workerRefusesMalformedNumbers()
    {
        const char *worker = std::getenv("BEAMSCOPE_BENCH_WORKER");
        if (!worker)
            QSKIP("no bench worker in this build (BEAMSCOPE_BENCH_WORKER is not set)");
        const std::vector<std::string> base = {"--candidate", "missing.so", "--function", "f"};
        const struct {
            std::vector<std::string> extra;
            std::string message;
        } cases[] = {
            {{"--reps", "x"}, "--reps: expected an integer in 1..2147483647, found 'x'"},
            {{"--reps", "99999999999"}, "--reps: expected an integer in 1..2147483647, found 99999999999"},
            {{"--warmup", "3abc"}, "--warmup: expected an integer in 0..2147483647, found '3abc'"},
            {{"--seed", "-1"}, "--seed: expected an integer in 0..18446744073709551615, found -1"},
            {{"--scale", "0"}, "--scale: expected a number > 0, found 0"},
            {{"--inject-fault", "boom"}, "--inject-fault: expected crash, hang or wrong-output, found 'boom'"},
            {{"--describe-opencl"}, "--candidate excludes --describe-opencl"},
            {{"--bogus", "1"}, "unknown option --bogus"},
        };
        for (const auto &c : cases) {
            std::vector<std::string> args = base;
            args.insert(args.end(), c.extra.begin(), c.extra.end());
            const test::ProcessResult r = test::runProcess(worker, args);
            QVERIFY2(r.exitCode == 2, explain(r).c_str());
            QVERIFY2(contains(r.err, "beamscope-bench-worker: " + c.message + "\n"), explain(r).c_str());
            QVERIFY2(contains(r.err, "usage: beamscope-bench-worker"), explain(r).c_str());
        }
        const test::ProcessResult missing = test::runProcess(worker, {"--candidate", "missing.so"});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(contains(missing.err, "--function is required"), missing.err.c_str());
    }
};

QTEST_GUILESS_MAIN(CliOptionsTest)
#include "test_cli_options.moc"
