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

QString formatDuration(qint64 ms)
{
    const qint64 s = (ms + 500) / 1000;
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(s / 3600)
            .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
            .arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

} // namespace beamscope::ui
