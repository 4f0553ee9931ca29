// A user's generator libraries in the explorer, offscreen: a library built by
// the tests is looked at in a child process, its generators and their
// GeneratorParams listed; one is searched with a parameter set, listed in the
// Pipeline workspace and asked for by the Autotune workspace; libraries that
// crash, register nothing or are missing are reported by name while the
// explorer keeps running; and the plugin's recorded search of a generator opens
// and, once its library is there, gets its cost terms and Continue.

#include "core/pipelines/pipeline.h"
#include "core/search/search_trace.h"
#include "core/util/child_process.h"
#include "core/weights/shipped_weights.h"
#include "tests/support/test_data.h"
#include "ui/autotune/autotune_workspace.h"
#include "ui/common/app_settings.h"
#include "ui/pipeline/pipeline_list_model.h"
#include "ui/pipeline/pipeline_workspace.h"
#include "ui/search/search_tree_data.h"
#include "ui/search/search_workspace.h"
#include "ui/search/stage_cost_model.h"
#include "ui/search/state_detail_panel.h"

#include <QComboBox>
#include <QSettings>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace beamscope;
using namespace beamscope::ui;

namespace {
QString env(const char *name) { return qEnvironmentVariable(name); }
const QString kBoxBlur = QStringLiteral("beamscope_test_box_blur");
} // namespace

