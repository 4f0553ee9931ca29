#include "ui/search/state_detail_panel.h"

#include "core/search/nest_lines.h"
#include "core/util/halide_names.h"
#include "core/util/line_diff.h"

#include "ui/common/number_format.h"
#include "ui/search/feature_table_model.h"
#include "ui/search/search_tree_data.h"
#include "ui/search/stage_bars_delegate.h"
#include "ui/search/stage_cost_model.h"

#include <QAbstractAxis>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QCursor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace beamscope::ui {

namespace {

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent)
{
    auto *t = new QTableView(parent);
    t->setModel(model);
    t->setAlternatingRowColors(true);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->verticalHeader()->setDefaultSectionSize(20);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setFont(monospaceFont());
    return t;
}

QChartView *makeChartView(QChart *chart, QWidget *parent)
{
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    auto *view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(180);
    return view;
}

} // namespace

StateDetailPanel::StateDetailPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary = new QLabel(tr("Select a state in the tree."), this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_measured = new QLabel(this);
    m_measured->setWordWrap(true); // the measured runtime must not be cut off by a long target string
    m_measured->setVisible(false);
    connect(m_measured, &QLabel::linkActivated, this, [this] {
        QMessageBox box(QMessageBox::Information, tr("Measurement"), m_measured->text().section(QLatin1Char('<'), 0, 0),
                        QMessageBox::Close, this);
        box.setDetailedText(m_measurementDetails);
        box.exec();
    });

    auto *buttons = new QHBoxLayout;
    m_compareButton = new QPushButton(tr("Compare…"), this);
    m_compareButton->setToolTip(tr("Then click the second state in the tree (or ctrl-click it directly)"));
    m_clearCompare = new QPushButton(tr("Clear B"), this);
    m_measure = new QPushButton(tr("Measure"), this);
    m_continue = new QPushButton(tr("Continue"), this);
    m_export = new QPushButton(tr("Export…"), this);
    m_benchmark = new QPushButton(tr("Benchmark…"), this);
    m_benchmark->setToolTip(tr("Time this state in the Pipeline workspace's benchmark (repetitions, target, "
                               "correctness against the host reference)"));
    // Two rows: six buttons in one row were cut at a laptop's width ("enchmark").
    for (QPushButton *b : {m_compareButton, m_clearCompare, m_measure, m_continue})
        buttons->addWidget(b);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    auto *moreButtons = new QHBoxLayout;
    for (QPushButton *b : {m_export, m_benchmark})
        moreButtons->addWidget(b);
    moreButtons->addStretch(1);
    layout->addLayout(moreButtons);
    // Below the buttons: a measurement line that comes and goes never moves them (review S8).
    layout->addWidget(m_measured);
    connect(m_compareButton, &QPushButton::clicked, this, &StateDetailPanel::compareRequested);
    connect(m_clearCompare, &QPushButton::clicked, this, &StateDetailPanel::clearCompareRequested);
    connect(m_measure, &QPushButton::clicked, this, [this] { Q_EMIT measureRequested(m_a); });
    connect(m_continue, &QPushButton::clicked, this, [this] { Q_EMIT continueRequested(m_a); });
    connect(m_export, &QPushButton::clicked, this, [this] { Q_EMIT exportRequested(m_a); });
    connect(m_benchmark, &QPushButton::clicked, this, [this] { Q_EMIT benchmarkRequested(m_a); });

    // The loop nest stays in view under whichever tab is open: it is what the
    // state is, and the tabs are views of it (path, features, costs).
    auto *split = new QSplitter(Qt::Vertical, this);
    m_tabs = new QTabWidget(split);
    layout->addWidget(split, 1);

    // Decision path.
    m_path = new QListWidget(this);
    m_path->setFont(monospaceFont());
    m_path->setWordWrap(true); // long tilings stay readable without scrolling sideways
    connect(m_path, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { Q_EMIT pathStateActivated(item->data(Qt::UserRole).toLongLong()); });
    m_tabs->addTab(m_path, tr("Decision path"));

    // Loop nest, below the tabs.
    auto *nest = new QWidget(split);
    auto *nl = new QVBoxLayout(nest);
    nl->setContentsMargins(0, 4, 0, 0);
    m_nestTitle = new QLabel(tr("<b>Loop nest</b>"), nest);
    auto *nestHeader = new QHBoxLayout;
    nestHeader->addWidget(m_nestTitle, 1);
    m_copyNest = new QPushButton(tr("Copy"), nest);
    m_copyNest->setToolTip(tr("Copies state A's loop nest as plain text, Funcs named as shown here"));
    connect(m_copyNest, &QPushButton::clicked, this, [this] {
        if (const QString text = plainLoopNest(); !text.isEmpty())
            QGuiApplication::clipboard()->setText(text);
    });
    nestHeader->addWidget(m_copyNest);
    nl->addLayout(nestHeader);
    m_loopNest = new QTextBrowser(nest);
    m_loopNest->setFont(monospaceFont());
    nl->addWidget(m_loopNest, 1);

    // Features: stage picker, table, chart.
    auto *features = new QWidget(this);
    auto *fl = new QVBoxLayout(features);
    fl->setContentsMargins(0, 0, 0, 0);
    auto *stageRow = new QHBoxLayout;
    stageRow->addWidget(new QLabel(tr("Stage:"), features));
    m_stageCombo = new QComboBox(features);
    m_stageCombo->setMinimumContentsLength(18);
    stageRow->addWidget(m_stageCombo, 1);
    fl->addLayout(stageRow);
    m_featureNote = new QLabel(features);
    m_featureNote->setWordWrap(true);
    fl->addWidget(m_featureNote);
    auto *fsplit = new QSplitter(Qt::Vertical, features);
    m_featureModel = new FeatureTableModel(this);
    m_featureProxy = new FeatureDiffProxy(this);
    m_featureProxy->setSourceModel(m_featureModel);
    m_featureTable = makeTable(m_featureProxy, fsplit);
    // Names are read whole (a compared state adds three value columns; the
    // table scrolls sideways before a name is cut to "nu…ns").
    m_featureTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_featureTable->horizontalHeader()->setStretchLastSection(false);
    m_featureTable->setSortingEnabled(true);
    m_featureTable->sortByColumn(-1, Qt::AscendingOrder); // the model's order until B brings a difference
    m_differingOnly = new QCheckBox(tr("Differing only"), features);
    m_differingOnly->setToolTip(tr("With B: only the features where A and B differ, largest |Δ log| first"));
    m_differingOnly->setEnabled(false);
    stageRow->addWidget(m_differingOnly);
    connect(m_differingOnly, &QCheckBox::toggled, m_featureProxy, &FeatureDiffProxy::setDifferingOnly);
    m_featureChart = new QChart;
    m_featureChart->setTitle(tr("log(1 + x) of the 73 features, in table order"));
    m_featureChartView = makeChartView(m_featureChart, fsplit);
    fsplit->addWidget(m_featureTable);
    fsplit->addWidget(m_featureChartView);
    fl->addWidget(fsplit, 1);
    connect(m_stageCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0 && i != m_stage) {
            m_stage = i;
            refreshFeatures();
        }
    });
    m_tabs->addTab(features, tr("Features"));

    // Costs: one row per stage, its cost terms drawn in the row.
    auto *costs = new QWidget(this);
    auto *cl = new QVBoxLayout(costs);
    cl->setContentsMargins(0, 0, 0, 0);
    m_costNote = new QLabel(costs);
    m_costNote->setWordWrap(true);
    cl->addWidget(m_costNote);
    // Term names are long: a wrapped line of coloured names reads at any width.
    m_termLegend = new QLabel(costs);
    m_termLegend->setWordWrap(true);
    m_termLegend->setTextInteractionFlags(Qt::TextSelectableByMouse);
    cl->addWidget(m_termLegend);
    m_costModel = new StageCostModel(this);
    m_costTable = makeTable(m_costModel, costs);
    m_costTable->setItemDelegateForColumn(StageCostModel::Terms, new StageBarsDelegate(m_costTable));
    m_costTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_costTable->horizontalHeader()->setSectionResizeMode(StageCostModel::Terms, QHeaderView::Stretch);
    // The main term of each row is in the exports; on screen the note above names the one that
    // matters, whole, where a column at 1280 px showed only its number.
    m_costTable->setColumnHidden(StageCostModel::MainTerm, true);
    m_costTable->horizontalHeader()->setMinimumSectionSize(40);
    m_costTable->setMouseTracking(true); // a row's tooltip lists its terms
    connect(m_costTable, &QTableView::activated, this, [this](const QModelIndex &index) {
        setStage(m_costModel->stageOfRow(index.row()));
        m_tabs->setCurrentIndex(1); // the features of the stage picked
    });
    cl->addWidget(m_costTable, 1);
    m_tabs->addTab(costs, tr("Cost breakdown"));

    split->addWidget(m_tabs);
    split->addWidget(nest);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    split->setSizes({2000, 1000});

    showState(-1);
}

