#pragma once
// A tensor laid out as a grid of cells for the heatmap: 1-D tensors as a single
// row (a strip), 2-D tensors with dimension 0 down and dimension 1 across,
// 3-D tensors one channel (dimension 0) at a time with dimensions 1 and 2.
// Kept apart from the widget so the layout is testable without painting.

#include <QString>

#include <cstdint>
#include <span>
#include <vector>

namespace beamscope::ui {

struct HeatmapGrid {
    QString tensor;
    std::vector<uint32_t> shape;
    int channel = -1; // 3-D tensors only
    bool transposed = false;
    int rows = 0, columns = 0;
    int rowDim = -1, columnDim = 0; // tensor dimension along rows / columns (-1: none, a strip)
    std::vector<float> values;      // rows * columns, row-major

    bool empty() const { return values.empty(); }
    float at(int row, int column) const { return values[static_cast<size_t>(row) * columns + column]; }
    size_t flatIndex(int row, int column) const;                  // position in the tensor's data
    std::vector<uint32_t> tensorIndex(int row, int column) const; // dimension 0 first
};

// Number of channels a tensor is shown in (dimension 0 of a 3-D tensor), else 0.
int heatmapChannelCount(const std::vector<uint32_t> &shape);

// channel is clamped into range; transpose swaps rows and columns (not for strips).
HeatmapGrid makeHeatmapGrid(const QString &tensor, const std::vector<uint32_t> &shape, std::span<const float> data,
                            int channel = 0, bool transpose = false);

} // namespace beamscope::ui
