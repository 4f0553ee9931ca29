#include "ui/weights/heatmap_panel.h"

#include "ui/common/number_format.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace beamscope::ui {

HeatmapPanel::HeatmapPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);

    auto *controls = new QHBoxLayout;
    m_title = new QLabel(this);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_title->setWordWrap(true); // a long tensor name wraps rather than widen the window past a laptop's screen
    controls->addWidget(m_title, 1);
    controls->addStretch(1);
    m_channelLabel = new QLabel(tr("&Channel:"), this);
    m_channel = new QSpinBox(this);
    m_channel->setToolTip(tr("Channel (dimension 0) of a 3-D tensor; the grid shows dimensions 1 and 2"));
    m_channelLabel->setBuddy(m_channel);
    controls->addWidget(m_channelLabel);
    controls->addWidget(m_channel);
    m_scale = new QComboBox(this);
    m_scale->addItem(tr("Scale: largest |value|"), 1.0);
    m_scale->addItem(tr("Scale: 99% of |values|"), 0.99);
    m_scale->addItem(tr("Scale: 95% of |values|"), 0.95);
    m_scale->setToolTip(tr("Colour scale limit. A percentile lets the many small weights show when a few "
                           "large ones would wash them out; cells beyond it take the end colours."));
    controls->addWidget(m_scale);
    m_swap = new QCheckBox(tr("S&wap axes"), this);
    m_swap->setToolTip(tr("Show the column dimension down and the row dimension across"));
    controls->addWidget(m_swap);
    layout->addLayout(controls);

    m_heatmap = new HeatmapWidget(this);
    layout->addWidget(m_heatmap, 1);

    m_readout = new QLabel(this);
    m_readout->setFont(monospaceFont());
    m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The hovered cell's line ("b − a at head2_filter(17, 57) = ... · schedule feature 57: ...") wraps:
    // as one line it set the whole window's minimum width (1526 px in the Compare view).
    m_readout->setWordWrap(true);
    m_readout->setMinimumHeight(2 * m_readout->fontMetrics().height());
    m_readout->setText(tr("Hover a cell to read its index and value"));
    layout->addWidget(m_readout);

    connect(m_heatmap, &HeatmapWidget::hovered, this, [this](const QString &text) {
        m_readout->setText(text.isEmpty() ? tr("Hover a cell to read its index and value") : text);
    });
    connect(m_channel, &QSpinBox::valueChanged, this, [this] { rebuildGrid(); });
    connect(m_swap, &QCheckBox::toggled, this, [this] { rebuildGrid(); });
    connect(m_scale, &QComboBox::currentIndexChanged, this, [this] { updateScale(); });
    clear();
}

void HeatmapPanel::setTensor(const QString &name, const std::vector<uint32_t> &shape, std::span<const float> data)
{
    const bool sameKind = name == m_name && shape == m_shape;
    m_name = name;
    m_shape = shape;
    m_data.assign(data.begin(), data.end());
    const int channels = heatmapChannelCount(shape);
    {
        const QSignalBlocker block(m_channel);
        m_channel->setRange(0, std::max(0, channels - 1));
        if (!sameKind)
            m_channel->setValue(0);
        m_channel->setSuffix(channels > 0 ? tr(" of %1").arg(channels) : QString());
    }
    m_channel->setVisible(channels > 0);
    m_channelLabel->setVisible(channels > 0);
    m_swap->setEnabled(shape.size() >= 2);
    updateScale();
    m_title->setText(QStringLiteral("%1%2  <span style='font-weight:normal'>%3</span>")
                         .arg(m_titlePrefix.toHtmlEscaped(), name, formatShape(shape)));
    rebuildGrid();
}

double HeatmapPanel::scaleLimit(std::span<const float> data, double fraction)
{
    std::vector<double> magnitudes;
    magnitudes.reserve(data.size());
    for (float v : data)
        if (std::isfinite(v))
            magnitudes.push_back(std::abs(static_cast<double>(v)));
    if (magnitudes.empty())
        return 0;
    // The value below which `fraction` of the magnitudes lie (nearest rank).
    const auto rank = static_cast<size_t>(std::clamp(std::ceil(fraction * static_cast<double>(magnitudes.size())) - 1.0,
                                                     0.0, static_cast<double>(magnitudes.size() - 1)));
    std::nth_element(magnitudes.begin(), magnitudes.begin() + static_cast<std::ptrdiff_t>(rank), magnitudes.end());
    return magnitudes[rank];
}

void HeatmapPanel::updateScale()
{
    // One colour scale for every channel of the tensor, so channels compare by eye.
    m_heatmap->setSymmetricLimit(scaleLimit(m_data, m_scale->currentData().toDouble()));
}

void HeatmapPanel::clear()
{
    m_name.clear();
    m_shape.clear();
    m_data.clear();
    m_channel->setVisible(false);
    m_channelLabel->setVisible(false);
    m_swap->setEnabled(false);
    m_title->clear();
    m_heatmap->setGrid({});
}

void HeatmapPanel::setChannel(int channel) { m_channel->setValue(channel); }

int HeatmapPanel::channel() const { return m_channel->value(); }

int HeatmapPanel::channelCount() const { return heatmapChannelCount(m_shape); }

void HeatmapPanel::rebuildGrid()
{
    if (m_data.empty()) {
        m_heatmap->setGrid({});
        return;
    }
    m_heatmap->setGrid(makeHeatmapGrid(m_name, m_shape, m_data, m_channel->value(), m_swap->isChecked()));
}

} // namespace beamscope::ui