void StateDetailPanel::setData(const SearchTreeData *data)
{
    m_data = data;
    showState(-1);
}

void StateDetailPanel::setSession(std::shared_ptr<const session::SearchSession> session, const QString &status)
{
    m_session = std::move(session);
    m_sessionStatus = status;
    refreshCosts();
}

void StateDetailPanel::setMeasurement(const QString &text, const QString &details)
{
    m_measurementDetails = details;
    m_measured->setText(details.isEmpty() ? text
                                          : text + QStringLiteral(" <a href=\"#details\">%1</a>").arg(tr("details")));
    m_measured->setVisible(!text.isEmpty());
}

QString StateDetailPanel::costNoteText() const { return m_costNote->text(); }

QString StateDetailPanel::loopNestText() const { return m_loopNest->toPlainText(); }

QString StateDetailPanel::plainLoopNest() const
{
    const search::TraceNode *n = m_data ? m_data->node(m_a) : nullptr;
    return n ? QString::fromStdString(m_data->funcNames().rewrite(n->loopNest)) : QString();
}
QString StateDetailPanel::termLegendText() const { return m_termLegend->text(); }
QString StateDetailPanel::summaryText() const { return m_summary->text(); }
QString StateDetailPanel::measurementText() const { return m_measured->text(); }

void StateDetailPanel::setContinueAllowed(bool allowed)
{
    m_continueAllowed = allowed;
    m_continue->setEnabled(allowed && m_a >= 0);
}

