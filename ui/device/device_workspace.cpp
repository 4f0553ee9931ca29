#include "ui/device/device_workspace.h"

#include "ui/device/device_comparison_model.h"
#include "ui/device/study_panel.h"
#include "ui/device/weights_on_samples_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTabWidget>
#include <QVBoxLayout>

namespace beamscope::ui {

namespace {
QTableView *comparisonView(DeviceComparisonModel *model)
{
    auto *view = new QTableView;
    view->setModel(model);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    view->horizontalHeader()->setSectionResizeMode(DeviceComparisonModel::PropertyColumn,
                                                   QHeaderView::ResizeToContents);
    view->setSelectionMode(QAbstractItemView::NoSelection);
    view->setAlternatingRowColors(true);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    return view;
}
} // namespace

DeviceWorkspace::DeviceWorkspace(AppSettings &settings, QWidget *parent)
    : Workspace(settings, parent),
      m_facts(new DeviceComparisonModel(DeviceComparisonModel::Kind::Facts, this)),
      m_search(new DeviceComparisonModel(DeviceComparisonModel::Kind::SearchParameters, this))
{
    setObjectName(QStringLiteral("device"));
    m_profile = new QComboBox;
    for (const std::string &name : gpu::profileNames()) {
        const auto facts = gpu::findProfile(name);
        m_profile->addItem(QStringLiteral("%1 — %2").arg(QString::fromStdString(name),
                                                         QString::fromStdString(facts ? facts->name : name)),
                           QString::fromStdString(name));
    }
    m_profile->setToolTip(tr("Reference profile from the vendor's public specifications. The shipped weights were "
                             "trained on a V100."));
    auto *refresh = new QPushButton(tr("Query again"));
    m_status = new QLabel(tr("Asking the CUDA runtime…"));
    m_status->setObjectName(QStringLiteral("deviceStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_factsView = comparisonView(m_facts);
    m_searchView = comparisonView(m_search);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Compare with")));
    top->addWidget(m_profile);
    top->addStretch();
    top->addWidget(refresh);
    // Two pages under one header, each with the whole height: a laptop screen
    // cannot show the device tables and the weights' rankings one above the other.
    auto *devicePart = new QWidget;
    auto *deviceLayout = new QVBoxLayout(devicePart);
    deviceLayout->addWidget(new QLabel(tr("<b>Device facts</b>")));
    deviceLayout->addWidget(m_factsView, 3);
    deviceLayout->addWidget(new QLabel(tr("<b>Search parameters each device implies</b> (Anderson2021's "
                                          "device-dependent parameters: parallelism = SM count, shared memory "
                                          "limits, resident blocks and warps per SM)")));
    deviceLayout->addWidget(m_searchView, 2);
    m_weights = new WeightsOnSamplesPanel;
    m_pages = new QTabWidget;
    m_pages->addTab(devicePart, tr("Local device and reference"));
    m_pages->addTab(m_weights, tr("Weights on samples measured here"));
    m_study = new StudyPanel;
    m_pages->addTab(m_study, tr("Device study"));
    connect(m_study, &StudyPanel::opened, this, [this](const QString &folder) { Q_EMIT fileOpened(folder); });
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_status);
    layout->addWidget(m_pages, 1);

    connect(m_profile, &QComboBox::currentIndexChanged, this, [this] { updateTables(); });
    connect(refresh, &QPushButton::clicked, this, &DeviceWorkspace::refresh);
    updateTables();
}

bool DeviceWorkspace::offerSampleFolder(const QString &folder)
{
    m_pages->setCurrentWidget(m_weights);
    m_weights->setSampleFolder(folder);
    m_weights->compare();
    return true;
}

bool DeviceWorkspace::canOpen(const QString &path) const { return StudyPanel::isStudyFolder(path); }

void DeviceWorkspace::open(const QString &path)
{
    m_pages->setCurrentWidget(m_study);
    m_study->openFolder(path);
}

void DeviceWorkspace::showEvent(QShowEvent *event)
{
    Workspace::showEvent(event);
    if (!m_queried && !m_job.pending())
        refresh(); // lazily: a CUDA runtime takes a moment to start
}

void DeviceWorkspace::setProfile(const QString &shortName)
{
    const int i = m_profile->findData(shortName, Qt::UserRole, Qt::MatchFixedString);
    if (i >= 0)
        m_profile->setCurrentIndex(i);
}

QString DeviceWorkspace::profile() const { return m_profile->currentData().toString(); }

void DeviceWorkspace::refresh()
{
    m_job.start(
        this,
        [] {
            std::pair<gpu::LocalDeviceQuery, gpu::OpenClQuery> found{gpu::queryLocalDevice(), {}};
            if (!found.first.device)
                found.second = gpu::queryOpenClDevice(); // where measurements run without CUDA
            return found;
        },
        [this](std::pair<gpu::LocalDeviceQuery, gpu::OpenClQuery> found) {
            m_local = std::move(found.first);
            m_openCl = std::move(found.second);
            m_queried = true;
            updateTables();
            Q_EMIT deviceQueried();
        });
}

void DeviceWorkspace::updateTables()
{
    const auto reference = gpu::findProfile(profile().toStdString());
    if (!reference)
        return;
    m_facts->setDevices(m_local.device, *reference, profile());
    m_facts->setOpenClDevice(m_openCl);
    m_search->setDevices(m_local.device, *reference, profile());
    if (!m_queried)
        return;
    // "no CUDA device: cudaErrorInsufficientDriver" after "No CUDA device" would say it twice: the reason only.
    QString status = QString::fromStdString(m_local.status);
    if (!m_local.device && status.startsWith(QLatin1String("no CUDA device: ")))
        status = status.mid(16);
    status = status.toHtmlEscaped();
    if (m_local.device) {
        m_status->setText(tr("<b>Local device:</b> %1 (%2)")
                              .arg(QString::fromStdString(m_local.device->name).toHtmlEscaped(), status));
        m_status->setStyleSheet({});
    } else if (m_openCl.ok) {
        m_status->setText(
            tr("<b>No CUDA device</b> (%1). GPU schedules run on OpenCL here: <b>%2</b> (%3, %4 compute units). "
               "OpenCL reports no SM, shared-memory or warp facts, so the search keeps the reference's; Search › "
               "Measure and the Pipeline benchmark time schedules on this device.")
                .arg(status, QString::fromStdString(m_openCl.device).toHtmlEscaped(),
                     QString::fromStdString(m_openCl.platform).toHtmlEscaped())
                .arg(m_openCl.computeUnits));
        m_status->setStyleSheet(QStringLiteral("QLabel { background: #fff4e5; border: 1px solid #f0b46a; "
                                               "padding: 6px; }"));
    } else {
        m_status->setText(tr("<b>No CUDA device</b> (%1) and no OpenCL device (%2).")
                              .arg(status, QString::fromStdString(m_openCl.error).toHtmlEscaped()));
        m_status->setStyleSheet(QStringLiteral("QLabel { background: #fff4e5; border: 1px solid #f0b46a; "
                                               "padding: 6px; }"));
    }
}

} // namespace beamscope::ui
