#include "ui/device/weights_on_samples_panel.h"

#include "core/samples/dataset.h"
#include "ui/device/comparison_scatter.h"
#include "ui/device/weights_comparison_model.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace beamscope::ui {

namespace {

// What the folder's runtimes are, from its autotune manifest when it has one.
QString timeLabelFor(const QString &folder)
{
    QFile file(QDir(folder).filePath(QStringLiteral("manifest.json")));
    if (!file.open(QIODevice::ReadOnly))
        return QObject::tr("measured ms");
    const QString kind = QJsonDocument::fromJson(file.readAll())
                             .object()
                             .value(QStringLiteral("device"))
                             .toObject()
                             .value(QStringLiteral("kind"))
                             .toString();
    if (kind == QStringLiteral("cuda"))
        return QObject::tr("ms on the local GPU (CUDA)");
    if (kind == QStringLiteral("opencl"))
        return QObject::tr("ms on the OpenCL device (PoCL: CPU)");
    return QObject::tr("measured ms");
}

} // namespace

WeightsOnSamplesPanel::WeightsOnSamplesPanel(QWidget *parent) : QWidget(parent)
{
    m_folder = new QLineEdit(this);
    m_folder->setPlaceholderText(tr("a folder of samples measured here (an autotune output folder)"));
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Samples measured on this device"), sampleFolder());
        if (!dir.isEmpty())
            setSampleFolder(dir);
    });
    m_choices = new QListWidget(this);
    m_choices->setToolTip(tr("Each weights choice: a file, a shipped name, a folder of <app>.weights (retrain "
                             "--hold-one-out) or halide-hold-one-out (Halide's V100 per-app files)"));
    m_choices->setMaximumHeight(64); // three rows: the results below need the height
    auto *addFile = new QPushButton(tr("Add file…"), this);
    connect(addFile, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Weights file"), {}, tr("Weights (*.weights)"));
        if (!f.isEmpty())
            m_choices->addItem(f);
    });
    auto *addFolder = new QPushButton(tr("Add hold-one-out folder…"), this);
    connect(addFolder, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Folder of <app>.weights"));
        if (!d.isEmpty())
            m_choices->addItem(d);
    });
    auto *remove = new QPushButton(tr("Remove"), this);
    connect(remove, &QPushButton::clicked, this, [this] { delete m_choices->currentItem(); });
    m_compare = new QPushButton(tr("Compare"), this);
    connect(m_compare, &QPushButton::clicked, this, &WeightsOnSamplesPanel::compare);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_model = new WeightsComparisonModel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setAlternatingRowColors(true);

    auto *folderRow = new QHBoxLayout;
    folderRow->addWidget(new QLabel(tr("Samples:"), this));
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    auto *choiceButtons = new QVBoxLayout;
    for (QPushButton *b : {addFile, addFolder, remove, m_compare})
        choiceButtons->addWidget(b);
    choiceButtons->addStretch(1);
    auto *choiceRow = new QHBoxLayout;
    choiceRow->addWidget(m_choices, 1);
    choiceRow->addLayout(choiceButtons);

    auto *scatterHost = new QWidget(this);
    m_scatterRow = new QHBoxLayout(scatterHost);
    m_scatterRow->setContentsMargins(0, 0, 0, 0);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(scatterHost);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("<b>Weights on samples measured here</b>: how well each ranks this device's "
                                    "schedules (each app judged by the file that never saw it, for hold-one-out "
                                    "choices)"),
                                 this));
    layout->addLayout(folderRow);
    layout->addLayout(choiceRow);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);
    // Trained files only by default: the untrained initialisations (gpu, baseline) rank schedules by chance, and
    // beside trained files they read as one more model. Add them by name to see that chance level.
    setWeightsChoices({QStringLiteral("halide-hold-one-out")});
}

void WeightsOnSamplesPanel::setSampleFolder(const QString &folder)
{
    m_folder->setText(folder);
    // An autotune run's own retrained weights are the ones its samples were measured to judge.
    const QString current = QDir(folder).filePath(QStringLiteral("weights/current.weights"));
    if (QFileInfo::exists(current) && !weightsChoices().contains(current))
        m_choices->addItem(current);
}
QString WeightsOnSamplesPanel::sampleFolder() const { return m_folder->text().trimmed(); }

void WeightsOnSamplesPanel::setWeightsChoices(const QStringList &choices)
{
    m_choices->clear();
    m_choices->addItems(choices);
}

QStringList WeightsOnSamplesPanel::weightsChoices() const
{
    QStringList out;
    for (int i = 0; i < m_choices->count(); i++)
        out << m_choices->item(i)->text();
    return out;
}

WeightsOnSamplesPanel::Outcome WeightsOnSamplesPanel::run(const QString &folder, const QStringList &choices)
{
    Outcome out;
    out.timeLabel = timeLabelFor(folder);
    std::vector<samples::WeightsChoice> resolved;
    for (const QString &c : choices) {
        std::string error;
        samples::WeightsChoice w = samples::weightsChoiceFor(c.toStdString(), error);
        if (w.label.empty()) {
            out.error = tr("%1: %2").arg(c, QString::fromStdString(error));
            return out;
        }
        resolved.push_back(std::move(w));
    }
    const samples::LoadedSamples loaded = samples::loadSamples({folder.toStdString()});
    if (!loaded.ok()) {
        out.error = QString::fromStdString(loaded.errors.front());
        return out;
    }
    if (loaded.dataset.pipelines.empty()) {
        out.error = tr("No usable sample in %1 (%2 file(s) read).").arg(folder).arg(loaded.dataset.filesRead);
        return out;
    }
    out.scores = samples::compareWeights(loaded.dataset, resolved, 80);
    return out;
}

void WeightsOnSamplesPanel::compare()
{
    const QString folder = sampleFolder();
    const QStringList choices = weightsChoices();
    if (folder.isEmpty() || choices.isEmpty()) {
        m_status->setText(tr("Choose a sample folder and at least one weights choice."));
        return;
    }
    m_status->setText(tr("Comparing %n weights choice(s)…", nullptr, static_cast<int>(choices.size())));
    m_compare->setEnabled(false);
    m_job.start(
        this, [folder, choices] { return run(folder, choices); }, [this](Outcome o) { show(o); });
}

void WeightsOnSamplesPanel::show(const Outcome &outcome)
{
    m_compare->setEnabled(true);
    qDeleteAll(m_scatters);
    m_scatters.clear();
    m_model->setScores(outcome.scores);
    if (!outcome.error.isEmpty()) {
        m_status->setText(outcome.error);
        Q_EMIT compared();
        return;
    }
    for (const samples::ChoiceScore &s : outcome.scores) {
        auto *scatter = new ComparisonScatter(this);
        scatter->setScore(s, outcome.timeLabel);
        m_scatterRow->addWidget(scatter, 1);
        m_scatters << scatter;
    }
    m_status->setText(tr("Times are %1. Top-k: best runtime among the model's k best-ranked schedules / best "
                         "runtime (1 is perfect).")
                          .arg(outcome.timeLabel));
    Q_EMIT compared();
}

} // namespace beamscope::ui
