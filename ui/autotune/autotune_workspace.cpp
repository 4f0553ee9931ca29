#include "ui/autotune/autotune_workspace.h"

#include "core/autotune/recorded_run.h"

#include "core/autotune/slurm.h"
#include "core/pipelines/pipeline.h"
#include "ui/autotune/autotune_charts.h"
#include "ui/autotune/batch_charts.h"
#include "ui/autotune/autotune_failures_model.h"
#include "ui/common/cuda_availability.h"
#include "ui/common/form_beside_results.h"
#include "ui/common/app_settings.h"
#include "ui/common/number_format.h"
#include "ui/common/relay_progress.h"
#include "ui/common/resources.h"
#include "ui/common/weights_combo_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QRegularExpressionValidator>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>
#include <map>

namespace beamscope::ui {

namespace {

const QString kWorkspaceId = QStringLiteral("autotune");

QJsonObject readManifest(const QString &folder)
{
    QFile file(QDir(folder).filePath(QStringLiteral("manifest.json")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

QString defaultFolder() { return QDir(QDir::homePath()).filePath(QStringLiteral("beamscope-autotune")); }

} // namespace

AutotuneWorkspace::AutotuneWorkspace(AppSettings &settings, QWidget *parent) : Workspace(settings, parent)
{
    initResources();
    setObjectName(kWorkspaceId);
    m_splitter = placeFormBesideResults(this, buildForm(), buildResults(), 360);
    // A later start reopens the run worked on last, as long as it is still there.
    if (const QString last = Workspace::settings().lastFolder(kWorkspaceId); !last.isEmpty() && canOpen(last))
        open(last);
    else
        setOutputFolder(defaultFolder());
    refreshViews();
    updateButtons();
}

AutotuneWorkspace::~AutotuneWorkspace()
{
    // The worker stops at its next schedule; its reports are dropped (QPointer guard).
    if (m_relay)
        m_relay->cancel();
}

QWidget *AutotuneWorkspace::buildForm()
{
    const ScrollForm scrollForm = makeScrollForm(this);
    QWidget *form = scrollForm.form;
    QVBoxLayout *layout = scrollForm.layout;

    auto *outBox = new QGroupBox(tr("Output folder"), form);
    auto *outLayout = new QHBoxLayout(outBox);
    m_folder = new QLineEdit(outBox);
    m_folder->setToolTip(tr("Samples, records, weights and the manifest go here. Start on a folder of an earlier "
                            "run with the same settings resumes it."));
    auto *browse = new QPushButton(tr("Browse…"), outBox);
    connect(browse, &QPushButton::clicked, this, &AutotuneWorkspace::chooseFolder);
    outLayout->addWidget(m_folder, 1);
    outLayout->addWidget(browse);
    layout->addWidget(outBox);

    auto *pipeBox = new QGroupBox(tr("Pipelines"), form);
    auto *pipeLayout = new QVBoxLayout(pipeBox);
    m_apps = new QListWidget(pipeBox);
    for (const std::string &name : autotune::autotunePipelineNames()) {
        auto *item = new QListWidgetItem(QString::fromStdString(name), m_apps);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    m_apps->setMinimumHeight(150);
    pipeLayout->addWidget(m_apps);
    auto *randomRow = new QFormLayout;
    m_random = new QSpinBox(pipeBox);
    m_random->setRange(0, 10000);
    m_random->setToolTip(tr("Seeded random pipelines of 4 stages (random_<seed>_4), as Halide's training data"));
    randomRow->addRow(tr("Random pipelines:"), m_random);
    pipeLayout->addLayout(randomRow);
    layout->addWidget(pipeBox);

    auto *runBox = new QGroupBox(tr("Run"), form);
    auto *runForm = new QFormLayout(runBox);
    m_weights = new WeightsComboBox(settings(), runBox);
    m_weights->setToolTip(tr("The weights the first batch searches with (later batches use the retrained ones)"));
    runForm->addRow(tr("Starting weights:"), m_weights);
    m_weightsNote = new QLabel(runBox);
    m_weightsNote->setWordWrap(true);
    QFont noteFont = m_weightsNote->font();
    noteFont.setItalic(true);
    m_weightsNote->setFont(noteFont);
    runForm->addRow(QString(), m_weightsNote);
    const auto updateWeightsNote = [this] {
        m_weightsNote->setText(m_weights->defaultReason());
        m_weightsNote->setVisible(!m_weightsNote->text().isEmpty());
    };
    connect(m_weights, &WeightsComboBox::pathChanged, this, updateWeightsNote);
    // The checked pipelines decide the default (one app: its own hold-one-out file).
    connect(m_apps, &QListWidget::itemChanged, this, [this, updateWeightsNote] {
        m_weights->setPipelines(apps());
        updateWeightsNote();
    });
    m_target = new QComboBox(runBox);
    m_target->addItem(tr("OpenCL (PoCL's CPU device without a GPU)"), QStringLiteral("opencl"));
    m_target->addItem(tr("CUDA (the local NVIDIA GPU)"), QStringLiteral("cuda"));
    offerCudaOnlyWithDevice(m_target);
    runForm->addRow(tr("Target:"), m_target);
    m_batches = new QSpinBox(runBox);
    m_batches->setRange(1, 9999);
    runForm->addRow(tr("Batches:"), m_batches);
    m_batchSize = new QSpinBox(runBox);
    m_batchSize->setRange(1, 9999);
    m_batchSize->setValue(80);
    m_batchSize->setToolTip(tr("Schedules per pipeline and batch (Halide's loop: 80)"));
    runForm->addRow(tr("Batch size:"), m_batchSize);
    m_firstBeam = new QSpinBox(runBox);
    m_firstBeam->setRange(1, 100000);
    m_firstBeam->setValue(32);
    m_firstBeam->setToolTip(tr("Beam of sample 0 (the others are beam-1 searches with 1% dropout)"));
    runForm->addRow(tr("Sample-0 beam:"), m_firstBeam);
    m_jobs = new QSpinBox(runBox);
    m_jobs->setRange(0, 1024);
    m_jobs->setSpecialValueText(tr("one per core"));
    runForm->addRow(tr("Compile jobs:"), m_jobs);
    m_scale = new QDoubleSpinBox(runBox);
    m_scale->setRange(0.01, 16);
    m_scale->setSingleStep(0.25);
    m_scale->setValue(1.0);
    m_scale->setToolTip(tr("Output size as a multiple of the pipeline's estimates"));
    runForm->addRow(tr("Scale:"), m_scale);
    m_seed = new QLineEdit(QStringLiteral("0"), runBox);
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{1,20}")), m_seed));
    m_seed->setToolTip(tr("Seeds the dropout and tiling draws (and the random pipelines)"));
    runForm->addRow(tr("Seed:"), m_seed);
    m_reps = new QSpinBox(runBox);
    m_reps->setRange(1, 100000);
    m_reps->setValue(10);
    m_reps->setToolTip(tr("Timed runs per schedule; the sample keeps the best"));
    runForm->addRow(tr("Benchmark reps:"), m_reps);
    m_retrain = new QCheckBox(tr("Retrain after each batch"), runBox);
    m_retrain->setChecked(true);
    runForm->addRow(m_retrain);
    layout->addWidget(runBox);

    // What Halide's loop fixes and a run records: shown, so a resumed run shows what it used.
    auto *advancedBox = new QGroupBox(tr("Search and training details"), form);
    auto *advancedForm = new QFormLayout(advancedBox);
    const autotune::AutotuneRequest defaults;
    m_dropout = new QSpinBox(advancedBox);
    m_dropout->setRange(1, 100);
    m_dropout->setValue(defaults.otherDropout);
    m_dropout->setSuffix(tr(" % kept"));
    m_dropout->setToolTip(tr("Dropout of the beam-1 searches after sample 0 (Halide's loop: 1 %)"));
    advancedForm->addRow(tr("Dropout:"), m_dropout);
    m_randomizeTilings = new QCheckBox(tr("Randomize tilings"), advancedBox);
    m_randomizeTilings->setChecked(defaults.randomizeTilings);
    advancedForm->addRow(m_randomizeTilings);
    m_freeze = new QCheckBox(tr("Freeze inline / compute_root"), advancedBox);
    m_freeze->setChecked(defaults.freezeInlineComputeRoot);
    advancedForm->addRow(m_freeze);
    m_warmup = new QSpinBox(advancedBox);
    m_warmup->setRange(0, 100000);
    m_warmup->setValue(defaults.warmup);
    advancedForm->addRow(tr("Warm-up runs:"), m_warmup);
    m_epochs = new QSpinBox(advancedBox);
    m_epochs->setRange(1, 1000000);
    m_epochs->setValue(defaults.epochs);
    advancedForm->addRow(tr("Epochs per retrain:"), m_epochs);
    m_learningRate = new QDoubleSpinBox(advancedBox);
    m_learningRate->setDecimals(6);
    m_learningRate->setRange(1e-6, 1.0);
    m_learningRate->setSingleStep(1e-4);
    m_learningRate->setValue(defaults.learningRate);
    advancedForm->addRow(tr("Learning rate:"), m_learningRate);
    m_minBatch = new QSpinBox(advancedBox);
    m_minBatch->setRange(1, 100000);
    m_minBatch->setValue(defaults.minBatch);
    advancedForm->addRow(tr("Min batch:"), m_minBatch);
    layout->addWidget(advancedBox);

    auto *slurmBox = new QGroupBox(tr("Slurm"), form);
    auto *slurmForm = new QFormLayout(slurmBox);
    m_slurm = new QCheckBox(tr("Submit to Slurm instead of running here"), slurmBox);
    m_slurm->setToolTip(tr("Each batch a job array of shards and a merge job (docs/slurm.md); the output folder "
                           "must be on a file system every node sees"));
    slurmForm->addRow(m_slurm);
    m_slurmTasks = new QSpinBox(slurmBox);
    m_slurmTasks->setRange(1, 10000);
    m_slurmTasks->setValue(4);
    slurmForm->addRow(tr("Array tasks:"), m_slurmTasks);
    m_slurmPartition = new QLineEdit(slurmBox);
    m_slurmPartition->setPlaceholderText(tr("the cluster's default"));
    slurmForm->addRow(tr("Partition:"), m_slurmPartition);
    m_slurmGpus = new QSpinBox(slurmBox);
    m_slurmGpus->setRange(0, 16);
    m_slurmGpus->setToolTip(tr("--gres=gpu:N per task (0 for OpenCL on a CPU partition)"));
    slurmForm->addRow(tr("GPUs per task:"), m_slurmGpus);
    layout->addWidget(slurmBox);

    auto *buttons = new QHBoxLayout;
    m_start = new QPushButton(tr("Start"), form);
    m_start->setDefault(true);
    m_start->setToolTip(tr("Start, or resume the run in the output folder"));
    m_cancel = new QPushButton(tr("Cancel"), form);
    connect(m_start, &QPushButton::clicked, this, &AutotuneWorkspace::start);
    connect(m_cancel, &QPushButton::clicked, this, &AutotuneWorkspace::cancel);
    buttons->addWidget(m_start);
    buttons->addWidget(m_cancel);
    layout->addLayout(buttons);
    return finishScrollForm(scrollForm);
}

QWidget *AutotuneWorkspace::buildResults()
{
    auto *panel = new QWidget(this);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 6, 6, 6);
    m_progress = new QProgressBar(panel);
    m_progress->setRange(0, 1000);
    m_progress->setFormat(tr("Not started"));
    m_progress->setTextVisible(true);
    layout->addWidget(m_progress);
    m_status = new QLabel(panel);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextBrowserInteraction);
    connect(m_status, &QLabel::linkActivated, this, [this] { open(outputFolder()); });
    layout->addWidget(m_status);
    m_counts = new QLabel(panel);
    m_counts->setTextFormat(Qt::RichText);
    layout->addWidget(m_counts);
    m_slurmStatus = new QLabel(panel);
    m_slurmStatus->setTextFormat(Qt::RichText);
    m_slurmStatus->setWordWrap(true);
    m_slurmStatus->hide();
    layout->addWidget(m_slurmStatus);
    m_slurmTimer = new QTimer(this);
    m_slurmTimer->setInterval(5000);
    connect(m_slurmTimer, &QTimer::timeout, this, &AutotuneWorkspace::refreshSlurmStatus);

    auto *runtimes = new QSplitter(Qt::Horizontal);
    m_distribution = new RuntimeDistributionChart(runtimes);
    m_best = new BestSoFarChart(runtimes);
    runtimes->addWidget(m_distribution);
    runtimes->addWidget(m_best);
    m_batchPanel = new BatchLearningPanel;
    m_chartPages = new QTabWidget(panel);
    m_chartPages->addTab(runtimes, tr("Runtimes"));
    m_chartPages->addTab(m_batchPanel, tr("Batches: predicted against measured, learning curve"));
    auto *vertical = new QSplitter(Qt::Vertical, panel);
    vertical->addWidget(m_chartPages);
    auto *failures = new QWidget(vertical);
    auto *failuresLayout = new QVBoxLayout(failures);
    failuresLayout->setContentsMargins(0, 0, 0, 0);
    failuresLayout->addWidget(new QLabel(tr("<b>Failed schedules</b> (hover for the whole message)"), failures));
    m_failures = new AutotuneFailuresModel(this);
    m_failuresView = new QTableView(failures);
    m_failuresView->setModel(m_failures);
    m_failuresView->horizontalHeader()->setStretchLastSection(true);
    m_failuresView->verticalHeader()->hide();
    m_failuresView->setSelectionBehavior(QAbstractItemView::SelectRows);
    failuresLayout->addWidget(m_failuresView);
    vertical->addWidget(failures);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 1);
    layout->addWidget(vertical, 1);

    auto *buttons = new QHBoxLayout;
    m_openPredictions = new QPushButton(tr("Open in Predictions"), panel);
    m_openPredictions->setToolTip(tr("Predicted cost against these measured runtimes"));
    m_openRetrain = new QPushButton(tr("Retrain on these"), panel);
    m_openRetrain->setToolTip(tr("Train weights on these samples (hold-one-out reads the folder's apps.tsv)"));
    connect(m_openPredictions, &QPushButton::clicked, this,
            [this] { Q_EMIT sampleFolderForWorkspace(QStringLiteral("predictions"), outputFolder()); });
    connect(m_openRetrain, &QPushButton::clicked, this,
            [this] { Q_EMIT sampleFolderForWorkspace(QStringLiteral("retrain"), outputFolder()); });
    m_openDevice = new QPushButton(tr("Compare weights"), panel);
    m_openDevice->setToolTip(tr("Halide's V100 weights against these measurements, in the Device workspace"));
    connect(m_openDevice, &QPushButton::clicked, this,
            [this] { Q_EMIT sampleFolderForWorkspace(QStringLiteral("device"), outputFolder()); });
    buttons->addStretch(1);
    buttons->addWidget(m_openDevice);
    buttons->addWidget(m_openPredictions);
    buttons->addWidget(m_openRetrain);
    layout->addLayout(buttons);
    return panel;
}

bool AutotuneWorkspace::canOpen(const QString &path) const
{
    return QFileInfo(path).isDir() && readManifest(path)
                                          .value(QStringLiteral("format"))
                                          .toString()
                                          .startsWith(QStringLiteral("beamscope-autotune"));
}

void AutotuneWorkspace::open(const QString &path)
{
    if (m_running)
        return;
    setOutputFolder(path);
    // Every setting the run recorded goes into the form, so Start resumes it as it was.
    std::string why;
    const std::optional<autotune::RecordedRun> run = autotune::readRecordedRun(path.toStdString(), why);
    if (run) {
        setRequest(run->request);
        m_loadedTarget = QString::fromStdString(run->request.target);
    }
    const QStringList errors = m_data.load(path);
    m_progress->setValue(0);
    m_progress->setFormat(tr("Not running"));
    refreshViews();
    showSlurmFolder();
    QString status = errors.isEmpty()
                         ? tr("%n schedule(s) recorded in %1. The form holds the run's settings: Start resumes it.",
                              nullptr, static_cast<int>(m_data.records().size()))
                               .arg(path)
                         : errors.join(QLatin1Char('\n'));
    if (!run)
        status += QLatin1Char('\n') + QString::fromStdString(why);
    else if (!run->weightsNote.empty())
        status += QLatin1Char('\n') + tr("Note: %1.").arg(QString::fromStdString(run->weightsNote));
    m_status->setText(status);
    settings().setLastFolder(kWorkspaceId, path);
    Q_EMIT fileOpened(path);
}

void AutotuneWorkspace::setRequest(const autotune::AutotuneRequest &r)
{
    refreshPipelineList();
    QStringList names;
    for (const std::string &app : r.apps)
        names << QString::fromStdString(app);
    for (const pipelines::PipelineInfo &user : pipelines::userPipelines())
        if (const auto source = pipelines::userGeneratorSource(user.name); !r.generatorName.empty() && source &&
                                                                           source->library == r.generatorLibrary &&
                                                                           source->generator == r.generatorName)
            names << QString::fromStdString(user.name);
    setApps(names);
    // The first checked pipeline in view: a run's pipelines are what the form is about.
    for (int i = 0; i < m_apps->count(); i++)
        if (m_apps->item(i)->checkState() == Qt::Checked) {
            m_apps->scrollToItem(m_apps->item(i), QAbstractItemView::PositionAtTop);
            break;
        }
    setRandomPipelines(r.randomPipelines);
    if (!r.weights.empty())
        setWeights(QString::fromStdString(r.weights));
    setTarget(QString::fromStdString(r.target));
    m_profile = QString::fromStdString(r.profile);
    setBatches(std::max(m_batches->value(), r.batches));
    setBatchSize(r.batchSize);
    setFirstBeam(r.firstBeamSize);
    setScale(r.scale);
    setRetrain(r.retrain);
    setSeed(r.seed);
    setReps(r.reps);
    m_warmup->setValue(r.warmup);
    m_dropout->setValue(r.otherDropout);
    m_randomizeTilings->setChecked(r.randomizeTilings);
    m_freeze->setChecked(r.freezeInlineComputeRoot);
    m_epochs->setValue(r.epochs);
    m_learningRate->setValue(r.learningRate);
    m_minBatch->setValue(r.minBatch);
}

QString AutotuneWorkspace::settingLabel(const std::string &key)
{
    static const std::map<std::string, const char *> labels = {
        {"apps", QT_TR_NOOP("Pipelines")},
        {"random_pipelines", QT_TR_NOOP("Random pipelines")},
        {"generator", QT_TR_NOOP("Generator")},
        {"starting_weights_sha256", QT_TR_NOOP("Starting weights")},
        {"target", QT_TR_NOOP("Target")},
        {"batch_size", QT_TR_NOOP("Batch size")},
        {"seed", QT_TR_NOOP("Seed")},
        {"first_beam_size", QT_TR_NOOP("Sample-0 beam")},
        {"other_random_dropout", QT_TR_NOOP("Dropout")},
        {"randomize_tilings", QT_TR_NOOP("Randomize tilings")},
        {"freeze_inline_compute_root", QT_TR_NOOP("Freeze inline / compute_root")},
        {"retrain", QT_TR_NOOP("Retrain after each batch")},
        {"epochs", QT_TR_NOOP("Epochs per retrain")},
        {"learning_rate", QT_TR_NOOP("Learning rate")},
        {"min_batch", QT_TR_NOOP("Min batch")},
        {"benchmark_reps", QT_TR_NOOP("Benchmark reps")},
        {"benchmark_warmup", QT_TR_NOOP("Warm-up runs")},
        {"benchmark_scale", QT_TR_NOOP("Scale")},
    };
    const auto it = labels.find(key);
    return it == labels.end() ? QString::fromStdString(key) : tr(it->second);
}

QStringList AutotuneWorkspace::differencesFromRun() const
{
    if (!QFileInfo::exists(QDir(outputFolder()).filePath(QStringLiteral("manifest.json"))))
        return {};
    std::string why;
    const std::optional<autotune::RecordedRun> run = autotune::readRecordedRun(outputFolder().toStdString(), why);
    if (!run)
        return {QString::fromStdString(why)};
    QStringList out;
    for (const autotune::SettingDifference &d : autotune::differingSettings(*run, request()))
        out << tr("%1: the run used %2, the form says %3")
                   .arg(settingLabel(d.key), QString::fromStdString(d.was), QString::fromStdString(d.now));
    return out;
}

void AutotuneWorkspace::saveLayout()
{
    settings().setLayoutValue(kWorkspaceId, QStringLiteral("splitter"), m_splitter->saveState());
}

void AutotuneWorkspace::restoreLayout()
{
    const QVariant state = settings().layoutValue(kWorkspaceId, QStringLiteral("splitter"));
    if (state.isValid())
        m_splitter->restoreState(state.toByteArray());
}

void AutotuneWorkspace::setOutputFolder(const QString &folder) { m_folder->setText(folder); }
QString AutotuneWorkspace::outputFolder() const { return m_folder->text().trimmed(); }

void AutotuneWorkspace::refreshPipelineList()
{
    // A generator library opened since (in the Search workspace) adds its generators at the top.
    QStringList listed;
    for (int i = 0; i < m_apps->count(); i++)
        listed << m_apps->item(i)->text();
    int row = 0;
    for (const std::string &name : autotune::autotunePipelineNames()) {
        const QString text = QString::fromStdString(name);
        if (listed.contains(text)) {
            ++row;
            continue;
        }
        auto *item = new QListWidgetItem(text);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
        item->setToolTip(tr("a generator from a library opened in this session"));
        m_apps->insertItem(row++, item);
    }
}

void AutotuneWorkspace::showEvent(QShowEvent *event)
{
    Workspace::showEvent(event);
    refreshPipelineList();
}

void AutotuneWorkspace::setApps(const QStringList &apps)
{
    refreshPipelineList();
    for (int i = 0; i < m_apps->count(); i++)
        m_apps->item(i)->setCheckState(apps.contains(m_apps->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
}

QStringList AutotuneWorkspace::apps() const
{
    QStringList out;
    for (int i = 0; i < m_apps->count(); i++)
        if (m_apps->item(i)->checkState() == Qt::Checked)
            out << m_apps->item(i)->text();
    return out;
}

void AutotuneWorkspace::setRandomPipelines(int count) { m_random->setValue(count); }
void AutotuneWorkspace::setTarget(const QString &target)
{
    const int i = m_target->findData(target);
    if (i >= 0)
        m_target->setCurrentIndex(i);
}
void AutotuneWorkspace::setBatches(int batches) { m_batches->setValue(batches); }
void AutotuneWorkspace::setBatchSize(int size) { m_batchSize->setValue(size); }
void AutotuneWorkspace::setFirstBeam(int beam) { m_firstBeam->setValue(beam); }
void AutotuneWorkspace::setJobs(int jobs) { m_jobs->setValue(jobs); }
void AutotuneWorkspace::setScale(double scale) { m_scale->setValue(scale); }
void AutotuneWorkspace::setRetrain(bool retrain) { m_retrain->setChecked(retrain); }
void AutotuneWorkspace::setWeights(const QString &path) { m_weights->setPath(path); }
void AutotuneWorkspace::setSeed(quint64 seed) { m_seed->setText(QString::number(seed)); }
void AutotuneWorkspace::setReps(int reps) { m_reps->setValue(reps); }

autotune::AutotuneRequest AutotuneWorkspace::request() const
{
    autotune::AutotuneRequest r;
    r.outDir = outputFolder().toStdString();
    for (const QString &a : apps()) {
        // A user's generator is asked for as one, so the run records its library and a resumed run
        // (in another process too) builds it again.
        if (const auto source = pipelines::userGeneratorSource(a.toStdString()); source && r.generatorLibrary.empty()) {
            r.generatorLibrary = source->library;
            r.generatorName = source->generator;
            continue;
        }
        r.apps.push_back(a.toStdString());
    }
    r.randomPipelines = m_random->value();
    r.weights = m_weights->path().toStdString();
    r.target = m_target->currentData().toString().toStdString();
    r.batches = m_batches->value();
    r.batchSize = m_batchSize->value();
    r.firstBeamSize = m_firstBeam->value();
    r.jobs = m_jobs->value();
    r.scale = m_scale->value();
    r.retrain = m_retrain->isChecked();
    r.seed = m_seed->text().toULongLong();
    r.reps = m_reps->value();
    r.warmup = m_warmup->value();
    r.otherDropout = m_dropout->value();
    r.randomizeTilings = m_randomizeTilings->isChecked();
    r.freezeInlineComputeRoot = m_freeze->isChecked();
    r.epochs = m_epochs->value();
    r.learningRate = static_cast<float>(m_learningRate->value());
    r.minBatch = m_minBatch->value();
    r.profile = m_profile.toStdString();
    return r;
}

void AutotuneWorkspace::chooseFolder()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Autotune output folder"), outputFolder());
    if (dir.isEmpty())
        return;
    if (canOpen(dir)) {
        open(dir);
        return;
    }
    // A new folder: nothing of the previous run's charts and counts stays.
    setOutputFolder(dir);
    m_data.load(dir);
    refreshViews();
    showSlurmFolder();
    m_status->setText(tr("%1 holds no run: Start begins one there.").arg(dir));
}

void AutotuneWorkspace::start()
{
    if (m_running)
        return;
    const autotune::AutotuneRequest r = request();
    if (r.apps.empty() && r.randomPipelines == 0) {
        m_status->setText(tr("Choose at least one pipeline or some random pipelines."));
        return;
    }
    // A run resumes only with the settings it recorded: say which differ, in the form's words, and offer
    // to take the run's.
    if (const QStringList differences = differencesFromRun(); !differences.isEmpty()) {
        QStringList items;
        for (const QString &d : differences)
            items << d.toHtmlEscaped();
        m_status->setText(tr("This folder holds a run made with other settings, so Start would not resume it:"
                             "<br>• %1<br><a href=\"#run\">Use the run's settings</a>, or choose another output "
                             "folder for a new run.")
                              .arg(items.join(QStringLiteral("<br>• "))));
        return;
    }
    if (m_slurm->isChecked()) {
        submitToSlurm();
        return;
    }
    settings().setLastFolder(kWorkspaceId, outputFolder());
    const quint64 generation = ++m_generation;
    m_running = true;
    m_result.reset();
    m_loadedTarget = m_target->currentData().toString();
    m_data.load(outputFolder()); // a resumed run keeps showing what it had
    refreshViews();
    m_progress->setValue(0);
    m_progress->setFormat(tr("Searching… %p%"));
    m_status->setText(tr("Starting…"));
    updateButtons();

    QPointer<QObject> guard(this);
    auto isCurrent = [this, generation] { return m_generation == generation; };
    m_schedulesTotal =
        r.batches * r.batchSize * static_cast<int>(r.apps.size() + static_cast<size_t>(r.randomPipelines));
    m_schedulesAtStart = static_cast<int>(m_data.records().size());
    m_clock.start();
    m_relay = std::make_shared<RelayProgress>(this, isCurrent, [this](double f, const QString &message) {
        if (!m_running)
            return;
        m_progress->setValue(static_cast<int>(std::lround(f * 1000)));
        m_progress->setFormat(progressText());
        m_progress->setToolTip(message);
        m_status->setText(message);
        Q_EMIT statusMessage(message, 0);
    });
    auto relay = m_relay;
    auto future = QtConcurrent::run([r, relay, guard, generation, this] {
        autotune::AutotuneEvents events;
        events.onRecord = [guard, generation, this](const samples::ScheduleRecord &record) {
            postToGui(guard, [this, generation, record] {
                if (m_generation == generation)
                    onRecord(record);
            });
        };
        autotune::AutotuneResult result = autotune::runAutotune(r, relay.get(), events);
        postToGui(guard, [this, generation, result = std::move(result)] {
            if (m_generation == generation)
                onFinished(result);
        });
    });
    Q_UNUSED(future);
    Q_EMIT runStarted();
}

void AutotuneWorkspace::cancel()
{
    if (!m_running && m_slurmRun) {
        std::string error;
        const auto ids = autotune::cancelSlurmRun(outputFolder().toStdString(), error);
        m_status->setText(error.empty() ? tr("Asked Slurm to cancel %n job(s); Start resubmits what is left.", nullptr,
                                             static_cast<int>(ids.size()))
                                        : QString::fromStdString(error));
        refreshSlurmStatus();
        return;
    }
    if (m_running && m_relay) {
        m_relay->cancel();
        m_status->setText(tr("Cancelling after the current schedule…"));
        m_cancel->setEnabled(false);
    }
}

void AutotuneWorkspace::onRecord(const samples::ScheduleRecord &record)
{
    Q_ASSERT(QThread::currentThread() == thread()); // results reach views on the GUI thread only
    m_data.add(record);
    refreshViews();
    if (m_running)
        m_progress->setFormat(progressText());
    Q_EMIT recordAdded(static_cast<int>(m_data.records().size()) - 1);
}

void AutotuneWorkspace::onFinished(const autotune::AutotuneResult &result)
{
    Q_ASSERT(QThread::currentThread() == thread());
    m_running = false;
    m_relay.reset();
    m_result = result;
    if (!result.ok) {
        m_progress->setFormat(tr("Not run"));
        m_status->setText(QString::fromStdString(result.error));
    } else if (result.cancelled) {
        m_progress->setFormat(tr("Cancelled at %p%"));
        m_status->setText(tr("Cancelled; Start resumes from the next schedule."));
    } else {
        m_progress->setValue(m_progress->maximum());
        m_progress->setFormat(tr("Done"));
    }
    refreshViews();
    if (result.ok && !result.cancelled)
        // A resumed run attempts only what was left: say so beside the run's whole count.
        m_status->setText(tr("%n schedule(s) attempted by this start, %1 recorded in the run in all; %2 batch(es) "
                             "complete.",
                             nullptr, static_cast<int>(result.records.size()))
                              .arg(m_data.records().size())
                              .arg(result.batches.size() + static_cast<size_t>(result.batchesSkipped)));
    updateButtons();
    Q_EMIT runFinished(result.ok && !result.cancelled);
}

QString AutotuneWorkspace::progressText() const
{
    // Schedules finished, not batches: search, compile and measure all go into one schedule.
    const int done = std::min(static_cast<int>(m_data.records().size()), m_schedulesTotal);
    QString text = tr("%1 of %2 schedules").arg(done).arg(m_schedulesTotal);
    const int doneHere = done - m_schedulesAtStart;
    if (doneHere > 0 && done < m_schedulesTotal) {
        const double perSchedule = static_cast<double>(m_clock.elapsed()) / doneHere;
        text +=
            tr(" · about %1 left").arg(formatDuration(static_cast<qint64>(perSchedule * (m_schedulesTotal - done))));
    }
    return text;
}

QString AutotuneWorkspace::timeLabel() const
{
    return m_loadedTarget == QStringLiteral("cuda") ? tr("ms (CUDA, local GPU)")
                                                    : tr("ms (OpenCL device: PoCL's CPU without a GPU)");
}

void AutotuneWorkspace::refreshViews()
{
    QStringList parts;
    for (const auto &[status, n] : m_data.countsByStatus())
        parts << QStringLiteral("%1 <b>%2</b>").arg(QString(status).replace(QLatin1Char('_'), QLatin1Char(' '))).arg(n);
    m_counts->setText(parts.isEmpty() ? tr("No schedule attempted yet.") : parts.join(QStringLiteral(" · ")));
    m_distribution->setData(m_data, timeLabel());
    m_best->setData(m_data, timeLabel());
    m_batchPanel->setData(m_data, timeLabel());
    m_failures->setData(m_data);
    updateButtons();
}

void AutotuneWorkspace::updateButtons()
{
    m_start->setEnabled(!m_running);
    m_cancel->setEnabled(m_running || m_slurmRun);
    m_cancel->setToolTip(m_slurmRun && !m_running ? tr("scancel every job of this Slurm run") : QString());
    const bool anySample = m_data.countsByStatus().count(QStringLiteral("ok")) > 0;
    m_openPredictions->setEnabled(anySample);
    m_openDevice->setEnabled(anySample);
    m_openRetrain->setEnabled(anySample && !m_running);
}

} // namespace beamscope::ui
