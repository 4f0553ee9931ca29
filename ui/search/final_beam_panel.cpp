#include "ui/search/final_beam_panel.h"

#include "core/samples/bootstrap_interval.h"
#include "core/samples/rank_metrics.h"
#include "ui/search/final_beam_model.h"
#include "ui/search/search_tree_data.h"
#include "ui/search/tree_navigation.h"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QValueAxis>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <vector>

namespace beamscope::ui {

FinalBeamPanel::FinalBeamPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    auto *header = new QHBoxLayout;
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    header->addWidget(m_title, 1);
    m_measure = new QPushButton(tr("Measure the beam"), this);
    m_measure->setToolTip(tr("Compiles and times each state of the beam on the Measure target, one after another "
                             "in the bench worker, and plots the times against the predictions"));
    header->addWidget(m_measure);
    layout->addLayout(header);

    m_tabs = new QTabWidget(this);
    m_model = new FinalBeamModel(this);
    m_table = new QTableView(m_tabs);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_tabs->addTab(m_table, tr("States"));

    auto *plot = new QWidget(m_tabs);
    auto *pl = new QVBoxLayout(plot);
    pl->setContentsMargins(0, 0, 0, 0);
    m_ranks = new QLabel(plot);
    m_ranks->setWordWrap(true);
    pl->addWidget(m_ranks);
    auto *chart = new QChart;
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_points = new QScatterSeries(chart);
    m_points->setMarkerSize(8);
    chart->addSeries(m_points);
    // Linear axes: a beam's predictions are often within a fraction of a percent of each other, and
    // the point is their order against the times'.
    auto *x = new QValueAxis(chart), *y = new QValueAxis(chart);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    for (QValueAxis *axis : {x, y}) {
        axis->setLabelFormat(QStringLiteral("%.6g"));
        axis->setLabelsFont(small);
        axis->setTitleFont(small);
        axis->setTickCount(4);
    }
    x->setTitleText(tr("predicted cost"));
    y->setTitleText(tr("measured ms"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    m_points->attachAxis(x);
    m_points->attachAxis(y);
    m_chart = new QChartView(chart, plot);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumHeight(140);
    pl->addWidget(m_chart, 1);
    m_tabs->addTab(plot, tr("Predicted against measured"));
    layout->addWidget(m_tabs, 1);

    const auto activate = [this](const QModelIndex &index) {
        if (const int64_t id = m_model->stateAt(index.row()); id >= 0)
            Q_EMIT stateActivated(id);
    };
    connect(m_table, &QTableView::clicked, this, activate);
    connect(m_table, &QTableView::activated, this, activate);
    connect(m_measure, &QPushButton::clicked, this, [this] {
        if (m_measuring) {
            Q_EMIT cancelRequested();
            return;
        }
        QList<qint64> ids;
        for (int r = 0; r < m_model->rowCount(); ++r)
            ids << m_model->stateAt(r);
        if (!ids.isEmpty())
            Q_EMIT measureRequested(ids);
    });
    refresh(nullptr);
}

void FinalBeamPanel::setMeasuring(bool measuring)
{
    m_measuring = measuring;
    m_measure->setText(measuring ? tr("Cancel measuring") : tr("Measure the beam"));
}

void FinalBeamPanel::refresh(const SearchTreeData *data)
{
    m_model->refresh(data);
    m_title->setText(m_model->rowCount() == 0 ? tr("Final beam: none yet")
                                              : tr("Final beam: %n state(s), cheapest first; click one to select it",
                                                   nullptr, m_model->rowCount()));
    m_measure->setEnabled(m_model->rowCount() > 0 || m_measuring);
    refreshScatter(data);
}

void FinalBeamPanel::refreshScatter(const SearchTreeData *data)
{
    std::vector<double> predicted, measured;
    QList<QPointF> points;
    for (int r = 0; data && r < m_model->rowCount(); ++r) {
        const int64_t id = m_model->stateAt(r);
        if (!data->isMeasured(id))
            continue;
        const double cost = navigation::effectiveCost(*data, id), ms = data->measuredMs(id);
        predicted.push_back(cost);
        measured.push_back(ms);
        points << QPointF(cost, ms);
    }
    m_points->replace(points);
    auto fit = [](QAbstractAxis *axis, const std::vector<double> &v) {
        if (v.empty())
            return;
        const auto [low, high] = std::minmax_element(v.begin(), v.end());
        const double pad = *high > *low ? 0.08 * (*high - *low) : std::max(1e-9, std::abs(*high) * 0.05);
        axis->setRange(*low - pad, *high + pad);
    };
    const auto axes = m_chart->chart()->axes();
    for (QAbstractAxis *axis : axes)
        fit(axis, axis->alignment() == Qt::AlignBottom ? predicted : measured);
    if (predicted.size() < 3) {
        m_ranks->setText(tr("%n state(s) measured: the correlations need at least 3. Measure the beam, or "
                            "measure states one by one.",
                            nullptr, static_cast<int>(predicted.size())));
        return;
    }
    const samples::RankMetrics metrics = samples::rankMetrics(predicted, measured);
    const samples::ScheduleRanking ranking{predicted, measured};
    const samples::RankIntervals intervals = samples::bootstrapRankIntervals(std::span(&ranking, 1));
    const auto withInterval = [](double value, const samples::Interval &i) {
        return i.defined()
                   ? QStringLiteral("%1 [%2, %3]").arg(value, 0, 'f', 2).arg(i.low, 0, 'f', 2).arg(i.high, 0, 'f', 2)
                   : QString::number(value, 'f', 2);
    };
    QString text =
        tr("Spearman %1 · Kendall τ %2 · n = %3 (95% bootstrap intervals)")
            .arg(withInterval(metrics.spearman, intervals.spearman), withInterval(metrics.kendall, intervals.kendall))
            .arg(predicted.size());
    if (predicted.size() < samples::kFewSchedules)
        text += tr(" · fewer than %1 states: a rough guess").arg(samples::kFewSchedules);
    m_ranks->setText(text);
}

QString FinalBeamPanel::rankText() const { return m_ranks->text(); }

void FinalBeamPanel::showSelected(int64_t id)
{
    const QSignalBlocker block(m_table->selectionModel());
    const int row = m_model->rowOfState(id);
    if (row < 0) {
        m_table->clearSelection();
        return;
    }
    m_table->selectRow(row);
    m_table->scrollTo(m_model->index(row, 0));
}

} // namespace beamscope::ui
