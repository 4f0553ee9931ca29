#include "ui/pipeline/feature_matrix_model.h"

#include "ui/common/number_format.h"

#include <QBrush>

#include <algorithm>
#include <cmath>

namespace beamscope::ui {

FeatureMatrixModel::FeatureMatrixModel(QObject *parent) : QAbstractTableModel(parent) {}

void FeatureMatrixModel::setFeatures(const dag::PipelineFeatures &features, const QString &stage)
{
    beginResetModel();
    m_features = features;
    m_stage = stage;
    m_hasStage = true;
    m_max = 0;
    for (const auto &row : features.matrix)
        for (int v : row)
            m_max = std::max(m_max, v);
    endResetModel();
}

void FeatureMatrixModel::clear()
{
    beginResetModel();
    m_features = {};
    m_stage.clear();
    m_hasStage = false;
    m_max = 0;
    endResetModel();
}

QColor FeatureMatrixModel::cellColour(int count, int maxCount)
{
    if (count <= 0 || maxCount <= 0)
        return QColor(250, 250, 250);
    // Log scale: counts span 1 .. thousands, and a single load matters as much
    // to read as a large histogram bin. Even a count of 1 gets a visible tint.
    const double t = 0.15 + 0.85 * std::log1p(count) / std::log1p(std::max(maxCount, 2));
    const QColor light(222, 235, 247), dark(8, 69, 148);
    const auto mix = [t](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * std::min(1.0, t))); };
    return QColor(mix(light.red(), dark.red()), mix(light.green(), dark.green()), mix(light.blue(), dark.blue()));
}

QString FeatureMatrixModel::groupName(int row)
{
    if (row < dag::kOpTypeCount)
        return tr("op histogram");
    static const char *const patterns[] = {"pointwise", "transpose", "broadcast", "slice"};
    return QString::fromLatin1(patterns[(row - dag::kOpTypeCount) / dag::kAccessTypeCount]);
}

int FeatureMatrixModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : dag::kFeatureRows; }

int FeatureMatrixModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : dag::kScalarTypeCount;
}

QVariant FeatureMatrixModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= dag::kFeatureRows || index.column() >= dag::kScalarTypeCount)
        return {};
    const int v = m_features.matrix[static_cast<size_t>(index.row())][static_cast<size_t>(index.column())];
    switch (role) {
    case Qt::DisplayRole: return m_hasStage && v != 0 ? QVariant(QString::number(v)) : QVariant();
    case ValueRole: return v;
    case Qt::BackgroundRole: return QBrush(cellColour(m_hasStage ? v : 0, m_max));
    case Qt::ForegroundRole: {
        const QColor bg = cellColour(v, m_max);
        return QBrush(bg.lightnessF() < 0.55 ? QColor(Qt::white) : QColor(20, 20, 20));
    }
    case Qt::TextAlignmentRole: return int(Qt::AlignCenter);
    case Qt::FontRole: return monospaceFont();
    case Qt::ToolTipRole:
        return tr("%1 · %2 · %3: %4")
            .arg(m_stage, QString::fromStdString(dag::featureRowName(index.row())),
                 QString::fromLatin1(dag::scalarTypeName(index.column())))
            .arg(v);
    default: return {};
    }
}

QVariant FeatureMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal) {
        if (section < 0 || section >= dag::kScalarTypeCount)
            return {};
        if (role == Qt::DisplayRole)
            return QString::fromLatin1(dag::scalarTypeName(section));
        return {};
    }
    if (section < 0 || section >= dag::kFeatureRows)
        return {};
    switch (role) {
    case Qt::DisplayRole: return QString::fromStdString(dag::featureRowName(section));
    case GroupRole: return groupName(section);
    case GroupStartRole:
        return section == 0 ||
               (section >= dag::kOpTypeCount && (section - dag::kOpTypeCount) % dag::kAccessTypeCount == 0);
    case Qt::ToolTipRole:
        return section < dag::kOpTypeCount
                   ? tr("op histogram: how many %1 operations the stage's definition has, per "
                        "scalar type")
                         .arg(QString::fromStdString(dag::featureRowName(section)))
                   : tr("access pattern %1").arg(QString::fromStdString(dag::featureRowName(section)));
    default: return {};
    }
}

} // namespace beamscope::ui
