#pragma once
// The 40 x 7 feature heatmap: a table view over FeatureMatrixModel whose cells
// are painted by the model's colours, with a rule above each row group (the op
// histogram, then the four access-pattern groups) so the groups read apart.

#include <QTableView>

namespace beamscope::ui {

class FeatureMatrixModel;

class FeatureHeatmapView : public QTableView {
    Q_OBJECT
public:
    explicit FeatureHeatmapView(FeatureMatrixModel *model, QWidget *parent = nullptr);
    QSize sizeHint() const override;
};

} // namespace beamscope::ui