void StateDetailPanel::showState(int64_t a, int64_t b)
{
    const search::TraceNode *na = m_data ? m_data->node(a) : nullptr;
    const int64_t previousA = m_a, previousB = m_b;
    m_a = na ? a : -1;
    m_b = na && m_data->node(b) && b != a ? b : -1;
    // A new comparison opens on what differs, once B's details are there (a pruned B is rebuilt first).
    if (m_b >= 0 && (m_a != previousA || m_b != previousB))
        m_focusDifference = true;
    else if (m_b < 0)
        m_focusDifference = false;
    m_divergence = m_b >= 0 ? describeDivergence() : QString();
    setMeasurement({});
    for (QPushButton *button : {m_compareButton, m_measure, m_export, m_benchmark})
        button->setEnabled(na != nullptr);
    m_continue->setEnabled(na != nullptr && m_continueAllowed);
    m_clearCompare->setEnabled(m_b >= 0);
    m_path->clear();
    if (!na) {
        m_summary->setText(m_data && !m_data->nodes().empty()
                               ? tr("Select a state in the tree (ctrl-click a second one to compare).")
                               : tr("No search yet."));
        m_loopNest->clear();
        m_stageCombo->clear();
        refreshFeatures();
        refreshCosts();
        return;
    }
    const auto describe = [this](const search::TraceNode &n) {
        const bool winner = n.id == m_data->winner();
        return tr("#%1 · pass %2 · depth %3 · predicted cost <b>%4</b> · %5%6%7")
            .arg(n.id)
            .arg(n.pass + 1)
            .arg(n.depth)
            .arg(formatNumber(n.cost, 6))
            .arg(n.inBeam ? tr("kept in the beam") : tr("pruned"))
            .arg(winner ? tr(" · <b>winner</b>") : QString())
            .arg(m_data->isRecomputed(n.id) ? tr(" · details rebuilt from its decisions") : QString());
    };
    // A pass-through state (an input's step: nothing to decide) is named by the last decision made on its path.
    const auto decisionLine = [this](const search::TraceNode &n) {
        const search::TraceNode *made = &n;
        for (size_t hops = 0; made && made->passThrough && hops <= m_data->nodes().size(); ++hops)
            made = m_data->node(made->parent);
        if (!made || made == &n)
            return m_data->shown(n.decision).toHtmlEscaped();
        return tr("last decision: %1").arg(m_data->shown(made->decision).toHtmlEscaped());
    };
    QString text = tr("<b>A</b> %1<br>%2").arg(describe(*na), decisionLine(*na));
    if (const search::TraceNode *nb = m_data->node(m_b))
        text += tr("<br><b>B</b> %1<br>%2 · B − A = %3<br>%4")
                    .arg(describe(*nb), decisionLine(*nb), formatNumber(nb->cost - na->cost, 5), m_divergence);
    m_summary->setText(text);

    // Steps with nothing to decide (inputs) are one grey line at the end, not a line each.
    QStringList passedThrough;
    for (int64_t id : m_data->pathTo(a)) {
        const search::TraceNode *n = m_data->node(id);
        if (n->passThrough) {
            const QString func = m_data->shown(SearchTreeData::decisionFunc(*n).toStdString());
            if (!passedThrough.contains(func))
                passedThrough << func;
            continue;
        }
        auto *item = new QListWidgetItem(
            QStringLiteral("%1. %2   [%3]").arg(n->depth).arg(m_data->shown(n->decision)).arg(formatNumber(n->cost, 4)),
            m_path);
        item->setData(Qt::UserRole, qint64(id));
        if (n->inBeam)
            item->setForeground(QColor(20, 20, 20));
        else
            item->setForeground(QColor(120, 120, 120));
    }
    if (!passedThrough.isEmpty()) {
        auto *item =
            new QListWidgetItem(tr("(%1: nothing to decide)").arg(passedThrough.join(QStringLiteral(", "))), m_path);
        item->setData(Qt::UserRole, qint64(a));
        item->setForeground(QColor(120, 120, 120));
    }

    const search::TraceNode *nb = m_data->node(m_b);
    if (!na->loopNest.empty() && nb && !nb->loopNest.empty()) {
        m_nestTitle->setText(tr("<b>Loop nest</b>: A against B (<span style='color:#b00020'>− A only</span>, "
                                "<span style='color:#1b7a33'>+ B only</span>)"));
        m_loopNest->setHtml(
            loopNestDiffHtml(m_data->funcNames().rewrite(na->loopNest), m_data->funcNames().rewrite(nb->loopNest)));
    } else if (!na->loopNest.empty()) {
        m_nestTitle->setText(tr("<b>Loop nest</b>"));
        m_loopNest->setHtml(loopNestHtml(m_data->funcNames().rewrite(na->loopNest)));
    } else {
        m_nestTitle->setText(tr("<b>Loop nest</b>"));
        m_loopNest->setHtml(m_recomputing ? tr("<p>Rebuilding this pruned state from its decisions…</p>")
                                          : tr("<p>The trace keeps loop nests and features only for states that "
                                               "stayed in the beam. This state was pruned; it is rebuilt from its "
                                               "decisions once the search's model is ready.</p>"));
    }

    const QSignalBlocker block(m_stageCombo);
    m_stageCombo->clear();
    const auto &names = m_data->stageNames();
    for (size_t s = 0; s < na->features.size(); ++s)
        m_stageCombo->addItem(s < names.size() ? m_data->shown(names[s]) : tr("stage %1").arg(s));
    // The stage whose cost (else features) differs most, and only the features that differ.
    const bool focus = m_focusDifference && nb && !nb->features.empty() && !na->features.empty();
    if (focus)
        if (const int stage = mostDifferingStage(); stage >= 0)
            m_stage = stage;
    m_stage = std::clamp(m_stage, 0, std::max(0, m_stageCombo->count() - 1));
    m_stageCombo->setCurrentIndex(m_stageCombo->count() ? m_stage : -1);
    refreshFeatures();
    if (focus) {
        m_differingOnly->setChecked(m_differingOnly->isEnabled());
        m_focusDifference = false;
    } else if (m_b < 0) {
        m_differingOnly->setChecked(false);
    }
    refreshCosts();
}

