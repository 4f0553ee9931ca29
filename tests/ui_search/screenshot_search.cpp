// beamscope-screenshots-search: opens the explorer's main window on the Search
// workspace, runs a search on a real app (or opens a trace), selects a state
// and saves the window as a PNG for the documentation:
//
//   xvfb-run -s "-screen 0 1600x1000x24" build/.../beamscope-screenshots-search
//       --weights /work/shared/anderson2021-weights/baseline.weights
//       --out docs/screenshots/search.png [--app bilateral_grid] [--beam 8] [--passes 3]
//       [--trace FILE] [--tab N] [--state ID] [--compare ID] [--func NAME] [--size 1600x1000]
//
// Fresh settings (a temporary folder), so the picture does not depend on what
// this user's explorer remembers.

#include "ui/common/app_settings.h"
#include "ui/mainwindow/main_window.h"
#include "ui/search/search_tree_data.h"
#include "ui/search/search_tree_view.h"
#include "ui/search/search_workspace.h"
#include "ui/search/state_detail_panel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>

using namespace beamscope::ui;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Beamscope"));
    QApplication::setApplicationName(QStringLiteral("beamscope"));
    QApplication::setApplicationDisplayName(QStringLiteral("Beamscope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/beamscope.svg")));
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption out(QStringLiteral("out"), QStringLiteral("PNG to write."), QStringLiteral("FILE"),
                                 QStringLiteral("search.png"));
    const QCommandLineOption appName(QStringLiteral("app"), QStringLiteral("Pipeline to search."), QStringLiteral("NAME"),
                                     QStringLiteral("bilateral_grid"));
    const QCommandLineOption weights(QStringLiteral("weights"), QStringLiteral("Weights file."), QStringLiteral("FILE"));
    const QCommandLineOption beam(QStringLiteral("beam"), QStringLiteral("Beam size."), QStringLiteral("N"), QStringLiteral("8"));
    const QCommandLineOption passes(QStringLiteral("passes"), QStringLiteral("Passes."), QStringLiteral("P"), QStringLiteral("3"));
    const QCommandLineOption trace(QStringLiteral("trace"), QStringLiteral("Open this trace instead of searching."),
                                   QStringLiteral("FILE"));
    const QCommandLineOption tab(QStringLiteral("tab"), QStringLiteral("Detail tab to show (0..3)."), QStringLiteral("N"),
                                 QStringLiteral("3"));
    const QCommandLineOption state(QStringLiteral("state"), QStringLiteral("State to select (default: the winner)."),
                                   QStringLiteral("ID"));
    const QCommandLineOption compare(QStringLiteral("compare"), QStringLiteral("State to compare with."), QStringLiteral("ID"));
    const QCommandLineOption func(QStringLiteral("func"), QStringLiteral("Func name to search for."), QStringLiteral("NAME"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size."), QStringLiteral("WxH"),
                                  QStringLiteral("1600x1000"));
    parser.addOptions({out, appName, weights, beam, passes, trace, tab, state, compare, func, size});
    parser.process(app);

    QTemporaryDir settingsDir;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    AppSettings settings;
    settings.setRememberLayout(false);
    MainWindow window(settings);
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    if (wh.size() == 2)
        window.resize(wh[0].toInt(), wh[1].toInt());
    auto *search = qobject_cast<SearchWorkspace *>(window.workspace(QStringLiteral("search")));
    if (!search) {
        std::fprintf(stderr, "beamscope-screenshots-search: the search workspace is not registered\n");
        return 1;
    }
    const auto shoot = [&] {
        const SearchTreeData &d = search->treeData();
        const qint64 id = parser.isSet(state) ? parser.value(state).toLongLong() : d.winner();
        search->selectState(id);
        if (parser.isSet(compare))
            search->compareState(parser.value(compare).toLongLong());
        if (parser.isSet(func))
            search->setFuncSearch(parser.value(func));
        search->detailPanel()->tabs()->setCurrentIndex(parser.value(tab).toInt());
        QTimer::singleShot(1500, &window, [&] {
            const bool ok = window.grab().save(parser.value(out));
            std::fprintf(stderr, "%s %s\n", ok ? "saved" : "could not save", qPrintable(parser.value(out)));
            QCoreApplication::exit(ok ? 0 : 1);
        });
    };
    // The cost terms need the pipeline rebuilt off the GUI thread; wait for them.
    const auto whenBreakdownReady = [&] {
        if (!search->breakdownPending())
            shoot();
        else
            QObject::connect(search, &SearchWorkspace::breakdownReady, &window, shoot, Qt::SingleShotConnection);
    };
    QObject::connect(search, &SearchWorkspace::searchFinished, &window, [&](bool ok, bool) {
        if (!ok) {
            std::fprintf(stderr, "beamscope-screenshots-search: the search failed\n");
            QCoreApplication::exit(1);
            return;
        }
        whenBreakdownReady();
    });
    QObject::connect(search, &SearchWorkspace::traceLoaded, &window, whenBreakdownReady);
    QObject::connect(search, &SearchWorkspace::loadFailed, &window, [](const QString &error) {
        std::fprintf(stderr, "beamscope-screenshots-search: %s\n", qPrintable(error));
        QCoreApplication::exit(1);
    });
    window.setCurrentWorkspace(QStringLiteral("search"));
    window.show();
    if (parser.isSet(weights))
        search->setWeightsPath(parser.value(weights));
    search->setApp(parser.value(appName));
    search->setBeamSize(parser.value(beam).toInt());
    search->setPasses(parser.value(passes).toInt());
    QTimer::singleShot(300, &window, [&] {
        if (parser.isSet(trace))
            search->openTrace(parser.value(trace));
        else
            search->startSearch();
    });
    QTimer::singleShot(600000, &window, [] {
        std::fprintf(stderr, "beamscope-screenshots-search: nothing shown within 600 s\n");
        QCoreApplication::exit(1);
    });
    return app.exec();
}
