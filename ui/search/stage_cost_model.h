#pragma once
// Predicted cost per scheduled stage of a state (cost-model order), and with a
// second state its costs and the difference; with the cost model's terms, each
// stage's cost split into term segments that StageBarsDelegate draws in the row.
//
// A table row per stage is what keeps every stage's name on screen: Qt Charts'
// category axis hides labels that overlap, so a 35-stage app showed a third of
// its names and none in compare mode. Compared, the stages that differ most come
// first (rows sorted by |B − A|); alone, they keep the cost model's order.

#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>

#include <optional>
#include <vector>

namespace beamscope::ui {

class StageCostModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // CostB and Delta hold data only while a second state is compared (the view hides them otherwise).
    // MainTerm says in words what the bars show in colour: alone, the term that costs the stage
    // most and its value; compared, the term whose B − A is largest and that difference.
    enum Column { Stage, CostA, CostB, Delta, MainTerm, Terms, ColumnCount };
    enum Role { StageIndexRole = Qt::UserRole + 1 }; // the row's stage in the cost model's order

    explicit StageCostModel(QObject *parent = nullptr);

    void setCosts(const QStringList &stages, const std::vector<float> &a, std::optional<std::vector<float>> b);
    bool hasB() const { return m_b.has_value(); }

    // The term segments of every stage (segment t of stage s: segments[s][t]),
    // named and coloured; b empty when only A has terms. Cleared by setCosts.
    void setTermSegments(const QStringList &names, const QList<QColor> &colors, std::vector<std::vector<double>> a,
                         std::vector<std::vector<double>> b);
    const QStringList &segmentNames() const { return m_segmentNames; }
    const QList<QColor> &segmentColors() const { return m_segmentColors; }
    // Segments of a row (in the table's order): state 0 is A, 1 is B; empty when not known.
    const std::vector<double> &segments(int row, int state) const;
    // The widest positive sum of a row's segments, A and B alike: one scale for every bar.
    double segmentScale() const { return m_scale; }

    int stageOfRow(int row) const;
    int rowOfStage(int stage) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant value(size_t stage, int column) const;
    // The index of the MainTerm of a stage, and its value (a term or B − A of one); nullopt without terms.
    std::optional<std::pair<int, double>> mainTerm(size_t stage) const;
    void sortRows();

    QStringList m_stages;
    std::vector<float> m_a;
    std::optional<std::vector<float>> m_b;
    std::vector<int> m_order; // row -> stage
    QStringList m_segmentNames;
    QList<QColor> m_segmentColors;
    std::vector<std::vector<double>> m_segA, m_segB;
    double m_scale = 0;
};

} // namespace beamscope::ui
