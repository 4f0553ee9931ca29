#include "ui/common/wheel_guard.h"

#include "ui/common/application_filter.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QWheelEvent>

namespace beamscope::ui {

WheelGuard::WheelGuard(QObject *parent) : QObject(parent) {}

void WheelGuard::installOnApplication() { installOnceOnApplication<WheelGuard>(); }

bool WheelGuard::eventFilter(QObject *watched, QEvent *event)
{
    // Qt gives a wheel-focus widget the focus before any filter sees the wheel, so
    // such boxes are made click-and-tab focus (StrongFocus) as they are polished.
    if (event->type() == QEvent::Polish) {
        if (auto *w = qobject_cast<QWidget *>(watched);
            w && (qobject_cast<QAbstractSpinBox *>(w) || qobject_cast<QComboBox *>(w)) &&
            w->focusPolicy() == Qt::WheelFocus)
            w->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    if (event->type() != QEvent::Wheel)
        return false;
    auto *widget = qobject_cast<QWidget *>(watched);
    // The wheel reaches a spin box through its line edit too; judge the box itself.
    while (
        widget && !qobject_cast<QAbstractSpinBox *>(widget) && !qobject_cast<QComboBox *>(widget) &&
        widget->parentWidget() &&
        (qobject_cast<QAbstractSpinBox *>(widget->parentWidget()) || qobject_cast<QComboBox *>(widget->parentWidget())))
        widget = widget->parentWidget();
    if (!widget || (!qobject_cast<QAbstractSpinBox *>(widget) && !qobject_cast<QComboBox *>(widget)) ||
        widget->hasFocus())
        return false;
    // Unfocused: the wheel belongs to the scroll area the form sits in, if any.
    for (QWidget *up = widget->parentWidget(); up; up = up->parentWidget())
        if (auto *area = qobject_cast<QAbstractScrollArea *>(up)) {
            QApplication::sendEvent(area->viewport(), event);
            return true;
        }
    return true; // no scroll area: the wheel does nothing rather than change a setting
}

} // namespace beamscope::ui
