// The autotune workspace's Slurm side: submitting the run as array jobs,
// following them in the queue, and showing the folder they write.

#include "ui/autotune/autotune_workspace.h"

#include "core/autotune/slurm.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>

namespace beamscope::ui {

void AutotuneWorkspace::setSlurm(bool submit, const SlurmOptions &options)
{
    m_slurm->setChecked(submit);
    m_slurmExtra = options;
    m_slurmTasks->setValue(options.tasks);
    m_slurmPartition->setText(QString::fromStdString(options.partition));
    m_slurmGpus->setValue(options.gpusPerTask);
}

void AutotuneWorkspace::showSlurmFolder()
{
    m_slurmRun = QFileInfo::exists(QDir(outputFolder()).filePath(QStringLiteral("slurm/plan.json")));
    m_slurmStatus->setVisible(m_slurmRun);
    if (m_slurmRun) {
        refreshSlurmStatus();
        m_slurmTimer->start();
    } else {
        m_slurmTimer->stop();
    }
    updateButtons();
}

void AutotuneWorkspace::refreshSlurmStatus()
{
    if (!m_slurmRun || m_slurmJob.pending())
        return;
    const std::string folder = outputFolder().toStdString();
    struct Snapshot {
        autotune::SlurmStatus status;
        AutotuneRunData data;
    };
    m_slurmJob.start(
        this,
        [folder] {
            Snapshot s;
            s.status = autotune::slurmStatus(folder);
            s.data.load(QString::fromStdString(folder));
            return s;
        },
        [this](Snapshot s) {
            const autotune::SlurmStatus &st = s.status;
            if (!st.error.empty()) {
                m_slurmStatus->setText(tr("<b>Slurm:</b> %1").arg(QString::fromStdString(st.error).toHtmlEscaped()));
            } else {
                std::map<std::string, int> counts;
                for (const auto &t : st.tasks)
                    counts[t.state]++;
                QStringList parts;
                for (const auto &[state, n] : counts)
                    parts << QStringLiteral("%1 <b>%2</b>").arg(QString::fromStdString(state).toLower()).arg(n);
                QString text = tr("<b>Slurm:</b> tasks %1 · batches complete %2 of %3 · merged samples %4")
                                   .arg(parts.isEmpty() ? tr("none yet") : parts.join(QStringLiteral(", ")))
                                   .arg(st.batchesDone)
                                   .arg(st.batches)
                                   .arg(st.samples);
                if (!st.resubmitted.empty())
                    text += tr(" · resubmitted %1").arg(st.resubmitted.size());
                if (!st.failedFinally.empty())
                    text += tr(" · <span style='color:#b03030'>failed after every retry: %1</span>")
                                .arg(QString::fromStdString(st.failedFinally.front()));
                m_slurmStatus->setText(text);
            }
            if (!m_running) {
                m_data = std::move(s.data);
                refreshViews();
            }
            Q_EMIT slurmStatusUpdated();
        });
}

void AutotuneWorkspace::submitToSlurm()
{
    SlurmOptions options = m_slurmExtra;
    options.tasks = m_slurmTasks->value();
    options.partition = m_slurmPartition->text().trimmed().toStdString();
    options.gpusPerTask = m_slurmGpus->value();
    const autotune::AutotuneRequest r = request();
    // The jobs run the command-line program installed beside the explorer.
    const QString cli = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("beamscope-cli"));
    m_status->setText(tr("Submitting to Slurm…"));
    m_start->setEnabled(false);
    struct Outcome {
        std::optional<autotune::Submission> submission;
        std::string error;
        bool complete = false;
    };
    m_slurmJob.start(
        this,
        [r, options, cli] {
            Outcome o;
            o.submission = autotune::submitSlurmRun(r, options, cli.toStdString(), o.error, &o.complete);
            return o;
        },
        [this](Outcome o) {
            if (o.complete)
                m_status->setText(tr("Every batch of this folder is complete."));
            else if (!o.submission)
                m_status->setText(QString::fromStdString(o.error));
            else
                m_status->setText(tr("Submitted batch %1 as array job %2 and merge job %3.")
                                      .arg(o.submission->batch)
                                      .arg(QString::fromStdString(o.submission->arrayJob),
                                           QString::fromStdString(o.submission->mergeJob)));
            showSlurmFolder();
        });
}

} // namespace beamscope::ui
