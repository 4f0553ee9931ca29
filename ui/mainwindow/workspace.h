#pragma once
// A workspace is one page of the main window (Weights, Pipeline, Search, ...),
// chosen in the side bar. The main window knows workspaces only through this
// interface; they are listed in workspace_registry.cpp.

#include <QAction>
#include <QIcon>
#include <QList>
#include <QString>
#include <QWidget>

#include "core/util/json.h"

#include <functional>
#include <memory>
#include <vector>

namespace beamscope::session {
class SearchSession;
}

namespace beamscope::ui {

class AppSettings;

// One state of a search, as another workspace can measure it: the session that
// searched it (its pipeline, DAG and model) and the decisions that make it.
struct SearchStateOffer {
    QString app;   // the pipeline's registry name
    QString label; // "#9584 (predicted 7.53789)"
    std::shared_ptr<const session::SearchSession> session;
    std::vector<Json> decisions;
};

class Workspace : public QWidget {
    Q_OBJECT
public:
    Workspace(AppSettings &settings, QWidget *parent) : QWidget(parent), m_settings(settings) {}

    // Files and folders dropped on the window or chosen in File > Open... go to
    // the first workspace (in registration order) that accepts them.
    virtual bool canOpen(const QString &path) const
    {
        Q_UNUSED(path);
        return false;
    }
    virtual void open(const QString &path) { Q_UNUSED(path); }
    // When several workspaces can open a path, the one that claims it most
    // specifically wins: a folder any workspace could browse (the Weights
    // library takes every folder) is 1, a folder of the workspace's own format
    // (an autotune run, a device study) 2; ties go to registration order.
    virtual int openSpecificity(const QString &path) const { return canOpen(path) ? 1 : 0; }

    // A folder of .sample files handed over by another workspace (the Autotune
    // workspace's "Open in Predictions"); false when this workspace takes none.
    virtual bool offerSampleFolder(const QString &folder)
    {
        Q_UNUSED(folder);
        return false;
    }

    // A state chosen in the Search workspace, handed over to be benchmarked (the
    // Pipeline workspace takes it); false when this workspace takes none.
    virtual bool offerSearchState(const SearchStateOffer &offer)
    {
        Q_UNUSED(offer);
        return false;
    }

    // Actions the main window lists in its File menu while this workspace exists.
    virtual QList<QAction *> fileActions() const { return {}; }

    // Splitter states and the like, through AppSettings::layoutValue(id, ...).
    virtual void saveLayout() {}
    virtual void restoreLayout() {}

Q_SIGNALS:
    // Shown in the main window's status bar (timeout 0 = until replaced).
    void statusMessage(const QString &text, int timeoutMs);
    // A file was opened by the user; the main window lists it under File > Recent.
    void fileOpened(const QString &path);
    // Asks the main window to hand `folder` to workspace `workspaceId`
    // (offerSampleFolder) and show it.
    void sampleFolderForWorkspace(const QString &workspaceId, const QString &folder);
    // Asks the main window to hand a search state to workspace `workspaceId` (offerSearchState).
    void searchStateForWorkspace(const QString &workspaceId, const beamscope::ui::SearchStateOffer &offer);

protected:
    AppSettings &settings() { return m_settings; }
    const AppSettings &settings() const { return m_settings; }

private:
    AppSettings &m_settings;
};

struct WorkspaceRegistration {
    QString id;    // settings key and object name, e.g. "weights"
    QString title; // side-bar label
    QString icon;  // resource path of an SVG icon
    QString toolTip;
    std::function<Workspace *(AppSettings &settings, QWidget *parent)> create;
};

// Every workspace, in side-bar order (workspace_registry.cpp).
std::vector<WorkspaceRegistration> registeredWorkspaces();

} // namespace beamscope::ui

Q_DECLARE_METATYPE(beamscope::ui::SearchStateOffer)
