#pragma once
// A table as CSV (RFC 4180) or JSON (an array of objects keyed by the column
// headers), for every table of the explorer. A cell's number is written whole
// (its Qt::UserRole value, which the models keep unrounded) where the model has
// one; otherwise the text shown. Rows and columns as the view shows them.

#include <QString>

#include <vector>

class QAbstractItemModel;
class QTableView;

namespace beamscope::ui {

enum class TableFormat { Csv, Json };

// The model's `rows` and `columns`, in those orders, as text.
QString tableText(const QAbstractItemModel &model, const std::vector<int> &columns, const std::vector<int> &rows,
                  TableFormat format);
// What a view shows: its visible columns in their visual order, its rows in their visual order.
QString tableText(const QTableView &view, TableFormat format);
// Written atomically; an empty string on success, else what went wrong (the file named).
QString saveTable(const QTableView &view, const QString &path, TableFormat format);

} // namespace beamscope::ui