class TestUiGenerators : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<AppSettings> m_settings;

    // Opens a library in a fresh Search workspace; the signal's arguments.
    std::pair<bool, QString> open(SearchWorkspace &ws, const QString &library, const QString &name = {})
    {
        QSignalSpy opened(&ws, &SearchWorkspace::generatorLibraryOpened);
        ws.openGeneratorLibrary(library, name);
        if (!opened.wait(120000))
            return {false, QStringLiteral("no answer")};
        return {opened.at(0).at(0).toBool(), opened.at(0).at(1).toString()};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
        m_settings = std::make_unique<AppSettings>();
        m_settings->setRememberLayout(false);
        // The shipped weights in the library, as the explorer's main() puts them there.
        QStringList shipped;
        for (const std::filesystem::path &folder : weights::shippedWeightsFolders())
            shipped << QString::fromStdString(folder.string());
        m_settings->setSessionFolders(shipped);
        if (env("BEAMSCOPE_TEST_GENERATORS").isEmpty() || env("BEAMSCOPE_CLI").isEmpty())
            QSKIP("run through ctest: BEAMSCOPE_TEST_GENERATORS and BEAMSCOPE_CLI name the built files");
    }

    // The library's generators join the App list with their GeneratorParams; one that cannot be
    // searched says why; the generators are registered for the Pipeline and Autotune views.
    void openLibraryListsGeneratorsAndParameters()
    {
        SearchWorkspace ws(*m_settings, nullptr);
        const auto [ok, message] = open(ws, env("BEAMSCOPE_TEST_GENERATORS"));
        QVERIFY2(ok, qPrintable(message));
        const QString file = QFileInfo(env("BEAMSCOPE_TEST_GENERATORS")).fileName();
        QCOMPARE(ws.generatorEntries(), (QStringList{QStringLiteral("%1 (%2)").arg(kBoxBlur, file),
                                                     QStringLiteral("beamscope_test_no_estimates (%1)").arg(file)}));
        QVERIFY2(message.contains(QStringLiteral("beamscope_test_no_estimates (cannot be searched")) &&
                     message.contains(QStringLiteral("estimate")),
                 qPrintable(message));
        // The first generator is selected, its parameter with its default.
        QTableWidget *table = ws.generatorParamsTable();
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("divisor"));
        QCOMPARE(table->item(0, 1)->text().toDouble(), 3.0);
        QVERIFY(table->item(0, 0)->toolTip().contains(QStringLiteral("float")));
        const session::SearchRequest request = ws.optionsFromControls();
        QCOMPARE(request.pipeline.generatorName, kBoxBlur.toStdString());
        QVERIFY(request.pipeline.app.empty());
        QVERIFY(request.pipeline.generatorParams.empty()); // defaults are not passed on
        QTRY_VERIFY_WITH_TIMEOUT(!ws.weightsScanPending(), 30000);
        QVERIFY2(ws.weightsNote().contains(QStringLiteral("no shipped file was trained on these pipelines")),
                 qPrintable(ws.weightsNote()));

        const auto info = pipelines::findPipeline(kBoxBlur.toStdString());
        QVERIFY(info && info->origin == pipelines::Origin::Generator);
        QVERIFY(!pipelines::findPipeline("beamscope_test_no_estimates")); // listed, never registered
    }

    // Searched with a parameter set (checked in a child process first), as an app is; then the
    // Pipeline workspace shows its DAG and the Autotune workspace asks for it as a generator.
    void searchPipelineAndAutotuneTakeTheGenerator()
    {
        SearchWorkspace ws(*m_settings, nullptr);
        ws.resize(1400, 900);
        ws.show();
        QVERIFY(open(ws, env("BEAMSCOPE_TEST_GENERATORS"), kBoxBlur).first);
        QVERIFY(ws.setGeneratorParam(QStringLiteral("divisor"), QStringLiteral("4")));
        QVERIFY(!ws.setGeneratorParam(QStringLiteral("nonesuch"), QStringLiteral("1")));
        ws.setBeamSize(2);
        ws.setPasses(1);
        QSignalSpy finished(&ws, &SearchWorkspace::searchFinished);
        ws.startSearch();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 240000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(ws.statusText()));
        const SearchTreeData &tree = ws.treeData();
        QVERIFY(tree.winner() >= 0);
        QCOMPARE(tree.params().generator, kBoxBlur.toStdString());
        QCOMPARE(tree.params().generatorParams, (std::map<std::string, std::string>{{"divisor", "4"}}));
        QCOMPARE(std::filesystem::canonical(tree.params().generatorLibrary),
                 std::filesystem::canonical(env("BEAMSCOPE_TEST_GENERATORS").toStdString()));
        // Cost terms from the search's own session, as for an app.
        QTRY_VERIFY_WITH_TIMEOUT(!ws.breakdownPending(), 60000);
        ws.selectState(tree.winner());
        QVERIFY(ws.detailPanel()->stageCostModel()->segmentScale() > 0);

        PipelineWorkspace pipeline(*m_settings);
        QSignalSpy listed(&pipeline, &PipelineWorkspace::pipelinesListed);
        pipeline.listPipelines();
        QTRY_COMPARE_WITH_TIMEOUT(listed.count(), 1, 120000);
        QVERIFY(pipeline.pipelineModel()->indexOf(kBoxBlur).isValid());
        QSignalSpy shown(&pipeline, &PipelineWorkspace::pipelineDisplayed);
        QVERIFY(pipeline.showPipeline(kBoxBlur));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 120000);
        QVERIFY(pipeline.summary() && pipeline.summary()->stages.size() >= 3);

        AutotuneWorkspace autotune(*m_settings);
        autotune.setApps({kBoxBlur, QStringLiteral("box_blur")});
        const autotune::AutotuneRequest r = autotune.request();
        QCOMPARE(r.apps, std::vector<std::string>{"box_blur"});
        QCOMPARE(r.generatorName, kBoxBlur.toStdString());
        QCOMPARE(std::filesystem::canonical(r.generatorLibrary),
                 std::filesystem::canonical(env("BEAMSCOPE_TEST_GENERATORS").toStdString()));
    }

    // G12: a library that hangs while loading is looked at in a child process that Cancel ends.
    void hangingLibraryCanBeCancelled()
    {
        SearchWorkspace ws(*m_settings, nullptr);
        QSignalSpy opened(&ws, &SearchWorkspace::generatorLibraryOpened);
        ws.openGeneratorLibrary(env("BEAMSCOPE_TEST_HANGING_LIBRARY"));
        QVERIFY(ws.cancelButton()->isEnabled());
        QTest::qWait(300); // the child is loading the library, and hangs there
        ws.cancelButton()->click();
        QVERIFY2(ws.statusText().contains(QStringLiteral("Cancelled")), qPrintable(ws.statusText()));
        QVERIFY(!ws.cancelButton()->isEnabled());
        QVERIFY(ws.startButton()->isEnabled());
        // Nothing is delivered later, and the workspace opens a good library at once.
        QTest::qWait(500);
        QCOMPARE(opened.count(), 0);
        QVERIFY(open(ws, env("BEAMSCOPE_TEST_GENERATORS")).first);
    }

    // Every bad library is named with what is wrong, and the workspace goes on working.
    void badLibrariesAreReportedAndTheExplorerKeepsRunning()
    {
        SearchWorkspace ws(*m_settings, nullptr);
        const QString crashing = env("BEAMSCOPE_TEST_CRASHING_GENERATORS");
        // One generator crashes while building: it is named with its crash, the other one is offered.
        auto [ok, message] = open(ws, crashing);
        QVERIFY2(ok, qPrintable(message));
        QVERIFY2(message.contains(QFileInfo(crashing).fileName()) &&
                     message.contains(QStringLiteral("beamscope_test_crashes (cannot be searched: crashed (SIGSEGV)")),
                 qPrintable(message));
        QCOMPARE(ws.generatorEntries().size(), 2);
        QVERIFY2(
            ws.generatorEntries().join(QLatin1Char(' ')).contains(QStringLiteral("beamscope_test_fine_beside_crashes")),
            qPrintable(ws.generatorEntries().join(QLatin1Char(' '))));

        std::tie(ok, message) = open(ws, env("BEAMSCOPE_TEST_NO_GENERATORS"));
        QVERIFY(!ok);
        QVERIFY2(message.contains(QStringLiteral("registered no")), qPrintable(message));

        const QString missing = m_dir.filePath(QStringLiteral("missing.so"));
        std::tie(ok, message) = open(ws, missing);
        QVERIFY(!ok);
        QVERIFY2(message.contains(missing) && message.contains(QStringLiteral("no such file")), qPrintable(message));

        const QString notALibrary = m_dir.filePath(QStringLiteral("text.so"));
        QFile text(notALibrary);
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("not an ELF file\n");
        text.close();
        std::tie(ok, message) = open(ws, notALibrary);
        QVERIFY(!ok);
        QVERIFY2(message.contains(notALibrary) && message.contains(QStringLiteral("cannot load")), qPrintable(message));

        // The workspace still opens a good library and refuses a bad parameter value by name.
        QVERIFY(open(ws, env("BEAMSCOPE_TEST_GENERATORS"), kBoxBlur).first);
        // G11: the table shows each parameter's type, and a value is checked as it is typed.
        QTableWidget *table = ws.generatorParamTable();
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("divisor"));
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("float"));
        QVERIFY(ws.setGeneratorParam(QStringLiteral("divisor"), QStringLiteral("three")));
        QVERIFY2(ws.statusText().contains(QStringLiteral("divisor = three: not a number")),
                 qPrintable(ws.statusText()));
        QVERIFY(table->item(0, 1)->background() != QBrush());
        QVERIFY(ws.setGeneratorParam(QStringLiteral("divisor"), QStringLiteral("2.5")));
        QCOMPARE(table->item(0, 1)->background(), QBrush());
        QVERIFY(ws.setGeneratorParam(QStringLiteral("divisor"), QStringLiteral("three")));
        QSignalSpy finished(&ws, &SearchWorkspace::searchFinished);
        ws.startSearch();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY2(ws.statusText().contains(QStringLiteral("divisor")), qPrintable(ws.statusText()));
    }

    // The plugin's recorded search (BEAMSCOPE_TRACE) opens with its tree; its cost terms and Continue
    // wait for a library that registers the generator, and say so; once it is opened, they work.
    void pluginTraceOpensAndTakesItsLibrary()
    {
        if (env("BEAMSCOPE_PLUGIN").isEmpty() || env("BEAMSCOPE_TINY_GENERATOR").isEmpty())
            QSKIP("the plugin is not built here");
        const auto bgu = weights::findShippedWeights("bgu");
        QVERIFY(bgu);
        const QString trace = m_dir.filePath(QStringLiteral("traces/tiny_blur.jsonl"));
        const QString out = m_dir.filePath(QStringLiteral("generated"));
        QDir().mkpath(out);
        qputenv("BEAMSCOPE_TRACE", trace.toUtf8());
        qputenv("HL_WEIGHTS_DIR", QByteArray::fromStdString(bgu->string()));
        qputenv("HL_BEAM_SIZE", "2");
        qputenv("HL_NUM_PASSES", "1");
        const ChildResult r =
            runChild({env("BEAMSCOPE_TINY_GENERATOR").toStdString(), "-g", "tiny_blur", "-f", "tiny_blur", "-o",
                      out.toStdString(), "-e", "schedule", "-p", env("BEAMSCOPE_PLUGIN").toStdString(), "-s",
                      "Beamscope", "target=host-opencl", "auto_schedule=true", "machine_params=80,16777216,40"},
                     600);
        for (const char *name : {"BEAMSCOPE_TRACE", "HL_WEIGHTS_DIR", "HL_BEAM_SIZE", "HL_NUM_PASSES"})
            qunsetenv(name);
        QVERIFY2(r.exitCode == 0, (r.startError + r.err).c_str());

        // The build puts the generator library beside the generator program: found there, by the generator's name.
        {
            SearchWorkspace ws(*m_settings, nullptr);
            QSignalSpy loaded(&ws, &SearchWorkspace::traceLoaded);
            ws.openTrace(trace);
            QVERIFY(loaded.wait(30000));
            QTRY_VERIFY_WITH_TIMEOUT(!ws.breakdownPending() && ws.detailPanel()->sessionStatus().isEmpty(), 120000);
            ws.selectState(ws.treeData().winner());
            QVERIFY(ws.detailPanel()->stageCostModel()->segmentScale() > 0);
            // The library found joins the App list and the form names the trace's generator (Start searches it).
            QTRY_COMPARE_WITH_TIMEOUT(ws.optionsFromControls().pipeline.generatorName, std::string("tiny_blur"), 30000);
        }

        // The same trace moved away from its program: it says what it needs, and takes the library once opened.
        std::string error;
        std::optional<search::SearchTrace> moved = search::SearchTrace::read(trace.toStdString(), &error);
        QVERIFY2(moved, error.c_str());
        moved->params.generatorExecutable =
            m_dir.filePath(QStringLiteral("elsewhere/tiny_blur_generator")).toStdString();
        const QString movedPath = m_dir.filePath(QStringLiteral("traces/moved.jsonl"));
        QVERIFY(moved->write(movedPath.toStdString(), true, &error));

        SearchWorkspace ws(*m_settings, nullptr);
        QSignalSpy loaded(&ws, &SearchWorkspace::traceLoaded);
        QSignalSpy ready(&ws, &SearchWorkspace::breakdownReady);
        ws.openTrace(movedPath);
        QVERIFY(loaded.wait(30000));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1 && !ws.breakdownPending(), 120000);
        const QString why = ws.detailPanel()->sessionStatus();
        QVERIFY2(why.contains(QStringLiteral("generator tiny_blur")) &&
                     why.contains(QStringLiteral("Open Generator Library")) &&
                     why.contains(QStringLiteral("elsewhere/tiny_blur_generator")),
                 qPrintable(why));
        const qint64 winner = ws.treeData().winner();
        QVERIFY(winner >= 0);
        QVERIFY(!ws.continueFrom(winner)); // says what it needs instead
        QVERIFY2(ws.statusText().contains(QStringLiteral("Open Generator Library")), qPrintable(ws.statusText()));

        const int before = ready.count();
        QVERIFY(open(ws, env("BEAMSCOPE_TINY_GENERATORS")).first);
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() > before && !ws.breakdownPending(), 120000);
        QVERIFY2(ws.detailPanel()->sessionStatus().isEmpty(), qPrintable(ws.detailPanel()->sessionStatus()));
        // The form shows the trace's generator with the values it was searched with.
        QCOMPARE(ws.optionsFromControls().pipeline.generatorName, std::string("tiny_blur"));
        ws.selectState(winner);
        QVERIFY(ws.detailPanel()->stageCostModel()->segmentScale() > 0);
        // The bgu weights the plugin used are found by content and shown in the form.
        QCOMPARE(std::filesystem::canonical(ws.optionsFromControls().weightsPath), std::filesystem::canonical(*bgu));
        QSignalSpy finished(&ws, &SearchWorkspace::searchFinished);
        QVERIFY(ws.continueFrom(winner));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 240000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(ws.statusText()));
    }
};

QTEST_MAIN(TestUiGenerators)
#include "tst_ui_generators.moc"
