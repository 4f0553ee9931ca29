#pragma once
// The 73 schedule features of one stage of a state (rows, in the cost model's
// order with Halide's names), raw and as the network sees them, log(1 + x);
// with a second state, its values and the difference of the logs.

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <array>
#include <optional>
#include <vector>

namespace beamscope::ui {

class FeatureTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, RawA, LogA, RawB, LogB, DeltaLog };
    using Row73 = std::array<float, 73>;

    explicit FeatureTableModel(QObject *parent = nullptr);

    // Features of the stage shown; b is the compared state's (absent: two columns fewer).
    void setValues(std::optional<Row73> a, std::optional<Row73> b);
    bool hasB() const { return m_b.has_value(); }

    static double normalized(double raw); // log(1 + x), Halide's input transform

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::optional<Row73> m_a, m_b;
};

// The feature table as compare mode shows it: optionally only the features
// where A and B differ, and sorted by |Δ log| (largest first) when that column
// is the sort column; other columns sort by value.
class FeatureDiffProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit FeatureDiffProxy(QObject *parent = nullptr);
    void setDifferingOnly(bool on);
    bool differingOnly() const { return m_differingOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    bool m_differingOnly = false;
};

} // namespace beamscope::ui
