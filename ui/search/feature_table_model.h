#pragma once
// The 73 schedule features of one stage of a state (rows, in the cost model's
// order with Halide's names), raw and as the network sees them, log(1 + x);
// with a second state, its values and the difference of the logs.

#include <QAbstractTableModel>

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

} // namespace beamscope::ui
