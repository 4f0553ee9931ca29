#include "ui/retrain/retrain_workspace.h"

#include "core/study/study_report.h"

#include "ui/common/form_beside_results.h"
#include "ui/common/number_format.h"
#include "ui/common/app_settings.h"
#include "ui/common/relay_progress.h"
#include "ui/common/sample_folder_list.h"
#include "ui/common/resources.h"
#include "ui/common/weights_combo_box.h"
#include "ui/retrain/epoch_chart.h"

#include <QChart>
#include "ui/retrain/epoch_table_model.h"
#include "ui/weights/weights_workspace.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace beamscope::ui {

namespace {
const QString kWorkspaceId = QStringLiteral("retrain");
const QString kRandomInit = QStringLiteral("\x01random");
} // namespace

RetrainWorkspace::RetrainWorkspace(AppSettings &settings, QWidget *parent) : Workspace(settings, parent)
{
    initResources();
    setObjectName(kWorkspaceId);
    m_splitter = placeFormBesideResults(this, buildForm(), buildResults(), 380);
    m_drainTimer = new QTimer(this);
    m_drainTimer->setInterval(kDrawIntervalMs);
    connect(m_drainTimer, &QTimer::timeout, this, &RetrainWorkspace::drainEpochs);
    setOutput(defaultOutput());
    m_outputEdited = false;
    updateFolders();
    updateButtons();
}

RetrainWorkspace::~RetrainWorkspace()
{
    // The worker stops at its next batch; its reports are dropped (QPointer guard).
    if (m_relay)
        m_relay->cancel();
}

