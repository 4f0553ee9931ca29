#include "ui/common/number_format.h"

#include <QFontDatabase>
#include <QLocale>
#include <QStringList>

#include <cmath>
#include <vector>

namespace beamscope::ui {

QString formatNumber(double value, int significantDigits)
{
    if (std::isnan(value))
        return QStringLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("+∞") : QStringLiteral("−∞");
    return QString::number(value, 'g', significantDigits);
}

QString formatShape(const std::vector<uint32_t> &shape)
{
    QStringList parts;
    for (uint32_t extent : shape)
        parts.append(QString::number(extent));
    return parts.join(QStringLiteral(" × "));
}

QString formatBytes(qint64 bytes) { return QStringLiteral("%1 bytes").arg(QLocale(QLocale::English).toString(bytes)); }

QFont monospaceFont() { return QFontDatabase::systemFont(QFontDatabase::FixedFont); }

} // namespace beamscope::ui
