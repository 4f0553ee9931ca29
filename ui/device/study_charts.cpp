#include "ui/device/study_charts.h"

#include "ui/common/fresh_chart.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace beamscope::ui {

namespace {

// One category per app. Sixteen app names under a half-width chart: upright, in a smaller
// font, or Qt elides them.
QBarCategoryAxis *appAxis(const study::StudyReport &report)
{
    auto *axis = new QBarCategoryAxis;
    for (const study::AppResult &a : report.apps)
        axis->append(QString::fromStdString(a.app));
    axis->setLabelsAngle(-90);
    QFont small = axis->labelsFont();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    axis->setLabelsFont(small);
    return axis;
}

} // namespace

StudySpeedupChart::StudySpeedupChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(200);
    setReport({});
}

void StudySpeedupChart::setReport(const study::StudyReport &report)
{
    QChart *chart = freshChart(this, tr("Speedup of the fine-tuned pick over the V100 pick (95% intervals)"));
    chart->legend()->hide();
    m_bars = new QBarSeries;
    m_intervals = new QBoxPlotSeries;
    auto *set = new QBarSet(tr("speedup"));
    set->setColor(QColor(0x3a, 0x6e, 0xa5));
    double high = 1.25;
    for (const study::AppResult &a : report.apps) {
        const double r = std::isfinite(a.speedup.ratio) ? a.speedup.ratio : 0.0;
        set->append(r);
        // A collapsed box at the ratio: the whiskers are the interval.
        const double lo = a.speedup.interval.defined() ? a.speedup.interval.low : r;
        const double hi = a.speedup.interval.defined() ? a.speedup.interval.high : r;
        m_intervals->append(new QBoxSet(lo, r, r, r, hi, QString::fromStdString(a.app)));
        if (std::isfinite(a.speedup.ratio))
            high = std::max(high, hi);
    }
    m_bars->append(set);
    m_intervals->setBoxWidth(0.15);
    m_intervals->setPen(QPen(Qt::black, 1.2));
    m_intervals->setBrush(Qt::black);
    chart->addSeries(m_bars);
    chart->addSeries(m_intervals);
    QBarCategoryAxis *x = appAxis(report);
    auto *y = new QValueAxis;
    y->setRange(0, high * 1.08);
    y->setTickCount(6);
    y->applyNiceNumbers();
    y->setLabelFormat(QStringLiteral("%.2gx"));
    y->setTitleText(tr("V100 pick / fine-tuned pick"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries *s : {static_cast<QAbstractSeries *>(m_bars), static_cast<QAbstractSeries *>(m_intervals)}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    // 1x: where the fine-tuned weights pick as well as Halide's.
    auto *parity = new QLineSeries;
    parity->setName(tr("1x"));
    parity->append(-0.5, 1.0);
    parity->append(std::max<double>(0.5, double(report.apps.size()) - 0.5), 1.0);
    parity->setPen(QPen(Qt::darkGray, 1, Qt::DashLine));
    chart->addSeries(parity);
    auto *hidden = new QValueAxis;
    hidden->setRange(-0.5, std::max<double>(0.5, double(report.apps.size()) - 0.5));
    hidden->setVisible(false);
    chart->addAxis(hidden, Qt::AlignTop);
    parity->attachAxis(hidden);
    parity->attachAxis(y);
}

StudyRankChart::StudyRankChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(200);
    setReport({});
}

void StudyRankChart::setReport(const study::StudyReport &report)
{
    QChart *chart = freshChart(this, tr("Spearman on the app's own samples (neither file trained on them)"));
    m_bars = new QBarSeries;
    auto *v100 = new QBarSet(tr("Halide's V100 file"));
    auto *tuned = new QBarSet(tr("fine-tuned here"));
    v100->setColor(QColor(0x3a, 0x6e, 0xa5));
    tuned->setColor(QColor(0xd9, 0x82, 0x2b));
    for (const study::AppResult &a : report.apps) {
        v100->append(std::isfinite(a.v100Ranks.spearman) ? a.v100Ranks.spearman : 0.0);
        tuned->append(std::isfinite(a.tunedRanks.spearman) ? a.tunedRanks.spearman : 0.0);
    }
    m_bars->append(v100);
    m_bars->append(tuned);
    chart->addSeries(m_bars);
    QBarCategoryAxis *x = appAxis(report);
    auto *y = new QValueAxis;
    y->setRange(-1, 1);
    y->setTickCount(5);
    y->setTitleText(tr("Spearman"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    m_bars->attachAxis(x);
    m_bars->attachAxis(y);
}

} // namespace beamscope::ui