QString StateDetailPanel::describeDivergence() const
{
    const std::vector<int64_t> pa = m_data->pathTo(m_a), pb = m_data->pathTo(m_b);
    size_t i = 0;
    while (i < pa.size() && i < pb.size() && pa[i] == pb[i])
        ++i;
    const auto decision = [this](int64_t id) {
        const search::TraceNode *n = m_data->node(id);
        return n ? m_data->shown(n->decision).toHtmlEscaped() : QString();
    };
    if (i == pa.size() && i == pb.size())
        return tr("A and B are the same state.");
    if (i == pa.size())
        return tr("B descends from A: it takes %1 more decision(s), the first %2.")
            .arg(pb.size() - pa.size())
            .arg(decision(pb[i]));
    if (i == pb.size())
        return tr("A descends from B: it takes %1 more decision(s), the first %2.")
            .arg(pa.size() - pb.size())
            .arg(decision(pa[i]));
    const search::TraceNode *da = m_data->node(pa[i]), *db = m_data->node(pb[i]);
    if (da->pass != db->pass)
        return tr("A and B come from different passes (%1 and %2) and share no decision.")
            .arg(da->pass + 1)
            .arg(db->pass + 1);
    return tr("<b>First difference</b>, depth %1: A %2 · B %3").arg(da->depth).arg(decision(pa[i]), decision(pb[i]));
}