QWidget *RetrainWorkspace::buildForm()
{
    const ScrollForm scrollForm = makeScrollForm(this);
    QWidget *form = scrollForm.form;
    QVBoxLayout *layout = scrollForm.layout;

    auto *samplesBox = new QGroupBox(tr("Samples"), form);
    auto *samplesLayout = new QVBoxLayout(samplesBox);
    m_folders = new SampleFolderList(tr("Folders searched for .sample files (recursively). <root>/<app>/… names "
                                        "each sample's app, for hold-one-out (docs/samples.md)"),
                                     samplesBox);
    connect(m_folders, &SampleFolderList::foldersChanged, this, &RetrainWorkspace::updateFolders);
    samplesLayout->addWidget(m_folders);
    m_foldersNote = new QLabel(tr("No folder yet"), samplesBox);
    m_foldersNote->setWordWrap(true);
    samplesLayout->addWidget(m_foldersNote);
    layout->addWidget(samplesBox);

    auto *trainingBox = new QGroupBox(tr("Training"), form);
    auto *trainingForm = new QFormLayout(trainingBox);
    m_initial = new WeightsComboBox(settings(), trainingBox);
    m_initial->addSpecialItem(tr("Random initialisation (seed below)"), kRandomInit);
    m_initial->setToolTip(tr("Weights to start from: any Anderson2021 file in the library, or Halide's seeded "
                             "random initialiser"));
    trainingForm->addRow(tr("Initial weights:"), m_initial);
    m_holdOut = new QComboBox(trainingBox);
    m_holdOut->addItem(tr("none (Halide's hash split)"), QString());
    m_holdOut->setToolTip(tr("Validate on one app's pipelines and train on the rest"));
    trainingForm->addRow(tr("Held-out app:"), m_holdOut);
    m_partition = new QCheckBox(tr("Split by schedule"), trainingBox);
    m_partition->setToolTip(tr("Halide's --partition_schedules: every pipeline's schedules are split between "
                               "training and validation, instead of whole pipelines (the hash split only)"));
    trainingForm->addRow(QString(), m_partition);
    connect(m_holdOut, &QComboBox::currentIndexChanged, this, [this] {
        const QString app = m_holdOut->currentData().toString();
        m_partition->setEnabled(app.isEmpty());
        // Starting weights that never saw the held-out app: its own hold-one-out file, by default.
        if (!app.isEmpty())
            m_initial->setPipelines({app});
    });
    m_epochs = new QSpinBox(trainingBox);
    m_epochs->setRange(1, 1000000);
    m_epochs->setValue(10);
    trainingForm->addRow(tr("Epochs:"), m_epochs);
    m_rate = new QDoubleSpinBox(trainingBox);
    m_rate->setDecimals(6);
    m_rate->setRange(0.000001, 1.0);
    m_rate->setSingleStep(0.0001);
    m_rate->setValue(0.0001);
    m_rate->setToolTip(tr("ADAM learning rate (Halide's default 0.0001)"));
    trainingForm->addRow(tr("Learning rate:"), m_rate);
    m_seed = new QSpinBox(trainingBox);
    m_seed->setRange(0, 2147483647);
    m_seed->setToolTip(tr("Seeds the batch shuffle (and the random initialiser): the same seed gives the same run"));
    trainingForm->addRow(tr("Seed:"), m_seed);
    m_cores = new QSpinBox(trainingBox);
    m_cores->setRange(1, 1000000);
    m_cores->setValue(80);
    m_cores->setToolTip(tr("num_cores the model is evaluated with (80: the V100 SM count; Halide's own trainer "
                           "uses 32)"));
    trainingForm->addRow(tr("num_cores:"), m_cores);
    layout->addWidget(trainingBox);

    auto *outputBox = new QGroupBox(tr("Output"), form);
    auto *outputLayout = new QHBoxLayout(outputBox);
    m_output = new QLineEdit(outputBox);
    m_output->setToolTip(tr("The trained .weights file (written atomically; it joins the weights library). "
                            "A checkpoint next to it keeps every finished epoch while the run goes on."));
    connect(m_output, &QLineEdit::textEdited, this, [this] { m_outputEdited = true; });
    auto *browse = new QPushButton(tr("Browse…"), outputBox);
    connect(browse, &QPushButton::clicked, this, &RetrainWorkspace::chooseOutput);
    outputLayout->addWidget(m_output, 1);
    outputLayout->addWidget(browse);
    layout->addWidget(outputBox);

    auto *buttons = new QHBoxLayout;
    m_start = new QPushButton(tr("Start"), form);
    m_start->setDefault(true);
    m_cancel = new QPushButton(tr("Cancel"), form);
    m_resume = new QPushButton(tr("Resume"), form);
    m_resume->setToolTip(tr("Continue the cancelled run from its checkpoint"));
    connect(m_start, &QPushButton::clicked, this, &RetrainWorkspace::start);
    connect(m_cancel, &QPushButton::clicked, this, &RetrainWorkspace::cancel);
    connect(m_resume, &QPushButton::clicked, this, &RetrainWorkspace::resume);
    buttons->addWidget(m_start);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_resume);
    layout->addLayout(buttons);
    return finishScrollForm(scrollForm);
}

QWidget *RetrainWorkspace::buildResults()
{
    auto *panel = new QWidget(this);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 6, 6, 6);
    auto *top = new QHBoxLayout;
    m_progress = new QProgressBar(panel);
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setFormat(tr("Not started"));
    m_progress->setTextVisible(true);
    top->addWidget(m_progress, 1);
    m_logScale = new QCheckBox(tr("Log loss axis"), panel);
    m_logScale->setChecked(true);
    top->addWidget(m_logScale);
    layout->addLayout(top);
    m_status = new QLabel(tr("Choose sample folders and press Start."), panel);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);

    m_lossChart = new EpochChart(tr("Loss per epoch"), tr("Loss"), {tr("Training loss"), tr("Validation loss")}, panel);
    m_lossChart->setLogScale(true);
    connect(m_logScale, &QCheckBox::toggled, m_lossChart, &EpochChart::setLogScale);
    m_rankChart = new EpochChart(tr("Validation ranking per epoch"), tr("Rank agreement"),
                                 {tr("Spearman"), tr("Kendall τ"), tr("Pairwise accuracy")}, panel);
    m_rankChart->setFixedYRange(-1, 1);
    m_epochModel = new EpochTableModel(this);
    m_epochView = new QTableView(panel);
    m_epochView->setModel(m_epochModel);
    m_epochView->verticalHeader()->hide();
    m_epochView->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_epochView->setAlternatingRowColors(true);
    m_epochView->setSelectionBehavior(QAbstractItemView::SelectRows);
    connect(m_epochModel, &QAbstractItemModel::rowsInserted, m_epochView, [this] { m_epochView->scrollToBottom(); });

    auto *charts = new QSplitter(Qt::Horizontal, panel);
    charts->addWidget(m_lossChart);
    charts->addWidget(m_rankChart);
    m_resultsSplitter = new QSplitter(Qt::Vertical, panel);
    m_resultsSplitter->addWidget(charts);
    m_resultsSplitter->addWidget(m_epochView);
    m_resultsSplitter->setStretchFactor(0, 3);
    m_resultsSplitter->setStretchFactor(1, 1);
    layout->addWidget(m_resultsSplitter, 1);
    return panel;
}

