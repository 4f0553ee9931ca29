#pragma once
// The header above a weights file's tensors: path, form, network, feature
// versions, size, SHA-256 and any warnings or errors.

#include "ui/weights/loaded_weights.h"

#include <QHash>
#include <QWidget>

class QLabel;

namespace beamscope::ui {

class SummaryWidget : public QWidget {
    Q_OBJECT
public:
    explicit SummaryWidget(QWidget *parent = nullptr);

    void setWeights(const LoadedWeightsPtr &weights); // nullptr clears
    void setLoading(const QString &path);

    // Field text by name ("path", "form", "network", "versions", "size", "sha256", "problems").
    QString field(const QString &name) const;

private:
    QLabel *addField(const QString &name, const QString &title, int row, int column);

    QHash<QString, QLabel *> m_fields;
    QLabel *m_problems = nullptr;
};

} // namespace beamscope::ui
