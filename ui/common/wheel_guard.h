#pragma once
// Scrolling a form must not change it. A spin box or combo box takes the mouse
// wheel only while it has keyboard focus; otherwise the wheel scrolls the
// scroll area around it, as in most Qt applications. Installed once on the
// application (the explorer's main), so every workspace's forms behave alike.

#include <QObject>

namespace beamscope::ui {

class WheelGuard : public QObject {
    Q_OBJECT
public:
    explicit WheelGuard(QObject *parent = nullptr);
    // Installs one guard on the running QApplication (idempotent).
    static void installOnApplication();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
};

} // namespace beamscope::ui
