#include "ui/weights/feature_names.h"

#include <QCoreApplication>
#include <QStringList>

namespace beamscope::ui {

namespace {

const QStringList &scheduleFeatures()
{
    static const QStringList names = [] {
        QStringList n = {
            "num_realizations",
            "num_productions",
            "points_computed_per_realization",
            "points_computed_per_production",
            "points_computed_per_thread",
            "points_computed_total",
            "points_computed_minimum",
            "innermost_loop_extent",
            "innermost_pure_loop_extent",
            "unrolled_loop_extent",
            "inner_parallelism",
            "outer_parallelism",
            "bytes_at_realization",
            "bytes_at_production",
            "bytes_at_root",
            "innermost_bytes_at_realization",
            "innermost_bytes_at_production",
            "innermost_bytes_at_root",
            "inlined_calls",
        };
        const QStringList memories = {"global", "shared", "register"};
        for (const char *pattern : {"unique_%1_bytes_read_per_realization", "unique_%1_lines_read_per_realization",
                                    "unique_%1_bytes_read_per_thread", "unique_%1_lines_read_per_thread",
                                    "%1_allocation_bytes_read_per_realization"})
            for (const QString &memory : memories)
                n.append(QString::fromLatin1(pattern).arg(memory));
        n << "working_set"
          << "num_scalars";
        for (const char *pattern : {"%1_bytes_at_task", "%1_innermost_bytes_at_task"})
            for (const QString &memory : memories)
                n.append(QString::fromLatin1(pattern).arg(memory));
        n << "unique_bytes_read_per_point"
          << "unique_lines_read_per_point"
          << "unique_bytes_read_per_task"
          << "unique_lines_read_per_task"
          << "working_set_at_task"
          << "working_set_at_production"
          << "working_set_at_realization"
          << "working_set_at_root"
          << "num_blocks"
          << "num_warps_per_block"
          << "block_occupancy"
          << "warp_lane_utilization"
          << "num_active_warps_per_block"
          << "warp_lane_utilization_at_block_y"
          << "warp_lane_utilization_at_block_z"
          << "idle_lane_wastage"
          << "num_shared_mem_loads_per_block"
          << "num_global_mem_loads_per_block"
          << "num_shared_mem_stores_per_block"
          << "num_global_mem_stores_per_block"
          << "shared_mem_store_efficiency"
          << "shared_mem_load_efficiency"
          << "global_mem_store_efficiency"
          << "global_mem_load_efficiency"
          << "working_set_at_thread"
          << "shared_mem_occupancy"
          << "shared_mem_block_limit_factor"
          << "max_warp_occupancy"
          << "max_block_occupancy"
          << "num_threads_per_block"
          << "expr_branching";
        return n;
    }();
    return names;
}

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
    return index >= 0 && index < scheduleFeatures().size() ? scheduleFeatures()[index] : QString();
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
