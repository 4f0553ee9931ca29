#pragma once
// Behaviour every view shares, as one event filter on the application (a
// scrolled form never changes a setting; every table and chart exports).

#include <QApplication>

namespace beamscope::ui {

// Installs one Filter (constructed with the application as its parent) on the
// running QApplication; a second call finds it there and does nothing.
template <typename Filter>
void installOnceOnApplication()
{
    if (qApp && !qApp->findChild<Filter *>(QString(), Qt::FindDirectChildrenOnly))
        qApp->installEventFilter(new Filter(qApp));
}

} // namespace beamscope::ui