bool RetrainWorkspace::canOpen(const QString &path) const
{
    const QFileInfo info(path);
    // A device study holds samples too, but opens as a study (the Device workspace).
    if (!info.isDir() || study::isStudyFolder(path.toStdString()))
        return false;
    QDirIterator it(path, {QStringLiteral("*.sample")}, QDir::Files, QDirIterator::Subdirectories);
    return it.hasNext();
}

void RetrainWorkspace::open(const QString &path) { addSampleFolder(path); }

void RetrainWorkspace::saveLayout()
{
    settings().setLayoutValue(kWorkspaceId, QStringLiteral("splitter"), m_splitter->saveState());
    settings().setLayoutValue(kWorkspaceId, QStringLiteral("results"), m_resultsSplitter->saveState());
}

void RetrainWorkspace::restoreLayout()
{
    m_splitter->restoreState(settings().layoutValue(kWorkspaceId, QStringLiteral("splitter")));
    m_resultsSplitter->restoreState(settings().layoutValue(kWorkspaceId, QStringLiteral("results")));
}

void RetrainWorkspace::addSampleFolder(const QString &folder) { m_folders->addFolder(folder); }

void RetrainWorkspace::removeSampleFolder(const QString &folder) { m_folders->removeFolder(folder); }

QStringList RetrainWorkspace::sampleFolders() const { return m_folders->folders(); }

void RetrainWorkspace::setInitialWeights(const QString &path) { m_initial->setPath(path); }

void RetrainWorkspace::setRandomInitialWeights()
{
    const int index = m_initial->findData(kRandomInit, WeightsComboBox::PathRole);
    if (index >= 0)
        m_initial->setCurrentIndex(index);
}

void RetrainWorkspace::setHoldOutApp(const QString &app)
{
    const int index = m_holdOut->findData(app);
    if (index >= 0)
        m_holdOut->setCurrentIndex(index);
}

QStringList RetrainWorkspace::availableApps() const
{
    QStringList apps;
    for (int i = 1; i < m_holdOut->count(); ++i)
        apps.append(m_holdOut->itemData(i).toString());
    return apps;
}

void RetrainWorkspace::setEpochs(int epochs) { m_epochs->setValue(epochs); }

void RetrainWorkspace::setLearningRate(double rate) { m_rate->setValue(rate); }

void RetrainWorkspace::setSeed(int seed) { m_seed->setValue(seed); }

void RetrainWorkspace::setNumCores(int cores) { m_cores->setValue(cores); }

void RetrainWorkspace::setOutput(const QString &path)
{
    m_output->setText(path);
    m_outputEdited = true;
    updateButtons();
}

QString RetrainWorkspace::output() const { return m_output->text().trimmed(); }

QString RetrainWorkspace::defaultOutput() const
{
    return AppSettings::trainedWeightsFolder() +
           QStringLiteral("/retrained-%1.weights")
               .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
}

