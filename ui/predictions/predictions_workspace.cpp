#include "ui/predictions/predictions_workspace.h"

#include "ui/common/form_beside_results.h"
#include "ui/common/app_settings.h"
#include "ui/common/relay_progress.h"
#include "ui/common/resources.h"
#include "ui/common/sample_folder_list.h"
#include "ui/common/weights_combo_box.h"
#include "ui/predictions/prediction_scatter.h"
#include "ui/predictions/rank_table_model.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeWidget>
#include <QThread>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

namespace beamscope::ui {

namespace {
const QString kWorkspaceId = QStringLiteral("predictions");
}

PredictionsWorkspace::PredictionsWorkspace(AppSettings &settings, QWidget *parent) : Workspace(settings, parent)
{
    initResources();
    setObjectName(kWorkspaceId);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(300);
    connect(&m_debounce, &QTimer::timeout, this, &PredictionsWorkspace::evaluate);
    m_splitter = placeFormBesideResults(this, buildForm(), buildResults(), 340);
}

PredictionsWorkspace::~PredictionsWorkspace()
{
    if (m_relay)
        m_relay->cancel();
}

QWidget *PredictionsWorkspace::buildForm()
{
    const ScrollForm scrollForm = makeScrollForm(this);
    QWidget *form = scrollForm.form;
    QVBoxLayout *layout = scrollForm.layout;

    auto *samplesBox = new QGroupBox(tr("Samples"), form);
    auto *samplesLayout = new QVBoxLayout(samplesBox);
    m_folders = new SampleFolderList(tr("Folders searched for .sample files (recursively)"), samplesBox);
    connect(m_folders, &SampleFolderList::foldersChanged, this, &PredictionsWorkspace::scheduleEvaluation);
    samplesLayout->addWidget(m_folders);
    layout->addWidget(samplesBox);

    auto *weightsBox = new QGroupBox(tr("Weights"), form);
    auto *weightsForm = new QFormLayout(weightsBox);
    m_weightsA = new WeightsComboBox(settings(), weightsBox);
    m_weightsA->setToolTip(tr("The weights whose predictions are shown (e.g. Halide's V100-trained baseline)"));
    weightsForm->addRow(tr("Weights:"), m_weightsA);
    m_compare = new QCheckBox(tr("Compare with:"), weightsBox);
    m_weightsB = new WeightsComboBox(settings(), weightsBox);
    m_weightsB->setPreferTrained(true);
    m_weightsB->setEnabled(false);
    m_weightsB->setToolTip(tr("A second file on the same samples, side by side (e.g. one retrained here)"));
    weightsForm->addRow(m_compare, m_weightsB);
    m_cores = new QSpinBox(weightsBox);
    m_cores->setRange(1, 1000000);
    m_cores->setValue(80);
    m_cores->setToolTip(tr("num_cores the model is evaluated with (80: the V100 SM count the shipped weights "
                           "were searched with)"));
    weightsForm->addRow(tr("num_cores:"), m_cores);
    layout->addWidget(weightsBox);

    m_evaluate = new QPushButton(tr("Evaluate"), form);
    connect(m_evaluate, &QPushButton::clicked, this, &PredictionsWorkspace::evaluate);
    layout->addWidget(m_evaluate);
    m_progress = new QProgressBar(form);
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    layout->addWidget(m_progress);
    m_status = new QLabel(tr("Add a folder of .sample files."), form);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);

    connect(m_weightsA, &WeightsComboBox::pathChanged, this, &PredictionsWorkspace::scheduleEvaluation);
    connect(m_weightsB, &WeightsComboBox::pathChanged, this, [this] {
        if (m_compare->isChecked())
            scheduleEvaluation();
    });
    // The picker enables itself once the library is scanned; it stays off until asked for.
    connect(m_weightsB, &WeightsComboBox::scanned, this, [this] { m_weightsB->setEnabled(m_compare->isChecked()); });
    connect(m_compare, &QCheckBox::toggled, this, [this](bool on) {
        m_weightsB->setEnabled(on);
        scheduleEvaluation();
    });
    connect(m_cores, &QSpinBox::valueChanged, this, &PredictionsWorkspace::scheduleEvaluation);
    return finishScrollForm(scrollForm);
}

QWidget *PredictionsWorkspace::buildResults()
{
    m_resultsSplitter = new QSplitter(Qt::Vertical, this);
    m_charts = new QSplitter(Qt::Horizontal, m_resultsSplitter);
    auto *charts = m_charts;
    m_scatterA = new PredictionScatter(charts);
    m_scatterB = new PredictionScatter(charts);
    m_scatterB->hide();
    charts->addWidget(m_scatterA);
    charts->addWidget(m_scatterB);
    m_resultsSplitter->addWidget(charts);

    m_tabs = new QTabWidget(m_resultsSplitter);
    m_tabs->setDocumentMode(true);
    m_rankModel = new RankTableModel(this);
    m_rankView = new QTableView(m_tabs);
    m_rankView->setModel(m_rankModel);
    m_rankView->verticalHeader()->hide();
    m_rankView->setAlternatingRowColors(true);
    // Figures with their intervals ("0.566 [-0.00, 0.83]") are read whole: the table scrolls sideways
    // rather than cut them; the caveats take what is left.
    m_rankView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_rankView->horizontalHeader()->setStretchLastSection(true);
    m_rankView->setToolTip(tr("How well each file's predictions order every pipeline's schedules (1 = perfectly)"));
    m_tabs->addTab(m_rankView, tr("Rank correlation"));
    m_skipped = new QTreeWidget(m_tabs);
    m_skipped->setColumnCount(2);
    m_skipped->setHeaderLabels({tr("File"), tr("Reason")});
    m_skipped->setRootIsDecorated(false);
    m_skipped->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tabs->addTab(m_skipped, tr("Skipped (0)"));
    m_resultsSplitter->addWidget(m_tabs);
    m_resultsSplitter->setStretchFactor(0, 3);
    m_resultsSplitter->setStretchFactor(1, 1);
    m_resultsSplitter->setSizes({640, 240});
    return m_resultsSplitter;
}

