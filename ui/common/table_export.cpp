#include "ui/common/table_export.h"

#include "core/util/atomic_file.h"
#include "core/util/json.h"

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QTableView>

#include <cmath>

namespace beamscope::ui {

namespace {

// The unrounded number behind a cell, when the model keeps one.
bool numberOf(const QAbstractItemModel &model, const QModelIndex &index, double *out)
{
    const QVariant raw = model.data(index, Qt::UserRole);
    switch (raw.typeId()) {
    case QMetaType::Double:
    case QMetaType::Float:
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::UInt:
    case QMetaType::ULongLong: *out = raw.toDouble(); return std::isfinite(*out);
    default: return false;
    }
}

QString csvField(const QString &text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')) &&
        !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString header(const QAbstractItemModel &model, int column)
{
    const QString text = model.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
    return text.isEmpty() ? QStringLiteral("column %1").arg(column + 1) : text.simplified();
}

} // namespace

QString tableText(const QAbstractItemModel &model, const std::vector<int> &columns, const std::vector<int> &rows,
                  TableFormat format)
{
    if (format == TableFormat::Csv) {
        QStringList lines;
        QStringList head;
        for (int c : columns)
            head << csvField(header(model, c));
        lines << head.join(QLatin1Char(','));
        for (int r : rows) {
            QStringList cells;
            for (int c : columns) {
                const QModelIndex index = model.index(r, c);
                double number = 0;
                cells << (numberOf(model, index, &number) ? QString::number(number, 'g', 17)
                                                          : csvField(model.data(index).toString()));
            }
            lines << cells.join(QLatin1Char(','));
        }
        return lines.join(QLatin1String("\r\n")) + QLatin1String("\r\n");
    }
    Json array = Json::array();
    for (int r : rows) {
        Json object = Json::object();
        for (int c : columns) {
            const QModelIndex index = model.index(r, c);
            double number = 0;
            object[header(model, c).toStdString()] =
                numberOf(model, index, &number) ? Json(number) : Json(model.data(index).toString().toStdString());
        }
        array.push(std::move(object));
    }
    return QString::fromStdString(array.dump(2)) + QLatin1Char('\n');
}

QString tableText(const QTableView &view, TableFormat format)
{
    const QAbstractItemModel *model = view.model();
    if (!model)
        return {};
    std::vector<int> columns, rows;
    const QHeaderView *h = view.horizontalHeader();
    for (int visual = 0; visual < h->count(); ++visual)
        if (const int c = h->logicalIndex(visual); !view.isColumnHidden(c))
            columns.push_back(c);
    const QHeaderView *v = view.verticalHeader();
    for (int visual = 0; visual < v->count(); ++visual)
        if (const int r = v->logicalIndex(visual); !view.isRowHidden(r))
            rows.push_back(r);
    return tableText(*model, columns, rows, format);
}

QString saveTable(const QTableView &view, const QString &path, TableFormat format)
{
    const QByteArray bytes = tableText(view, format).toUtf8();
    const WriteResult written = writeFileAtomically(
        path.toStdString(), std::span<const char>(bytes.constData(), size_t(bytes.size())), Overwrite::Replace);
    return written.ok ? QString() : QString::fromStdString(written.error);
}

} // namespace beamscope::ui