int StateDetailPanel::mostDifferingStage() const
{
    const search::TraceNode *na = m_data->node(m_a), *nb = m_data->node(m_b);
    int best = -1;
    double bestDelta = 0;
    const size_t costs = std::min(na->stageCosts.size(), nb->stageCosts.size());
    for (size_t s = 0; s < costs && s < na->features.size(); ++s)
        if (const double d = std::abs(double(nb->stageCosts[s]) - double(na->stageCosts[s])); d > bestDelta) {
            bestDelta = d;
            best = static_cast<int>(s);
        }
    if (best >= 0)
        return best;
    const size_t stages = std::min(na->features.size(), nb->features.size());
    for (size_t s = 0; s < stages; ++s) {
        double d = 0;
        for (size_t f = 0; f < na->features[s].size(); ++f)
            d += std::abs(FeatureTableModel::normalized(nb->features[s][f]) -
                          FeatureTableModel::normalized(na->features[s][f]));
        if (d > bestDelta) {
            bestDelta = d;
            best = static_cast<int>(s);
        }
    }
    return best;
}

void StateDetailPanel::setStage(int stage) { m_stageCombo->setCurrentIndex(stage); }

void StateDetailPanel::refreshFeatures()
{
    const search::TraceNode *na = m_data ? m_data->node(m_a) : nullptr;
    const search::TraceNode *nb = m_data ? m_data->node(m_b) : nullptr;
    std::optional<FeatureTableModel::Row73> a, b;
    const auto s = static_cast<size_t>(m_stage);
    if (na && s < na->features.size())
        a = na->features[s];
    if (nb && s < nb->features.size())
        b = nb->features[s];
    const bool hadB = m_featureModel->hasB();
    m_featureModel->setValues(a, b);
    // The numbers first and the long feature name last: compared, A, B and Δ stay in view at 1280 px
    // where the name column would push them behind a scroll bar.
    QHeaderView *header = m_featureTable->horizontalHeader();
    if (header->count() > 0 && header->visualIndex(FeatureTableModel::Name) != header->count() - 1)
        header->moveSection(header->visualIndex(FeatureTableModel::Name), header->count() - 1);
    // Compared: A's and B's logs and their difference (the raw values in each cell's tooltip).
    m_featureTable->setColumnHidden(FeatureTableModel::RawA, b.has_value());
    m_featureTable->setColumnHidden(FeatureTableModel::RawB, b.has_value());
    m_differingOnly->setEnabled(b.has_value());
    if (b && !hadB)
        m_featureTable->sortByColumn(FeatureTableModel::DeltaLog, Qt::DescendingOrder); // what differs most, first
    else if (!b && hadB)
        m_featureTable->sortByColumn(-1, Qt::AscendingOrder);
    if (!na)
        m_featureNote->setText(QString());
    else if (!a)
        m_featureNote->setText(
            m_recomputing ? tr("Rebuilding this pruned state from its decisions…")
                          : tr("No features recorded for this state: the trace stores them only for states kept in "
                               "the beam, and the search's model is not ready to rebuild them."));
    else if (nb && !b)
        m_featureNote->setText(tr("B has no features for this stage (pruned, or fewer stages scheduled)."));
    else
        m_featureNote->setText(QString());

    m_featureChart->removeAllSeries();
    for (QAbstractAxis *axis : m_featureChart->axes()) {
        m_featureChart->removeAxis(axis);
        delete axis; // removeAxis hands ownership back
    }
    m_featureSeries = nullptr;
    if (!a)
        return;
    m_featureSeries = new QBarSeries;
    const auto addSet = [this](const QString &name, const FeatureTableModel::Row73 &row, QColor color) {
        auto *set = new QBarSet(name);
        for (float v : row)
            set->append(FeatureTableModel::normalized(v));
        set->setColor(color);
        set->setBorderColor(color);
        m_featureSeries->append(set);
    };
    addSet(b ? tr("A") : tr("log(1+x)"), *a, QColor(0, 90, 255));
    if (b)
        addSet(tr("B"), *b, QColor(255, 120, 0));
    m_featureSeries->setBarWidth(0.9);
    m_featureChart->addSeries(m_featureSeries);
    // 73 bars leave no room for labels (Qt Charts elides them to "..."): the
    // axis names the range, a hovered bar names its feature.
    connect(m_featureSeries, &QBarSeries::hovered, this, [this](bool on, int index, QBarSet *set) {
        if (!on) {
            QToolTip::hideText();
            return;
        }
        const QString name = m_featureModel->index(index, FeatureTableModel::Name).data().toString();
        QToolTip::showText(
            QCursor::pos(),
            tr("%1 %2 (%3): log(1 + x) = %4").arg(index).arg(name, set->label()).arg(set->at(index), 0, 'g', 4));
    });
    auto *x = new QBarCategoryAxis;
    QStringList categories;
    for (int i = 0; i < 73; ++i)
        categories << QString::number(i);
    x->append(categories);
    x->setLabelsVisible(false);
    x->setGridLineVisible(false);
    auto *y = new QValueAxis;
    y->setTitleText(tr("log(1 + x)"));
    y->setLabelFormat(QStringLiteral("%.0f"));
    m_featureChart->addAxis(x, Qt::AlignBottom);
    m_featureChart->addAxis(y, Qt::AlignLeft);
    m_featureSeries->attachAxis(x);
    m_featureSeries->attachAxis(y);
    m_featureChart->legend()->setVisible(b.has_value());
}

