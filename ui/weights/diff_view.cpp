#include "ui/weights/diff_view.h"

#include "ui/weights/diff_models.h"
#include "ui/weights/heatmap_panel.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QScrollBar>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace beamscope::ui {

namespace {
void setUpTable(QTableView *table)
{
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->hide();
    table->setAlternatingRowColors(true);
    table->horizontalHeader()->setStretchLastSection(false);
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->setWordWrap(false);
}
} // namespace

DiffView::DiffView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_header = new QLabel(this);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true);
    layout->addWidget(m_header);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setVisible(false);
    layout->addWidget(m_message);

    m_summaryModel = new DiffSummaryModel(this);
    m_changesModel = new LargestChangesModel(this);
    m_summary = new QTableView(this);
    m_summary->setModel(m_summaryModel);
    setUpTable(m_summary);
    m_changes = new QTableView(this);
    m_changes->setModel(m_changesModel);
    setUpTable(m_changes);
    m_heatmap = new HeatmapPanel(this);
    m_heatmap->heatmap()->setLegendTitle(tr("b − a"));
    m_heatmap->heatmap()->setHoverPrefix(tr("b − a at "));
    m_heatmap->setTitlePrefix(tr("b − a of "));
    m_heatmap->heatmap()->setEmptyText(tr("Select two weights files in the library (Ctrl+click), "
                                          "or use \"Compare with…\", to see what changed"));

    m_horizontal = new QSplitter(Qt::Horizontal, this);
    m_horizontal->addWidget(m_heatmap);
    auto *changesBox = new QWidget(this);
    auto *changesLayout = new QVBoxLayout(changesBox);
    changesLayout->setContentsMargins(0, 0, 0, 0);
    changesLayout->addWidget(new QLabel(tr("<b>Largest changes</b>"), changesBox));
    changesLayout->addWidget(m_changes);
    m_horizontal->addWidget(changesBox);
    m_horizontal->setStretchFactor(0, 1);
    m_horizontal->setStretchFactor(1, 0);
    m_horizontal->setSizes({800, 400});

    m_vertical = new QSplitter(Qt::Vertical, this);
    m_vertical->addWidget(m_summary);
    m_vertical->addWidget(m_horizontal);
    m_vertical->setStretchFactor(0, 0);
    m_vertical->setStretchFactor(1, 1);
    // Exactly tall enough for the six tensors and the header.
    const int tableHeight = m_summary->horizontalHeader()->sizeHint().height() +
                            6 * m_summary->verticalHeader()->defaultSectionSize() + 2 * m_summary->frameWidth() + 2;
    m_vertical->setSizes({tableHeight, 600});
    layout->addWidget(m_vertical, 1);

    connect(m_summary->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid() && current.row() != m_selected) {
                    m_selected = current.row();
                    showSelected();
                }
            });
    clear();
}

QList<QSplitter *> DiffView::splitters() const { return {m_vertical, m_horizontal}; }

void DiffView::clear() { setPair(nullptr, nullptr); }

void DiffView::setPair(LoadedWeightsPtr a, LoadedWeightsPtr b)
{
    m_a = std::move(a);
    m_b = std::move(b);
    m_hasDiff = false;
    m_diff = {};
    m_message->setVisible(false);
    const auto describe = [](const LoadedWeightsPtr &w) {
        return w ? QFileInfo(w->path).fileName().toHtmlEscaped() : QStringLiteral("—");
    };
    m_header->setText(tr("<b>a</b> %1 &nbsp;&nbsp;→&nbsp;&nbsp; <b>b</b> %2").arg(describe(m_a), describe(m_b)));
    m_header->setToolTip(m_a && m_b ? QStringLiteral("a: %1\nb: %2").arg(m_a->path, m_b->path) : QString());

    QString problem;
    if (m_a && !m_a->ok())
        problem = tr("a cannot be read: %1").arg(m_a->errorText());
    else if (m_b && !m_b->ok())
        problem = tr("b cannot be read: %1").arg(m_b->errorText());
    if (m_a && m_b && problem.isEmpty()) {
        m_diff = weights::diffWeights(m_a->weights(), m_b->weights());
        if (!m_diff.comparable)
            problem = tr("Not comparable: %1").arg(QString::fromStdString(m_diff.reason));
        else
            m_hasDiff = true;
    }
    if (!problem.isEmpty()) {
        m_message->setText(QStringLiteral("<span style='color:#b00020'>%1</span>").arg(problem.toHtmlEscaped()));
        m_message->setVisible(true);
    } else if (m_hasDiff) {
        size_t changed = 0;
        for (const auto &t : m_diff.tensors)
            changed += t.changedCount;
        if (changed == 0) {
            m_message->setText(tr("The two files hold identical values."));
            m_message->setVisible(true);
        }
    }
    m_summaryModel->setDiff(m_hasDiff ? &m_diff : nullptr);
    m_changesModel->setTensorDiff(nullptr);
    m_summary->resizeColumnsToContents();
    const int previous = m_selected;
    m_selected = -1;
    if (m_hasDiff)
        selectTensor(previous >= 0 && previous < static_cast<int>(m_diff.tensors.size()) ? previous : 0);
    else
        m_heatmap->clear();
}

void DiffView::selectTensor(int row)
{
    if (!m_hasDiff || row < 0 || row >= static_cast<int>(m_diff.tensors.size()))
        return;
    m_selected = row;
    m_summary->setCurrentIndex(m_summaryModel->index(row, 0));
    showSelected();
}

void DiffView::showSelected()
{
    if (!m_hasDiff || m_selected < 0)
        return;
    const auto &t = m_diff.tensors[m_selected];
    m_heatmap->setTensor(QString::fromStdString(t.name), t.shape, t.difference);
    m_changesModel->setTensorDiff(&t);
    m_changes->resizeColumnsToContents();
    // Every column in view (a laptop's width hid b and b − a behind a scroll bar): the heatmap gives way.
    m_changes->setMinimumWidth(m_changes->horizontalHeader()->length() + m_changes->verticalHeader()->width() +
                               m_changes->verticalScrollBar()->sizeHint().width() + 2 * m_changes->frameWidth());
}

} // namespace beamscope::ui
