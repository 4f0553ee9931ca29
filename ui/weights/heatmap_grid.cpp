#include "ui/weights/heatmap_grid.h"

#include <algorithm>
#include <numeric>

namespace beamscope::ui {

int heatmapChannelCount(const std::vector<uint32_t> &shape)
{
    return shape.size() == 3 ? static_cast<int>(shape[0]) : 0;
}

size_t HeatmapGrid::flatIndex(int row, int column) const
{
    const auto idx = tensorIndex(row, column);
    size_t flat = 0, stride = 1;
    for (size_t d = 0; d < idx.size(); ++d) {
        flat += idx[d] * stride;
        stride *= shape[d];
    }
    return flat;
}

std::vector<uint32_t> HeatmapGrid::tensorIndex(int row, int column) const
{
    std::vector<uint32_t> idx(shape.size(), 0);
    if (shape.size() == 3)
        idx[0] = static_cast<uint32_t>(channel);
    if (rowDim >= 0)
        idx[rowDim] = static_cast<uint32_t>(row);
    if (columnDim >= 0 && !idx.empty())
        idx[columnDim] = static_cast<uint32_t>(column);
    return idx;
}

HeatmapGrid makeHeatmapGrid(const QString &tensor, const std::vector<uint32_t> &shape, std::span<const float> data,
                            int channel, bool transpose)
{
    HeatmapGrid grid;
    grid.tensor = tensor;
    const size_t count = std::accumulate(shape.begin(), shape.end(), size_t{1}, std::multiplies<>());
    if (shape.empty() || shape.size() > 3 || count == 0 || data.size() != count)
        return grid;
    grid.shape = shape;
    if (shape.size() == 1) {
        grid.rows = 1;
        grid.columns = static_cast<int>(shape[0]);
        grid.rowDim = -1;
        grid.columnDim = 0;
    } else {
        const int first = shape.size() == 3 ? 1 : 0;
        grid.channel = shape.size() == 3 ? std::clamp(channel, 0, static_cast<int>(shape[0]) - 1) : -1;
        grid.transposed = transpose;
        grid.rowDim = transpose ? first + 1 : first;
        grid.columnDim = transpose ? first : first + 1;
        grid.rows = static_cast<int>(shape[grid.rowDim]);
        grid.columns = static_cast<int>(shape[grid.columnDim]);
    }
    grid.values.resize(static_cast<size_t>(grid.rows) * grid.columns);
    for (int r = 0; r < grid.rows; ++r)
        for (int c = 0; c < grid.columns; ++c)
            grid.values[static_cast<size_t>(r) * grid.columns + c] = data[grid.flatIndex(r, c)];
    return grid;
}

} // namespace beamscope::ui