void StateDetailPanel::refreshCosts()
{
    const search::TraceNode *na = m_data ? m_data->node(m_a) : nullptr;
    const search::TraceNode *nb = m_data ? m_data->node(m_b) : nullptr;
    QStringList stages;
    if (m_data)
        for (const std::string &s : m_data->stageNames())
            stages << m_data->shown(s);
    std::optional<std::vector<float>> bCosts;
    if (nb)
        bCosts = nb->stageCosts;
    m_costModel->setCosts(stages, na ? na->stageCosts : std::vector<float>{}, bCosts);
    // Compared, a row is the stage, B − A and both states' term bars (A's and B's costs in its tooltip):
    // the name stays whole and the difference in view in a 380 px panel.
    m_costTable->setColumnHidden(StageCostModel::CostA, nb != nullptr);
    m_costTable->setColumnHidden(StageCostModel::CostB, true);
    m_costTable->setColumnHidden(StageCostModel::Delta, !nb);
    m_costTable->verticalHeader()->setDefaultSectionSize(nb ? 26 : 20); // two bars a row, compared
    m_termLegend->clear();
    if (!na) {
        m_costNote->clear();
        return;
    }
    double stageSum = 0;
    for (float c : na->stageCosts)
        stageSum += c;
    QString note =
        na->stageCosts.empty()
            ? tr("Per-stage costs are recorded only for states kept in the beam; the state's total prediction is %1.")
                  .arg(formatNumber(na->cost, 6))
            : tr("Predicted total %1 (sum of %2 stage costs %3).")
                  .arg(formatNumber(na->cost, 6))
                  .arg(na->stageCosts.size())
                  .arg(formatNumber(stageSum, 6));
    if (na->features.empty() || !m_session) {
        if (!na->features.empty())
            note += QLatin1Char(' ') +
                    (m_sessionStatus.isEmpty() ? tr("Cost terms need weights and the pipeline.") : m_sessionStatus);
        m_costNote->setText(note);
        return;
    }
    const int cores = m_data->params().parallelism;
    const std::vector<session::StageTerms> terms = m_session->breakdown(na->features, cores);
    std::vector<session::StageTerms> termsB;
    if (nb && !nb->features.empty())
        termsB = m_session->breakdown(nb->features, cores);
    const std::vector<std::string> termNames = session::SearchSession::termNames();
    if (terms.empty()) {
        m_costNote->setText(note);
        return;
    }
    // A legend of 27 terms does not read; terms that matter (>= 3% of the
    // costs shown) get their own colour, the rest share "other terms".
    std::vector<double> perTerm(termNames.size(), 0.0);
    double total = 0;
    for (const std::vector<session::StageTerms> *side :
         {&terms, static_cast<const std::vector<session::StageTerms> *>(&termsB)})
        for (const session::StageTerms &stage : *side)
            for (size_t t = 0; t < stage.terms.size() && t < perTerm.size(); ++t) {
                perTerm[t] += stage.terms[t];
                total += stage.terms[t];
            }
    std::vector<size_t> shown;
    for (size_t t = 0; t < perTerm.size(); ++t)
        if (total > 0 && perTerm[t] >= 0.03 * total)
            shown.push_back(t);
    std::sort(shown.begin(), shown.end(), [&](size_t x, size_t y) { return perTerm[x] > perTerm[y]; });
    static const QColor termColors[] = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                                        QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                                        QColor(227, 119, 194), QColor(188, 189, 34),  QColor(23, 190, 207)};
    QStringList names;
    QList<QColor> colors;
    std::vector<bool> isShown(termNames.size(), false);
    for (size_t i = 0; i < shown.size(); ++i) {
        names << QString::fromStdString(termNames[shown[i]]);
        colors << termColors[i % 9];
        isShown[shown[i]] = true;
    }
    names << tr("other terms");
    colors << QColor(170, 170, 170);
    // Each stage's terms folded into the shown ones and "other terms", in the legend's order.
    const auto fold = [&](const std::vector<session::StageTerms> &side) {
        std::vector<std::vector<double>> out;
        for (const session::StageTerms &stage : side) {
            std::vector<double> row(shown.size() + 1, 0.0);
            for (size_t i = 0; i < shown.size(); ++i)
                row[i] = shown[i] < stage.terms.size() ? stage.terms[shown[i]] : 0.0;
            for (size_t t = 0; t < stage.terms.size(); ++t)
                if (t >= isShown.size() || !isShown[t])
                    row.back() += stage.terms[t];
            out.push_back(std::move(row));
        }
        return out;
    };
    m_costModel->setTermSegments(names, colors, fold(terms), fold(termsB));
    QStringList legend;
    for (qsizetype i = 0; i < names.size(); ++i)
        legend << QStringLiteral("<span style='color:%1'>■</span>&nbsp;%2")
                      .arg(colors[i].name(), names[i].toHtmlEscaped());
    m_termLegend->setText(legend.join(QStringLiteral(" &nbsp; ")));
    double termSum = 0;
    for (const session::StageTerms &s : terms)
        termSum += s.stageCost;
    note += mainTermSentence(terms, termsB, termNames);
    note +=
        tr(" Terms recomputed with %1 for %2 sum to %3.")
            .arg(QString::fromStdString(std::filesystem::path(m_session->request().weightsPath).filename().string()),
                 QString::fromStdString(m_session->pipelineName()), formatNumber(termSum, 6));
    m_costNote->setText(note);
}

