#pragma once
// The Device workspace's comparison of weights on samples measured here:
// Halide's V100 weights (the per-app hold-one-out files, gpu.weights, the
// baseline) beside weights retrained on this device, as `beamscope-cli
// compare-weights` computes it: the table per app and overall, and one
// predicted-against-measured scatter per weights choice, side by side. The
// comparison runs off the GUI thread (LatestJob).

#include "core/samples/weights_comparison.h"
#include "ui/common/latest_job.h"

#include <QWidget>

class QHBoxLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTableView;

namespace beamscope::ui {

class ComparisonScatter;
class WeightsComparisonModel;

class WeightsOnSamplesPanel : public QWidget {
    Q_OBJECT
public:
    explicit WeightsOnSamplesPanel(QWidget *parent = nullptr);

    void setSampleFolder(const QString &folder);
    QString sampleFolder() const;
    // Each entry as compare-weights' --weights takes it: a file, a shipped
    // name, a folder of <app>.weights, or "halide-hold-one-out".
    void setWeightsChoices(const QStringList &choices);
    QStringList weightsChoices() const;
    void compare();

    bool isComparing() const { return m_job.pending(); }
    WeightsComparisonModel *model() const { return m_model; }
    const QList<ComparisonScatter *> &scatters() const { return m_scatters; }
    QLabel *statusLabel() const { return m_status; }

Q_SIGNALS:
    void compared();

private:
    struct Outcome {
        std::vector<samples::ChoiceScore> scores;
        QString error, timeLabel;
    };
    static Outcome run(const QString &folder, const QStringList &choices);
    void show(const Outcome &outcome);

    QLineEdit *m_folder = nullptr;
    QListWidget *m_choices = nullptr;
    QPushButton *m_compare = nullptr;
    QLabel *m_status = nullptr;
    QTableView *m_table = nullptr;
    WeightsComparisonModel *m_model = nullptr;
    QHBoxLayout *m_scatterRow = nullptr;
    QList<ComparisonScatter *> m_scatters;
    LatestJob m_job;
};

} // namespace beamscope::ui