void PredictionsWorkspace::saveLayout()
{
    settings().setLayoutValue(kWorkspaceId, QStringLiteral("splitter"), m_splitter->saveState());
    settings().setLayoutValue(kWorkspaceId, QStringLiteral("results"), m_resultsSplitter->saveState());
}

void PredictionsWorkspace::restoreLayout()
{
    m_splitter->restoreState(settings().layoutValue(kWorkspaceId, QStringLiteral("splitter")));
    m_resultsSplitter->restoreState(settings().layoutValue(kWorkspaceId, QStringLiteral("results")));
}

void PredictionsWorkspace::addSampleFolder(const QString &folder) { m_folders->addFolder(folder); }

QStringList PredictionsWorkspace::sampleFolders() const { return m_folders->folders(); }

void PredictionsWorkspace::setWeights(const QString &path)
{
    m_weightsA->setPath(path);
    scheduleEvaluation();
}

void PredictionsWorkspace::setComparisonWeights(const QString &path)
{
    if (path.isEmpty()) {
        m_compare->setChecked(false);
        return;
    }
    m_weightsB->setPath(path);
    m_compare->setChecked(true);
    scheduleEvaluation();
}

void PredictionsWorkspace::setNumCores(int cores) { m_cores->setValue(cores); }

QStringList PredictionsWorkspace::weightsFiles() const
{
    QStringList files;
    if (!m_weightsA->path().isEmpty())
        files.append(m_weightsA->path());
    if (m_compare->isChecked() && !m_weightsB->path().isEmpty())
        files.append(m_weightsB->path());
    return files;
}

bool PredictionsWorkspace::isIdle() const
{
    return !m_running && !m_debounce.isActive() && !m_weightsA->scanPending() && !m_weightsB->scanPending();
}

void PredictionsWorkspace::scheduleEvaluation() { m_debounce.start(); }

void PredictionsWorkspace::evaluate()
{
    m_debounce.stop();
    const QStringList folders = sampleFolders();
    const QStringList files = weightsFiles();
    if (m_relay)
        m_relay->cancel(); // the older evaluation stops; its result is dropped by generation
    const quint64 generation = ++m_generation;
    if (folders.isEmpty() || files.isEmpty()) {
        m_running = false;
        m_relay.reset();
        m_status->setText(folders.isEmpty() ? tr("Add a folder of .sample files.") : tr("Choose weights."));
        return;
    }
    m_running = true;
    m_progress->setValue(0);
    m_status->setText(tr("Evaluating…"));
    m_relay = std::make_shared<RelayProgress>(
        this, [this, generation] { return m_generation == generation; },
        [this](double fraction, const QString &message) {
            m_progress->setValue(static_cast<int>(std::lround(fraction * 1000)));
            m_status->setText(message);
        });
    auto relay = m_relay;
    QPointer<QObject> guard(this);
    const int cores = m_cores->value();
    auto future = QtConcurrent::run([folders, files, cores, relay, guard, generation, this] {
        PredictionResult result = predictSamples(folders, files, cores, relay.get());
        postToGui(guard, [this, generation, result = std::move(result)] {
            if (m_generation == generation)
                onFinished(result);
        });
    });
    Q_UNUSED(future);
}

void PredictionsWorkspace::onFinished(const PredictionResult &result)
{
    Q_ASSERT(QThread::currentThread() == thread()); // results reach views on the GUI thread only
    m_running = false;
    m_relay.reset();
    m_progress->setValue(m_progress->maximum());
    m_result = result;
    // The apps at hand decide the first file's default (an app's own hold-one-out file); a choice made stays.
    QStringList apps;
    for (const MeasuredPipeline &p : result.pipelines)
        if (!p.app.isEmpty() && !apps.contains(p.app))
            apps << p.app;
    m_weightsA->setPipelines(apps);
    m_rankModel->setResult(result);
    m_scatterA->setResult(result, 0);
    const bool two = result.weights.size() > 1;
    m_scatterB->setVisible(two);
    if (two) {
        m_scatterB->setResult(result, 1);
        const int half = std::max(1, m_charts->width() / 2);
        m_charts->setSizes({half, half}); // side by side, the same size
    }
    m_skipped->clear();
    for (const auto &skip : result.skipped)
        m_skipped->addTopLevelItem(new QTreeWidgetItem(QStringList{QFileInfo(skip.file).fileName(), skip.reason}));
    for (int i = 0; i < m_skipped->topLevelItemCount(); ++i)
        m_skipped->topLevelItem(i)->setToolTip(0, result.skipped[static_cast<size_t>(i)].file);
    m_tabs->setTabText(1, tr("Skipped (%1)").arg(result.skipped.size()));
    size_t schedules = 0;
    for (const auto &p : result.pipelines)
        schedules += p.runtimesMs.size();
    QStringList problems = result.errors;
    for (const auto &w : result.weights)
        if (!w.error.isEmpty())
            problems.append(w.error);
    if (!problems.isEmpty())
        m_status->setText(problems.join(QLatin1Char('\n')));
    else
        m_status->setText(tr("%1 file(s) read: %2 pipeline(s), %3 distinct schedule(s), %4 skipped")
                              .arg(result.filesRead)
                              .arg(result.pipelines.size())
                              .arg(schedules)
                              .arg(result.skipped.size()));
    Q_EMIT evaluated();
}

} // namespace beamscope::ui