// Says in numbers what the bars show in colour, at any width: the stage that costs most (compared:
// whose B − A is largest) and the term most of it comes from.
QString StateDetailPanel::mainTermSentence(const std::vector<session::StageTerms> &a,
                                           const std::vector<session::StageTerms> &b,
                                           const std::vector<std::string> &termNames) const
{
    const bool compared = !b.empty();
    const auto term = [](const std::vector<session::StageTerms> &side, size_t stage, size_t t) {
        return stage < side.size() && t < side[stage].terms.size() ? double(side[stage].terms[t]) : 0.0;
    };
    const auto stageValue = [&](size_t s) {
        const double ca = s < a.size() ? a[s].stageCost : 0.0;
        return compared ? (s < b.size() ? double(b[s].stageCost) : 0.0) - ca : ca;
    };
    const size_t stages = std::max(a.size(), b.size());
    size_t top = 0;
    for (size_t s = 1; s < stages; ++s)
        if (std::abs(stageValue(s)) > std::abs(stageValue(top)))
            top = s;
    if (stages == 0 || stageValue(top) == 0)
        return {};
    size_t main = 0;
    const auto termValue = [&](size_t t) { return compared ? term(b, top, t) - term(a, top, t) : term(a, top, t); };
    for (size_t t = 1; t < termNames.size(); ++t)
        if (std::abs(termValue(t)) > std::abs(termValue(main)))
            main = t;
    const QString stage = QString::fromStdString((top < a.size() ? a : b)[top].stage);
    const auto signedNumber = [&](double v) {
        return (compared && v > 0 ? QStringLiteral("+") : QString()) + formatNumber(v, 3);
    };
    return (compared ? tr(" Differs most in %1: B − A %2, of which %3 %4.")
                     : tr(" Costs most: %1, %2, of which %3 %4."))
        .arg(stage, signedNumber(stageValue(top)), QString::fromStdString(termNames[main]),
             signedNumber(termValue(main)));
}

