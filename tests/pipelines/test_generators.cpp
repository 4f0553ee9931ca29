// Generators from a library: loading, listing, params, estimates errors, and
// features equal to the golden box_blur; the CLI's apps / features commands.

#include "core/dag/function_dag.h"
#include "core/pipelines/generator_library.h"
#include "core/pipelines/generator_params.h"
#include "core/pipelines/pipeline.h"
#include "core/util/json.h"
#include "tests/dag/golden_features.h"
#include "tests/support/test_data.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <filesystem>

using namespace beamscope;

namespace {

const std::string kLibrary = BEAMSCOPE_TEST_GENERATORS;

std::vector<dag::PipelineFeatures> featuresOf(const pipelines::PipelineInstance &p)
{
    const dag::FunctionDAG dag(p.outputs);
    std::vector<dag::PipelineFeatures> out;
    for (const auto &ref : dag.costModelStages())
        out.push_back(dag.stage(ref).features);
    return out;
}

} // namespace

class TestGenerators : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Rebuilt at the same path, a library is loaded again: the search sees the new code
    // (a second dlopen of a loaded path would hand back the old one).
    void rebuiltLibraryIsLoadedAfresh()
    {
        QTemporaryDir dir;
        const std::filesystem::path lib = dir.filePath(QStringLiteral("librebuilt.so")).toStdString();
        std::filesystem::copy_file(BEAMSCOPE_TEST_REBUILT_V1, lib);
        auto funcs = [&] {
            const auto p = pipelines::buildGenerator(lib, "beamscope_test_rebuilt", {});
            return dag::FunctionDAG(p.outputs).nodes.size();
        };
        const size_t before = funcs();
        std::filesystem::copy_file(BEAMSCOPE_TEST_REBUILT_V2, lib, std::filesystem::copy_options::overwrite_existing);
        std::filesystem::last_write_time(lib, std::filesystem::last_write_time(lib) + std::chrono::seconds(2));
        QCOMPARE(funcs(), before + 1);
        QCOMPARE(funcs(), before + 1); // unchanged since: the same code, not loaded a third time
        // Nothing is left behind beside it or in the temporary folder's copies.
        QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()),
                               std::filesystem::directory_iterator()),
                 std::ptrdiff_t(1));
    }

    // A compiled generator takes its Inputs in declaration order; so does a build here.
    void inputsInDeclarationOrder()
    {
        const std::string stub = "class g final : public Halide::NamesInterface {\npublic:\n struct Inputs final {\n"
                                 "  Expr gain;\n  Expr offset;\n  Halide::Internal::StubInputBuffer<float> input;\n\n"
                                 "  Inputs() {}\n";
        QCOMPARE(pipelines::inputsFromStub(stub), (std::vector<std::string>{"gain", "offset", "input"}));
        QVERIFY(pipelines::inputsFromStub("no inputs here").empty());
    }

    // A bare file name is a library in the current folder, never one on the system path.
    void bareLibraryNameIsTheCurrentFolder()
    {
        QTemporaryDir dir;
        const QString previous = QDir::currentPath();
        QVERIFY(QDir::setCurrent(dir.path()));
        const std::string expected = (std::filesystem::path(dir.path().toStdString()) / "libfoo.so").string();
        QCOMPARE(pipelines::absoluteLibraryPath("libfoo.so"), expected);
        QCOMPARE(pipelines::absoluteLibraryPath("./sub/../libfoo.so"), expected);
        try {
            pipelines::loadGeneratorLibrary("libfoo.so");
            QFAIL("expected a GeneratorError");
        } catch (const pipelines::GeneratorError &e) {
            QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(expected)), e.what());
        }
        QVERIFY(QDir::setCurrent(previous));
    }

    void listsRegisteredGenerators()
    {
        const auto names = pipelines::loadGeneratorLibrary(kLibrary);
        QVERIFY(std::find(names.begin(), names.end(), "beamscope_test_box_blur") != names.end());
        QVERIFY(std::find(names.begin(), names.end(), "beamscope_test_no_estimates") != names.end());
        // Loading again is a no-op that lists the same generators.
        QCOMPARE(pipelines::loadGeneratorLibrary(kLibrary), names);
    }

    void missingLibraryIsAClearError()
    {
        try {
            pipelines::loadGeneratorLibrary("/nonexistent/libnothing.so");
            QFAIL("expected a GeneratorError");
        } catch (const pipelines::GeneratorError &e) {
            QVERIFY2(QString(e.what()).contains("/nonexistent/libnothing.so"), e.what());
        }
    }

    // The generator form of box_blur featurizes exactly like the ImageParam form
    // (input reached through input_im in both).
    // G13: an undefined C++ symbol is named as written, with the mangled name beside it.
    void undefinedSymbolIsDemangled()
    {
        try {
            pipelines::loadGeneratorLibrary(BEAMSCOPE_TEST_MISSING_SYMBOL);
            QFAIL("expected a GeneratorError");
        } catch (const pipelines::GeneratorError &e) {
            const std::string what = e.what();
            QVERIFY2(what.find("undefined symbol: beamscope_test_missing_symbol(int)") != std::string::npos,
                     what.c_str());
            QVERIFY2(what.find("(_Z29beamscope_test_missing_symboli)") != std::string::npos, what.c_str());
            QVERIFY2(what.find(BEAMSCOPE_TEST_MISSING_SYMBOL) != std::string::npos, what.c_str());
        }
    }

    // The check the explorer applies to a parameter value as it is typed (G11).
    void parameterValuesCheckedByType()
    {
        const auto check = [](const char *type, const char *value, std::vector<std::string> choices = {}) {
            pipelines::GeneratorParamSpec p{"p", type, "", std::move(choices)};
            return pipelines::checkGeneratorParamValue(p, value);
        };
        QCOMPARE(check("float", "1.5"), std::string());
        QCOMPARE(check("float", "three"), std::string("not a number"));
        QCOMPARE(check("double", "1e400"), std::string("not a number"));
        QCOMPARE(check("int32_t", "-3"), std::string());
        QCOMPARE(check("int32_t", "2.5"), std::string("not a whole number"));
        QCOMPARE(check("uint8_t", "-1"), std::string("not a whole number of 0 or more"));
        QCOMPARE(check("int64_t", "99999999999999999999"), std::string("out of range"));
        QCOMPARE(check("bool", "true", {"false", "true"}), std::string());
        QCOMPARE(check("bool", "yes", {"false", "true"}), std::string("not one of false, true"));
        QCOMPARE(check("Halide::Type", "uint16"), std::string());
        QVERIFY(!check("Halide::Type", "uint12").empty());
        QCOMPARE(check("std::string", "anything at all"), std::string());
    }

    void generatorMatchesBuiltinBoxBlur()
    {
        const auto gen = pipelines::buildGenerator(kLibrary, "beamscope_test_box_blur", {});
        QCOMPARE(gen.outputs.size(), size_t(1));
        QCOMPARE(gen.arguments.size(), size_t(1));
        const auto builtin = pipelines::findPipeline("box_blur")->build();
        QVERIFY(featuresOf(gen) == featuresOf(builtin));
    }

    // Exact: integer counts.
    void generatorMatchesGolden()
    {
        BEAMSCOPE_REQUIRE_DATA(file, "tests/fixtures/halide/pipelines/box_blur/pipeline_features.txt");
        const auto golden = test::readGoldenFeatures(file);
        const auto ours =
            featuresOf(pipelines::buildGenerator(kLibrary, "beamscope_test_box_blur", {{"divisor", "3.0"}}));
        QCOMPARE(ours.size(), golden.size());
        for (size_t i = 0; i < ours.size(); i++)
            QVERIFY(ours[i] == golden[i].features);
    }

    void unknownParamIsNamed()
    {
        try {
            pipelines::buildGenerator(kLibrary, "beamscope_test_box_blur", {{"radius", "5"}});
            QFAIL("expected a GeneratorError");
        } catch (const pipelines::GeneratorError &e) {
            QVERIFY2(QString(e.what()).contains("radius"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(pipelines::GeneratorError, pipelines::parseGeneratorParams({"novalue"}));
        QVERIFY_THROWS_EXCEPTION(pipelines::GeneratorError, pipelines::parseGeneratorParams({"a=1", "a=2"}));
        QVERIFY_THROWS_EXCEPTION(pipelines::GeneratorError, pipelines::parseGeneratorParams({"2x=1"}));
        QCOMPARE(pipelines::parseGeneratorParams({"divisor=2.5", "expr=a=b", "empty="}),
                 (std::map<std::string, std::string>{{"divisor", "2.5"}, {"expr", "a=b"}, {"empty", ""}}));
    }

    void unknownGeneratorListsKnownOnes()
    {
        try {
            pipelines::buildGenerator(kLibrary, "nope", {});
            QFAIL("expected a GeneratorError");
        } catch (const pipelines::GeneratorError &e) {
            QVERIFY2(QString(e.what()).contains("beamscope_test_box_blur"), e.what());
        }
    }

    void missingEstimatesNameOutputAndDimension()
    {
        try {
            pipelines::buildGenerator(kLibrary, "beamscope_test_no_estimates", {});
            QFAIL("expected a GeneratorError");
        } catch (const pipelines::GeneratorError &e) {
            const QString m = e.what();
            QVERIFY2(m.contains("output") && m.contains("dimension 0"), e.what());
        }
    }

    void cliFeaturesJsonForGenerator()
    {
        const auto r = test::runProcess(test::cliPath(), {"features", "--generator", kLibrary, "--name",
                                                          "beamscope_test_box_blur", "--param", "divisor=3", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto parsed = parseJson(r.out);
        QVERIFY2(parsed.value, parsed.error.c_str());
        const Json &j = *parsed.value;
        QCOMPARE(QString::fromStdString(j.find("pipeline")->toString()), QString("beamscope_test_box_blur"));
        const auto &stages = j.find("stages")->items();
        const auto expected = featuresOf(pipelines::findPipeline("box_blur")->build());
        QCOMPARE(stages.size(), expected.size());
        QCOMPARE(QString::fromStdString(stages[0].find("func")->toString()), QString("output"));
        QCOMPARE(QString::fromStdString(stages[1].find("name")->toString()), QString("blur_x_s0"));
        for (size_t s = 0; s < stages.size(); s++) {
            const auto &rows = stages[s].find("features")->items();
            QCOMPARE(rows.size(), size_t(40));
            for (size_t row = 0; row < 40; row++) {
                QCOMPARE(rows[row].items().size(), size_t(7));
                for (size_t t = 0; t < 7; t++)
                    QCOMPARE(int(rows[row].items()[t].toInt()), expected[s].matrix[row][t]);
            }
        }
    }

    // `state` on a generator: Halide's own box_blur loop nest reads back as a complete state
    // costing what it costs on the built-in box_blur; a dump that leaves blur_x out says so.
    void cliStateOfAGeneratorNamesUndecidedFuncs()
    {
        BEAMSCOPE_REQUIRE_DATA(log, "tests/fixtures/halide/pipelines/box_blur/beam1/search_log_excerpt.txt");
        const auto state = [](const std::vector<std::string> &pipeline, const std::string &dump) {
            std::vector<std::string> args = {"state", "--loop-nest", dump, "--weights", "baseline", "--json"};
            args.insert(args.begin() + 1, pipeline.begin(), pipeline.end());
            return test::runProcess(test::cliPath(), args);
        };
        const std::vector<std::string> generator = {"--generator", kLibrary, "--name", "beamscope_test_box_blur"};
        const auto fromGenerator = state(generator, log.string());
        QVERIFY2(fromGenerator.exitCode == 0, fromGenerator.err.c_str());
        const auto fromApp = state({"--app", "box_blur"}, log.string());
        QVERIFY2(fromApp.exitCode == 0, fromApp.err.c_str());
        const Json g = *parseJson(fromGenerator.out).value, a = *parseJson(fromApp.out).value;
        QVERIFY(g.find("complete")->toBool());
        QCOMPARE(g.find("undecided")->size(), size_t(0));
        QCOMPARE(g.find("predicted_cost")->toNumber(), a.find("predicted_cost")->toNumber());

        QTemporaryDir dir;
        const std::string partial = dir.filePath(QStringLiteral("output_only.txt")).toStdString();
        test::writeFile(partial, " gpu_none\n"
                                 "realize: output [1536, 2560] with 1 stages\n"
                                 "output 96 80 (0, 0) t gpu_block\n"
                                 " output 16c 4c (0, 0) t gpu_thread\n"
                                 "  output 1c 8c (0, 0) t gpu_serial\n"
                                 "   output 1vc 1c (0, 0) * gpu_simd\n");
        const auto open = state(generator, partial);
        QVERIFY2(open.exitCode == 0, open.err.c_str());
        const Json o = *parseJson(open.out).value;
        QVERIFY(!o.find("complete")->toBool());
        QCOMPARE(o.find("undecided")->size(), size_t(1));
        QCOMPARE(o.find("undecided")->items()[0].toString(), std::string("blur_x"));
        const auto text = test::runProcess(test::cliPath(), {"state", "--generator", kLibrary, "--name",
                                                             "beamscope_test_box_blur", "--loop-nest", partial});
        QVERIFY2(text.out.find("undecided (1 of 2 Funcs): blur_x") != std::string::npos, text.out.c_str());
    }

    void cliFeaturesErrors()
    {
        auto r = test::runProcess(test::cliPath(), {"features", "--app", "no_such_app"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(QString::fromStdString(r.err).contains("no_such_app"));
        r = test::runProcess(test::cliPath(), {"features"});
        QCOMPARE(r.exitCode, 2);
        r = test::runProcess(test::cliPath(),
                             {"features", "--generator", kLibrary, "--name", "beamscope_test_no_estimates"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(QString::fromStdString(r.err).contains("dimension 0"));
    }

    void cliFeaturesTextForApp()
    {
        const auto r = test::runProcess(test::cliPath(), {"features", "--app", "matmul"});
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromStdString(r.out);
        QVERIFY(out.contains("stage 1 prod definition 1"));
        QVERIFY(out.contains("slice.Store"));
    }

    void cliAppsJson()
    {
        const auto r = test::runProcess(test::cliPath(), {"apps", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto parsed = parseJson(r.out);
        QVERIFY2(parsed.value, parsed.error.c_str());
        const auto &list = parsed.value->find("pipelines")->items();
        QCOMPARE(list.size(), pipelines::builtinPipelines().size());
        for (const Json &p : list) {
            QVERIFY(p.find("stages")->toInt() >= 1);
            const std::string origin = p.find("origin")->toString();
            QVERIFY(origin == "app" || origin == "golden");
            if (p.find("name")->toString() == "matmul")
                QCOMPARE(p.find("stages")->toInt(), int64_t(3));
        }
    }
};

QTEST_GUILESS_MAIN(TestGenerators)
#include "test_generators.moc"