RetrainRequest RetrainWorkspace::request() const
{
    RetrainRequest r;
    r.sampleFolders = sampleFolders();
    r.randomInit = m_initial->specialValue() == kRandomInit;
    r.initialWeights = r.randomInit ? QString() : m_initial->path();
    r.holdOutApp = m_holdOut->currentData().toString();
    r.partitionSchedules = r.holdOutApp.isEmpty() && m_partition->isChecked();
    r.epochs = m_epochs->value();
    r.learningRate = static_cast<float>(m_rate->value());
    r.seed = static_cast<uint32_t>(m_seed->value());
    r.numCores = m_cores->value();
    r.output = output();
    return r;
}

void RetrainWorkspace::start()
{
    if (m_running)
        return;
    RetrainRequest r = request();
    // An earlier run of this output left its checkpoint: never drop it unasked.
    if (QFileInfo::exists(checkpointFor(r.output))) {
        QMessageBox box(QMessageBox::Question, tr("Earlier run found"),
                        tr("A checkpoint of an earlier run of %1 exists. Resume it, or start over from the "
                           "first epoch?")
                            .arg(r.output),
                        QMessageBox::Cancel, this);
        QPushButton *resume = box.addButton(tr("Resume"), QMessageBox::AcceptRole);
        QPushButton *over = box.addButton(tr("Start over"), QMessageBox::DestructiveRole);
        box.setDefaultButton(resume);
        box.exec();
        if (box.clickedButton() == resume)
            r.resume = true;
        else if (box.clickedButton() == over)
            r.startOver = true;
        else
            return;
    }
    if (!r.resume && QFileInfo::exists(r.output)) {
        const auto answer = QMessageBox::question(
            this, tr("Replace weights?"), tr("%1 already exists. Replace it when training finishes?").arg(r.output));
        if (answer != QMessageBox::Yes)
            return;
    }
    launch(r);
}

void RetrainWorkspace::resume()
{
    if (m_running || !canResume())
        return;
    RetrainRequest r = *m_cancelledRequest;
    r.resume = true;
    launch(r);
}

bool RetrainWorkspace::canResume() const
{
    return m_cancelledRequest.has_value() && QFileInfo::exists(checkpointFor(m_cancelledRequest->output));
}

void RetrainWorkspace::cancel()
{
    if (m_running && m_relay) {
        m_relay->cancel();
        m_status->setText(tr("Cancelling after the current batch…"));
        m_cancel->setEnabled(false);
    }
}

void RetrainWorkspace::launch(RetrainRequest r)
{
    const bool resume = r.resume;
    r.replaceOutput = QFileInfo::exists(r.output); // confirmed in start()
    const quint64 generation = ++m_generation;
    m_running = true;
    m_outcome.reset();
    if (!resume) {
        m_epochModel->clear();
        m_lossChart->clear();
        m_rankChart->clear();
        m_rankChart->chart()->setTitle(tr("Validation ranking per epoch"));
    }
    m_progress->setValue(0);
    m_progress->setFormat(tr("Loading samples… %p%"));
    m_status->setText(resume ? tr("Resuming from %1…").arg(checkpointFor(r.output)) : tr("Loading samples…"));
    m_clock.start();
    m_trainingStartFraction = -1;
    updateButtons();

    QPointer<QObject> guard(this);
    auto isCurrent = [this, generation] { return m_generation == generation; };
    m_relay = std::make_shared<RelayProgress>(this, isCurrent,
                                              [this](double f, const QString &message) { onReport(f, message); });
    auto relay = m_relay;
    m_epochInbox = std::make_shared<BatchedInbox<samples::EpochRecord>>();
    auto inbox = m_epochInbox;
    m_drainTimer->start();
    auto future = QtConcurrent::run([r, relay, inbox, guard, generation, this] {
        // Epochs are collected here and drawn by drainEpochs() a few times a second.
        auto epochSink = [inbox](const samples::EpochRecord &record) { inbox->push(record); };
        auto loadedSink = [guard, generation, this](const QString &message) {
            postToGui(guard, [this, generation, message] {
                if (m_generation == generation)
                    m_status->setText(message);
            });
        };
        RetrainOutcome outcome = runRetrain(r, relay.get(), epochSink, loadedSink);
        postToGui(guard, [this, generation, outcome = std::move(outcome), r] {
            if (m_generation != generation)
                return;
            drainEpochs(); // the last epochs before the outcome
            m_drainTimer->stop();
            if (outcome.cancelled)
                m_cancelledRequest = r;
            onFinished(outcome);
        });
    });
    Q_UNUSED(future);
    Q_EMIT runStarted();
}