void StateDetailPanel::setRecomputing(bool on)
{
    if (m_recomputing == on)
        return;
    m_recomputing = on;
    showState(m_a, m_b);
}

QString StateDetailPanel::loopNestDiffHtml(const std::string &a, const std::string &b)
{
    // Only the changes and two lines of context either side: a 35-stage nest that differs in one
    // tiling reads as that tiling, not as screens of common lines.
    constexpr size_t kContext = 2;
    const std::vector<DiffLine> lines = diffLines(a, b);
    std::vector<bool> keep(lines.size(), false);
    size_t changes = 0;
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].kind != DiffLine::Kind::Kept) {
            ++changes;
            for (size_t j = i >= kContext ? i - kContext : 0; j <= std::min(lines.size() - 1, i + kContext); ++j)
                keep[j] = true;
        }
    QString html = QStringLiteral("<p style=\"color:#555\">%1</p><pre style=\"font-family: monospace\">")
                       .arg(changes == 0 ? tr("The two loop nests are the same.")
                                         : tr("%1 changed line(s); unchanged lines are folded.").arg(changes));
    size_t folded = 0;
    const auto flush = [&] {
        if (folded > 0)
            html += QStringLiteral("<span style=\"color:#888\">  ⋯ %1</span>\n")
                        .arg(tr("%n unchanged line(s)", nullptr, static_cast<int>(folded)));
        folded = 0;
    };
    for (size_t i = 0; i < lines.size(); ++i) {
        if (!keep[i]) {
            ++folded;
            continue;
        }
        flush();
        const QString text = QString::fromStdString(lines[i].text).toHtmlEscaped();
        switch (lines[i].kind) {
        case DiffLine::Kind::Kept: html += QStringLiteral("  %1\n").arg(text); break;
        case DiffLine::Kind::Removed:
            html += QStringLiteral("<span style=\"color:#b00020;background:#fde8ea\">− %1</span>\n").arg(text);
            break;
        case DiffLine::Kind::Added:
            html += QStringLiteral("<span style=\"color:#1b7a33;background:#e6f6ea\">+ %1</span>\n").arg(text);
            break;
        }
    }
    flush();
    return html + QStringLiteral("</pre>");
}

QString StateDetailPanel::loopNestHtml(const std::string &nest)
{
    // Colour by loop kind and memory type, so the GPU mapping reads at a glance.
    using Line = search::NestLine;
    QString html = QStringLiteral("<pre style=\"font-family: monospace\">");
    const auto span = [](const Line &l, const char *color, bool bold = false) {
        const QString text = QString(l.indent, QLatin1Char(' ')) + QString::fromStdString(l.text);
        return QStringLiteral("<span style=\"color:%1;%2\">%3</span>")
            .arg(QLatin1String(color), bold ? QStringLiteral("font-weight:bold") : QString(), text.toHtmlEscaped());
    };
    for (const Line &l : search::readNestLines(nest)) {
        QString out;
        switch (l.kind) {
        case Line::Kind::Loop:
            out = l.loop == Line::LoopKind::GpuBlock     ? span(l, "#1f4fbf", true)
                  : l.loop == Line::LoopKind::GpuThread  ? span(l, "#1a8a3a", true)
                  : l.loop == Line::LoopKind::Unrolled   ? span(l, "#b05a00")
                  : l.loop == Line::LoopKind::Vectorized ? span(l, "#8a2be2")
                                                         : span(l, "#444444");
            break;
        case Line::Kind::Realize:
            out = span(l,
                       l.memory == Line::Memory::Shared     ? "#b0007a"
                       : l.memory == Line::Memory::Register ? "#007a7a"
                                                            : "#222222",
                       true);
            break;
        case Line::Kind::Inline:
        case Line::Kind::Unscheduled: out = span(l, "#888888"); break;
        case Line::Kind::Body:
        case Line::Kind::Other: out = span(l, "#555555"); break;
        }
        html += out + QLatin1Char('\n');
    }
    html +=
        QStringLiteral("</pre><p style=\"color:#666\">Legend: <span style=\"color:#1f4fbf\"><b>gpu_block</b></span> · "
                       "<span style=\"color:#1a8a3a\"><b>gpu_thread</b></span> · serial · "
                       "<span style=\"color:#b05a00\">unrolled</span> · memory: global · "
                       "<span style=\"color:#b0007a\"><b>shared</b></span> · "
                       "<span style=\"color:#007a7a\"><b>register</b></span></p>");
    return html;
}

} // namespace beamscope::ui
