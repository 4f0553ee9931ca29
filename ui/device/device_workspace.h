#pragma once
// The Device panel: the local GPU as the CUDA runtime reports it (or the clear
// "no CUDA device" state and why) beside a reference profile — the V100 the
// shipped weights were trained on by default, or A100 / H100 / H200 — as a
// two-column comparison, plus the search parameters each device implies.
// The same core calls as `beamscope-cli device`; the query runs off the GUI thread.

#include "core/gpu/device_facts.h"
#include "core/gpu/opencl_query.h"
#include "ui/common/latest_job.h"
#include "ui/mainwindow/workspace.h"

class QComboBox;
class QLabel;
class QTableView;

class QTabWidget;

namespace beamscope::ui {

class DeviceComparisonModel;
class StudyPanel;
class WeightsOnSamplesPanel;

class DeviceWorkspace : public Workspace {
    Q_OBJECT
public:
    DeviceWorkspace(AppSettings &settings, QWidget *parent = nullptr);

    void setProfile(const QString &shortName); // "V100", "A100", ...
    QString profile() const;
    void refresh(); // asks the CUDA runtime again

    bool isQuerying() const { return m_job.pending(); }
    bool hasQueried() const { return m_queried; }
    const gpu::LocalDeviceQuery &localQuery() const { return m_local; }
    // The OpenCL device GPU schedules run on here when there is no CUDA device (asked of the bench worker).
    const gpu::OpenClQuery &openClQuery() const { return m_openCl; }
    DeviceComparisonModel *factsModel() const { return m_facts; }
    DeviceComparisonModel *searchModel() const { return m_search; }
    QLabel *statusLabel() const { return m_status; }
    QComboBox *profileBox() const { return m_profile; }
    WeightsOnSamplesPanel *weightsPanel() const { return m_weights; }

    // A sample folder handed over (the Autotune workspace's "Compare weights"):
    // it becomes the comparison's folder and the comparison runs.
    bool offerSampleFolder(const QString &folder) override;

    // A device study's folder (beamscope-cli device-study) opens on the study page.
    bool canOpen(const QString &path) const override;
    int openSpecificity(const QString &path) const override { return canOpen(path) ? 2 : 0; }
    void open(const QString &path) override;
    StudyPanel *studyPanel() const { return m_study; }
    QTabWidget *pages() const { return m_pages; }

Q_SIGNALS:
    void deviceQueried();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void updateTables();

    QComboBox *m_profile = nullptr;
    QLabel *m_status = nullptr;
    QTableView *m_factsView = nullptr;
    QTableView *m_searchView = nullptr;
    DeviceComparisonModel *m_facts = nullptr;
    DeviceComparisonModel *m_search = nullptr;
    WeightsOnSamplesPanel *m_weights = nullptr;
    StudyPanel *m_study = nullptr;
    QTabWidget *m_pages = nullptr;
    LatestJob m_job;
    gpu::LocalDeviceQuery m_local;
    gpu::OpenClQuery m_openCl;
    bool m_queried = false;
};

} // namespace beamscope::ui