void RetrainWorkspace::onReport(double fraction, const QString &message)
{
    if (!m_running)
        return;
    // The bar shows each phase on its own: loading the samples, then the epochs
    // of training, so "7 %" at epoch 7,000 of 100,000 and not 11 %.
    if (fraction <= kRetrainLoadingShare) {
        m_progress->setValue(static_cast<int>(std::lround(fraction / kRetrainLoadingShare * 1000)));
        m_progress->setFormat(tr("Loading samples — %p%"));
    } else {
        const double training = (fraction - kRetrainLoadingShare) / (1.0 - kRetrainLoadingShare);
        m_progress->setValue(static_cast<int>(std::lround(training * 1000)));
        // The ETA extrapolates the training phase from its own start.
        QString eta;
        if (m_trainingStartFraction < 0) {
            m_trainingStartFraction = training;
            m_trainingStartMs = m_clock.elapsed();
        } else if (training > m_trainingStartFraction) {
            const double rate = (training - m_trainingStartFraction) /
                                static_cast<double>(std::max<qint64>(1, m_clock.elapsed() - m_trainingStartMs));
            eta = tr(" — ETA %1").arg(formatDuration(static_cast<qint64>((1.0 - training) / rate)));
        }
        m_progress->setFormat(tr("Training — %p%") + eta);
    }
    m_progress->setToolTip(message);
    Q_EMIT statusMessage(message, 0);
}

void RetrainWorkspace::drainEpochs()
{
    Q_ASSERT(QThread::currentThread() == thread()); // results reach views on the GUI thread only
    if (!m_epochInbox)
        return;
    const std::vector<samples::EpochRecord> records = m_epochInbox->take();
    if (records.empty())
        return;
    std::vector<std::pair<int, std::vector<double>>> losses, ranks;
    for (const samples::EpochRecord &r : records) {
        losses.push_back({r.epoch, {r.trainingLoss, r.validationLoss}});
        ranks.push_back({r.epoch, {r.validation.spearman, r.validation.kendall, r.validation.pairwiseAccuracy}});
    }
    m_epochModel->addEpochs(records);
    m_lossChart->addEpochs(losses);
    m_rankChart->addEpochs(ranks);
    // Empty charts and dashes would say nothing: say why there is nothing to validate on.
    m_rankChart->chart()->setTitle(records.back().validationBatches > 0
                                       ? tr("Validation ranking per epoch")
                                       : tr("No validation set: every pipeline fell on the training side of the "
                                            "split. Hold out an app, or split by schedule."));
    Q_EMIT epochFinished(records.back().epoch);
}

