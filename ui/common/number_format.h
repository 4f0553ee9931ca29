#pragma once
// How numbers read in tables and labels: a fixed number of significant digits
// in a monospace font, so columns of figures line up.

#include <QFont>
#include <QString>

#include <cstdint>
#include <vector>

namespace beamscope::ui {

QString formatNumber(double value, int significantDigits = 6);
QString formatShape(const std::vector<uint32_t> &shape); // "24 × 73"
QString formatBytes(qint64 bytes);                       // "20,400 bytes"
QString formatDuration(qint64 ms);                       // "1:05", "1:02:03"
QFont monospaceFont();

} // namespace beamscope::ui
