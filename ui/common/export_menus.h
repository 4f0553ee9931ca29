#pragma once
// A right-click on any table of the explorer offers CSV and JSON export of what
// it shows (table_export.h); on any chart, PNG and SVG (chart_export.h). One
// filter on the application, so tables and charts made later have it too.

#include <QObject>

namespace beamscope::ui {

class ExportMenus : public QObject {
    Q_OBJECT
public:
    explicit ExportMenus(QObject *parent = nullptr);
    // Installs one on the running QApplication (idempotent).
    static void installOnApplication();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
};

} // namespace beamscope::ui
