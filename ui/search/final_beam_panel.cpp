#include "ui/search/final_beam_panel.h"

#include "ui/search/final_beam_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableView>
#include <QVBoxLayout>

namespace beamscope::ui {

FinalBeamPanel::FinalBeamPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    m_title = new QLabel(this);
    layout->addWidget(m_title);
    m_model = new FinalBeamModel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);
    const auto activate = [this](const QModelIndex &index) {
        if (const int64_t id = m_model->stateAt(index.row()); id >= 0)
            Q_EMIT stateActivated(id);
    };
    connect(m_table, &QTableView::clicked, this, activate);
    connect(m_table, &QTableView::activated, this, activate);
    refresh(nullptr);
}

void FinalBeamPanel::refresh(const SearchTreeData *data)
{
    m_model->refresh(data);
    m_title->setText(m_model->rowCount() == 0 ? tr("Final beam: none yet")
                                              : tr("Final beam: %n state(s), cheapest first; click one to select it",
                                                   nullptr, m_model->rowCount()));
}

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
