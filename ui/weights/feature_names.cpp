#include "ui/weights/feature_names.h"

#include "core/model/cost_model.h"
#include "core/model/schedule_feature_names.h"

#include <QCoreApplication>
#include <QStringList>

namespace beamscope::ui {

namespace {

const QStringList &pipelineRows()
{
    static const QStringList names = [] {
        QStringList n = {"Const", "Cast", "Variable", "Param",     "Add",      "Sub",      "Mod",        "Mul",
                         "Div",   "Min",  "Max",      "EQ",        "NE",       "LT",       "LE",         "And",
                         "Or",    "Not",  "Select",   "ImageCall", "FuncCall", "SelfCall", "ExternCall", "Let"};
        for (const char *pattern : {"pointwise", "transpose", "broadcast", "slice"})
            for (const char *access : {"LoadFunc", "LoadSelf", "LoadImage", "Store"})
                n.append(QStringLiteral("%1 %2").arg(QLatin1String(pattern), QLatin1String(access)));
        return n;
    }();
    return names;
}

QString tr(const char *text) { return QCoreApplication::translate("FeatureNames", text); }

} // namespace

QString scheduleFeatureName(int index)
{
    return index >= 0 && index < model::kScheduleFeatureCount ? QString::fromLatin1(model::scheduleFeatureName(index))
                                                              : QString();
}

QString pipelineFeatureRowName(int index)
{
    return index >= 0 && index < pipelineRows().size() ? pipelineRows()[index] : QString();
}

QString scalarTypeName(int index)
{
    static const QStringList names = {"Bool", "UInt8", "UInt16", "UInt32", "UInt64", "Float", "Double"};
    return index >= 0 && index < names.size() ? names[index] : QString();
}

QString dimensionTitle(const QString &tensor, const std::vector<uint32_t> &shape, int dim)
{
    if (dim == 0)
        return tensor.endsWith(QLatin1String("_filter")) && shape.size() == 2 ? tr("output channel") : tr("channel");
    if (tensor == QLatin1String("head1_filter"))
        return dim == 1 ? tr("pipeline feature") : tr("scalar type");
    if (tensor == QLatin1String("head2_filter"))
        return tr("schedule feature");
    if (tensor == QLatin1String("conv1_filter"))
        return tr("input (head1 0–7, head2 8–31)");
    return tr("dimension %1").arg(dim);
}

QString dimensionLabel(const QString &tensor, const std::vector<uint32_t> &shape, int dim, uint32_t index)
{
    const int i = static_cast<int>(index);
    if (tensor == QLatin1String("head1_filter") && shape.size() == 3) {
        if (dim == 1)
            return pipelineFeatureRowName(i);
        if (dim == 2)
            return scalarTypeName(i);
    }
    // Only the Anderson2021 shape has the 73 GPU schedule features.
    if (tensor == QLatin1String("head2_filter") && dim == 1 && shape.size() == 2 && shape[1] == 73)
        return scheduleFeatureName(i);
    if (tensor == QLatin1String("conv1_filter") && dim == 1)
        return index < 8 ? tr("head1 channel %1").arg(index) : tr("head2 channel %1").arg(index - 8);
    return {};
}

} // namespace beamscope::ui
