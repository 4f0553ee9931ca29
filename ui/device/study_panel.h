#pragma once
// The Device workspace's page for a device study (beamscope-cli device-study):
// a study folder opened, its headline (the geomean speedup of the fine-tuned
// picks with its interval, the device, the command), the per-app speedups
// with intervals and the Spearman of both files, the per-app table, and the
// generated schedules that failed. It reads the folder's report.json; the
// study itself runs in the CLI (hours, resumable, on Slurm if need be).

#include "core/study/study_report.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QTableView;

namespace beamscope::ui {

class StudyRankChart;
class StudySpeedupChart;
class StudyTableModel;

class StudyPanel : public QWidget {
    Q_OBJECT
public:
    explicit StudyPanel(QWidget *parent = nullptr);

    // Reads <folder>/report.json; false with the reason shown (and kept in statusLabel) when it cannot.
    bool openFolder(const QString &folder);
    QString folder() const;

    StudyTableModel *model() const { return m_model; }
    StudySpeedupChart *speedupChart() const { return m_speedup; }
    StudyRankChart *rankChart() const { return m_ranks; }
    QLabel *headline() const { return m_headline; }
    QLabel *failures() const { return m_failures; }

    // A folder holding a device study's report.
    static bool isStudyFolder(const QString &path);

Q_SIGNALS:
    void opened(const QString &folder);

private:
    void chooseFolder();
    void show(const study::StudyReport &report);

    QLineEdit *m_folder = nullptr;
    QLabel *m_headline = nullptr;
    QLabel *m_failures = nullptr;
    StudySpeedupChart *m_speedup = nullptr;
    StudyRankChart *m_ranks = nullptr;
    StudyTableModel *m_model = nullptr;
    QTableView *m_table = nullptr;
};

} // namespace beamscope::ui
