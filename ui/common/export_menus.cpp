#include "ui/common/export_menus.h"

#include "ui/common/application_filter.h"

#include "ui/common/chart_export.h"
#include "ui/common/table_export.h"

#include <QApplication>
#include <QChartView>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QTableView>

namespace beamscope::ui {

ExportMenus::ExportMenus(QObject *parent) : QObject(parent) {}

void ExportMenus::installOnApplication() { installOnceOnApplication<ExportMenus>(); }

namespace {

void reportFailure(QWidget *parent, const QString &error)
{
    if (!error.isEmpty())
        QMessageBox::warning(parent, QObject::tr("Export"), error);
}

void showTableMenu(QTableView *table, const QPoint &globalPos)
{
    QMenu menu(table);
    menu.addAction(QObject::tr("Copy table as CSV"), table,
                   [table] { QGuiApplication::clipboard()->setText(tableText(*table, TableFormat::Csv)); });
    menu.addAction(QObject::tr("Export table as CSV…"), table, [table] {
        const QString path =
            QFileDialog::getSaveFileName(table, QObject::tr("Export table"), QString(), QObject::tr("CSV (*.csv)"));
        if (!path.isEmpty())
            reportFailure(table, saveTable(*table, path, TableFormat::Csv));
    });
    menu.addAction(QObject::tr("Export table as JSON…"), table, [table] {
        const QString path =
            QFileDialog::getSaveFileName(table, QObject::tr("Export table"), QString(), QObject::tr("JSON (*.json)"));
        if (!path.isEmpty())
            reportFailure(table, saveTable(*table, path, TableFormat::Json));
    });
    menu.exec(globalPos);
}

void showChartMenu(QChartView *chart, const QPoint &globalPos)
{
    QMenu menu(chart);
    for (const auto &[label, filter] : {std::pair{QObject::tr("Save chart as PNG…"), QObject::tr("PNG (*.png)")},
                                        std::pair{QObject::tr("Save chart as SVG…"), QObject::tr("SVG (*.svg)")}}) {
        menu.addAction(label, chart, [chart, filter = filter] {
            const QString path = QFileDialog::getSaveFileName(chart, QObject::tr("Save chart"), QString(), filter);
            if (!path.isEmpty())
                reportFailure(chart, saveWidgetPicture(*chart, path));
        });
    }
    menu.exec(globalPos);
}

} // namespace

bool ExportMenus::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::ContextMenu)
        return false;
    auto *widget = qobject_cast<QWidget *>(watched);
    if (!widget)
        return false;
    // A table's clicks land on its viewport; a chart view takes them itself.
    auto *table = qobject_cast<QTableView *>(widget->parentWidget());
    if (table && table->viewport() == widget && table->contextMenuPolicy() == Qt::DefaultContextMenu) {
        showTableMenu(table, static_cast<QContextMenuEvent *>(event)->globalPos());
        return true;
    }
    auto *chart = qobject_cast<QChartView *>(widget->parentWidget());
    if (!chart)
        chart = qobject_cast<QChartView *>(widget);
    if (chart && chart->contextMenuPolicy() == Qt::DefaultContextMenu) {
        showChartMenu(chart, static_cast<QContextMenuEvent *>(event)->globalPos());
        return true;
    }
    return false;
}

} // namespace beamscope::ui