void RetrainWorkspace::onFinished(const RetrainOutcome &outcome)
{
    Q_ASSERT(QThread::currentThread() == thread()); // results reach views on the GUI thread only
    m_running = false;
    m_relay.reset();
    m_outcome = outcome;
    const QString elapsed = formatDuration(m_clock.elapsed());
    if (outcome.ok) {
        m_cancelledRequest.reset();
        m_progress->setValue(m_progress->maximum());
        m_progress->setFormat(tr("Done in %1").arg(elapsed));
        // Only a file in a folder the library scans is listed there: say which it is.
        bool listed = isInsideFolder(outcome.output, AppSettings::trainedWeightsFolder());
        for (const QString &libraryFolder : settings().allLibraryFolders())
            listed = listed || isInsideFolder(outcome.output, libraryFolder);
        m_status->setText(
            (listed ? tr("Wrote %1 after %n epoch(s); it is in the weights library.", nullptr, outcome.epochsCompleted)
                    : tr("Wrote %1 after %n epoch(s); its folder is not in the weights library (File › "
                         "Open folder adds it).",
                         nullptr, outcome.epochsCompleted))
                .arg(outcome.output));
        Q_EMIT statusMessage(tr("Trained %1").arg(outcome.output), 10000);
        // The library lists the new file: this workspace's picker and the Weights workspace.
        if (QWidget *top = window()) {
            for (auto *picker : top->findChildren<WeightsComboBox *>()) // this one's and the Predictions workspace's
                picker->rescan();
            for (auto *weights : top->findChildren<WeightsWorkspace *>())
                weights->rescanLibrary();
        }
        if (!m_outputEdited || outcome.output == output())
            m_output->setText(defaultOutput()); // the next run must not replace this one by accident
        m_outputEdited = false;
        Q_EMIT weightsTrained(outcome.output);
    } else if (outcome.cancelled) {
        m_progress->setFormat(tr("Cancelled — %p%"));
        m_status->setText(outcome.epochsCompleted > 0
                              ? tr("Cancelled after epoch %1; %2 keeps it. Resume continues from there.")
                                    .arg(outcome.epochsCompleted)
                                    .arg(outcome.checkpoint)
                              : tr("Cancelled before the first epoch finished; nothing to keep."));
    } else {
        m_progress->setFormat(tr("Failed"));
        m_status->setText(tr("Training failed: %1").arg(outcome.error));
    }
    updateButtons();
    Q_EMIT runFinished();
}

void RetrainWorkspace::updateFolders()
{
    const QStringList folders = sampleFolders();
    if (folders.isEmpty()) {
        m_foldersJob.cancel();
        m_foldersNote->setText(tr("No folder yet: add folders of .sample files."));
        while (m_holdOut->count() > 1)
            m_holdOut->removeItem(1);
        updateButtons();
        return;
    }
    m_foldersNote->setText(tr("Looking for samples…"));
    m_foldersJob.start(
        this, [folders] { return summarizeSampleFolders(folders); },
        [this](const SampleFolderSummary &summary) {
            const QString wanted = m_holdOut->currentData().toString();
            while (m_holdOut->count() > 1)
                m_holdOut->removeItem(1);
            for (const QString &app : summary.apps)
                m_holdOut->addItem(app, app);
            setHoldOutApp(wanted);
            QString note = tr("%n sample file(s)", nullptr, static_cast<int>(summary.files));
            note += summary.apps.isEmpty() ? tr("; the layout names no app")
                                           : tr("; apps: %1").arg(summary.apps.join(QStringLiteral(", ")));
            if (!summary.errors.isEmpty())
                note += QStringLiteral("\n") + summary.errors.join(QLatin1Char('\n'));
            m_foldersNote->setText(note);
            updateButtons();
            Q_EMIT foldersSummarized();
        });
    updateButtons();
}

void RetrainWorkspace::updateButtons()
{
    m_start->setEnabled(!m_running && m_folders->count() > 0 && !output().isEmpty());
    m_cancel->setEnabled(m_running);
    m_resume->setEnabled(!m_running && canResume());
    m_folders->setEnabled(!m_running);
}

void RetrainWorkspace::chooseOutput()
{
    QDir().mkpath(AppSettings::trainedWeightsFolder());
    const QString file =
        QFileDialog::getSaveFileName(this, tr("Save trained weights as"), output(), tr("Weights (*.weights)"), nullptr,
                                     QFileDialog::DontConfirmOverwrite);
    if (!file.isEmpty())
        setOutput(file.endsWith(QLatin1String(".weights")) ? file : file + QStringLiteral(".weights"));
}

} // namespace beamscope::ui
