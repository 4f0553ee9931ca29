#pragma once
// A chart (or any widget drawing one) as PNG or SVG, written atomically: the
// picture a user puts in a report or an issue.

#include <QString>

class QWidget;

namespace beamscope::ui {

// PNG at the widget's size and the screen's pixel ratio, or SVG by the path's
// suffix (.svg, else PNG). Empty on success, else what went wrong (the file named).
QString saveWidgetPicture(QWidget &widget, const QString &path);

} // namespace beamscope::ui
