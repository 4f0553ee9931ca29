#pragma once
// Names for the axes of the Anderson2021 tensors, so a hovered cell says what it
// weighs (HALIDE-FACTS.md "Features"; the network reads head1_filter(c, i, j)
// against pipeline feature (i, j) and head2_filter(c, i) against schedule feature i).

#include <QString>

#include <cstdint>
#include <vector>

namespace beamscope::ui {

QString scheduleFeatureName(int index);    // 0..72, empty outside
QString pipelineFeatureRowName(int index); // 0..39: op histogram, then access patterns
QString scalarTypeName(int index);         // 0..6

// Title of dimension `dim` of a tensor ("channel", "schedule feature", ...).
QString dimensionTitle(const QString &tensor, const std::vector<uint32_t> &shape, int dim);
// What the index along dimension `dim` means, when known ("bytes_at_root").
QString dimensionLabel(const QString &tensor, const std::vector<uint32_t> &shape, int dim, uint32_t index);

} // namespace beamscope::ui
