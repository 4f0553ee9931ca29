#include "ui/device/study_panel.h"

#include "ui/device/study_charts.h"
#include "ui/device/study_table_model.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>
#include <map>

namespace beamscope::ui {

namespace {

QString ratioText(const study::RatioEstimate &r)
{
    if (!std::isfinite(r.ratio))
        return QStringLiteral("–");
    QString text = QString::number(r.ratio, 'f', 3) + QLatin1Char('x');
    if (r.interval.defined())
        text += QStringLiteral(" [%1, %2]")
                    .arg(QString::number(r.interval.low, 'f', 3), QString::number(r.interval.high, 'f', 3));
    return text;
}

} // namespace

StudyPanel::StudyPanel(QWidget *parent) : QWidget(parent), m_model(new StudyTableModel(this))
{
    m_folder = new QLineEdit;
    m_folder->setObjectName(QStringLiteral("studyFolder"));
    m_folder->setPlaceholderText(tr("A folder written by beamscope-cli device-study"));
    auto *browse = new QPushButton(tr("Open Study Folder…"));
    auto *reload = new QPushButton(tr("Reload"));
    reload->setToolTip(tr("Read report.json again (a study still running rewrites it when it finishes)"));
    m_headline = new QLabel(tr("No study open. Run <code>beamscope-cli device-study --out DIR</code> (about two "
                               "hours on two cores; <code>--quick</code>: a few minutes) and open DIR here."));
    m_headline->setObjectName(QStringLiteral("studyHeadline"));
    m_headline->setWordWrap(true);
    m_headline->setTextFormat(Qt::RichText);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_failures = new QLabel;
    m_failures->setObjectName(QStringLiteral("studyFailures"));
    m_failures->setWordWrap(true);
    m_speedup = new StudySpeedupChart;
    m_ranks = new StudyRankChart;
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("studyTable"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Study")));
    top->addWidget(m_folder, 1);
    top->addWidget(browse);
    top->addWidget(reload);
    auto *charts = new QSplitter(Qt::Horizontal);
    charts->addWidget(m_speedup);
    charts->addWidget(m_ranks);
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(charts);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_headline);
    layout->addWidget(split, 1);
    layout->addWidget(m_failures);

    connect(browse, &QPushButton::clicked, this, &StudyPanel::chooseFolder);
    connect(reload, &QPushButton::clicked, this, [this] {
        if (!m_folder->text().isEmpty())
            openFolder(m_folder->text());
    });
    connect(m_folder, &QLineEdit::returnPressed, this, [this] { openFolder(m_folder->text()); });
}

bool StudyPanel::isStudyFolder(const QString &path) { return study::isStudyFolder(path.toStdString()); }

QString StudyPanel::folder() const { return m_folder->text(); }

void StudyPanel::chooseFolder()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Device Study"), m_folder->text());
    if (!dir.isEmpty())
        openFolder(dir);
}

bool StudyPanel::openFolder(const QString &folder)
{
    m_folder->setText(folder);
    std::string error;
    const std::optional<study::StudyReport> report = study::readStudyReport(folder.toStdString(), error);
    if (!report) {
        m_headline->setText(tr("<b>Cannot open the study:</b> %1").arg(QString::fromStdString(error).toHtmlEscaped()));
        m_model->setReport({});
        m_speedup->setReport({});
        m_ranks->setReport({});
        m_failures->clear();
        return false;
    }
    show(*report);
    Q_EMIT opened(folder);
    return true;
}

void StudyPanel::show(const study::StudyReport &report)
{
    m_model->setReport(report);
    m_speedup->setReport(report);
    m_ranks->setReport(report);
    const bool faster = report.geomeanSpeedup.interval.defined() && report.geomeanSpeedup.interval.low > 1;
    const bool slower = report.geomeanSpeedup.interval.defined() && report.geomeanSpeedup.interval.high < 1;
    m_headline->setText(
        tr("<b>Geomean speedup of the fine-tuned picks: %1</b> over %2 app(s) — %3. The Halide-style loop's best "
           "against the V100 pick: %4. Device: %5%6.<br><small><code>%7</code></small>")
            .arg(ratioText(report.geomeanSpeedup))
            .arg(report.appsMeasured)
            .arg(faster   ? tr("the fine-tuned weights pick faster schedules here")
                 : slower ? tr("Halide's V100 files pick faster schedules here")
                          : tr("not told apart at 95%"))
            .arg(ratioText(report.geomeanLoopGain), QString::fromStdString(report.device).toHtmlEscaped())
            .arg(report.wallSeconds >= 60 ? tr("; %1 min since the study began").arg(report.wallSeconds / 60, 0, 'f', 1)
                                          : QString())
            .arg(QString::fromStdString(report.command).toHtmlEscaped()));
    int generated = 0;
    for (const auto &[status, n] : report.scheduleCounts)
        generated += n;
    // A study of sixteen apps can fail a hundred schedules: counted per pipeline and class here,
    // every one named in the tooltip.
    QStringList named;
    std::map<QString, std::map<QString, int>> byPipeline;
    for (const study::FailedSchedule &f : report.failures) {
        named << QStringLiteral("%1 batch %2 #%3 (%4)")
                     .arg(QString::fromStdString(f.pipeline))
                     .arg(f.batch)
                     .arg(f.index)
                     .arg(QString::fromStdString(f.status));
        byPipeline[QString::fromStdString(f.pipeline)][QString::fromStdString(f.status)]++;
    }
    QStringList counted;
    for (const auto &[pipeline, statuses] : byPipeline) {
        QStringList parts;
        for (const auto &[status, n] : statuses)
            parts << QStringLiteral("%1 %2").arg(n).arg(status);
        counted << QStringLiteral("%1 (%2)").arg(pipeline, parts.join(QStringLiteral(", ")));
    }
    m_failures->setText(
        named.isEmpty() ? tr("%1 generated schedules; none hung, crashed or computed a wrong output.").arg(generated)
                        : tr("%1 generated schedules; %2 failed (hover for each): %3")
                              .arg(generated)
                              .arg(named.size())
                              .arg(counted.join(QStringLiteral("; "))));
    m_failures->setToolTip(named.join(QLatin1Char('\n')));
}

} // namespace beamscope::ui
