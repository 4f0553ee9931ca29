#include "ui/common/chart_export.h"

#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace beamscope::ui {

QString saveWidgetPicture(QWidget &widget, const QString &path)
{
    QSaveFile file(path); // written beside the target, renamed into place on commit
    if (!file.open(QIODevice::WriteOnly))
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(widget.size());
        svg.setViewBox(widget.rect());
        svg.setTitle(widget.windowTitle().isEmpty() ? QStringLiteral("Beamscope chart") : widget.windowTitle());
        QPainter painter(&svg);
        widget.render(&painter);
        painter.end();
    } else if (!widget.grab().save(&file, "PNG")) {
        file.cancelWriting();
        return QObject::tr("cannot encode %1 as PNG").arg(path);
    }
    if (!file.commit())
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

} // namespace beamscope::ui
