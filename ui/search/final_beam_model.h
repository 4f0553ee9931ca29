#pragma once
// The search's final beam as a table, winner first: rank, state id, predicted
// cost, how far each is from the winner's cost, and the measured time of the
// states measured this session. Activating a row selects the state in the tree.

#include <QAbstractTableModel>

#include <cstdint>
#include <vector>

namespace beamscope::ui {

class SearchTreeData;

class FinalBeamModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Rank, State, Cost, VersusFirst, Measured, ColumnCount };
    enum Role { StateIdRole = Qt::UserRole + 1 };

    explicit FinalBeamModel(QObject *parent = nullptr);

    // Reads the beam again (after a search finished, a trace opened, a state was measured).
    void refresh(const SearchTreeData *data);
    int64_t stateAt(int row) const;
    int rowOfState(int64_t id) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const SearchTreeData *m_data = nullptr;
    std::vector<int64_t> m_ids;
};

} // namespace beamscope::ui
