#pragma once
// A heatmap with its controls: channel selector (3-D tensors such as
// head1_filter's 8 x 40 x 7 are shown one channel at a time), axis swap, and a
// line that reads out the hovered cell.

#include "ui/weights/heatmap_widget.h"

#include <QWidget>

#include <span>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace beamscope::ui {

class HeatmapPanel : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapPanel(QWidget *parent = nullptr);

    // data is copied; shape in Halide order.
    void setTensor(const QString &name, const std::vector<uint32_t> &shape, std::span<const float> data);
    void clear();
    // Put before the tensor's name in the title ("b − a of ").
    void setTitlePrefix(const QString &prefix) { m_titlePrefix = prefix; }
    void setChannel(int channel);
    int channel() const;
    int channelCount() const;

    HeatmapWidget *heatmap() const { return m_heatmap; }
    QSpinBox *channelSelector() const { return m_channel; }
    QComboBox *scaleSelector() const { return m_scale; }

    // The colour limit covering `fraction` of the finite |values| (1 = the largest).
    static double scaleLimit(std::span<const float> data, double fraction);
    QLabel *readout() const { return m_readout; }

private:
    void rebuildGrid();
    void updateScale();

    QString m_name;
    QString m_titlePrefix;
    std::vector<uint32_t> m_shape;
    std::vector<float> m_data;
    QLabel *m_title = nullptr;
    QLabel *m_channelLabel = nullptr;
    QSpinBox *m_channel = nullptr;
    QCheckBox *m_swap = nullptr;
    QComboBox *m_scale = nullptr;
    HeatmapWidget *m_heatmap = nullptr;
    QLabel *m_readout = nullptr;
};

} // namespace beamscope::ui
