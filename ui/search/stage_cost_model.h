#pragma once
// Predicted cost per scheduled stage of a state (cost-model order), and with a
// second state its costs and the difference.

#include <QAbstractTableModel>
#include <QStringList>

#include <optional>
#include <vector>

namespace beamscope::ui {

class StageCostModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Stage, CostA, CostB, Delta };

    explicit StageCostModel(QObject *parent = nullptr);

    void setCosts(const QStringList &stages, const std::vector<float> &a, std::optional<std::vector<float>> b);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QStringList m_stages;
    std::vector<float> m_a;
    std::optional<std::vector<float>> m_b;
};

} // namespace beamscope::ui
