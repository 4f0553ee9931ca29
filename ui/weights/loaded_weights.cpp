#include "ui/weights/loaded_weights.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

namespace beamscope::ui {

namespace wt = beamscope::weights;

namespace {

QString diagnosticsText(const wt::LoadResult &result, wt::Severity severity)
{
    QStringList lines;
    for (const auto &d : result.diagnostics)
        if (d.severity == severity)
            lines.append(QString::fromStdString(d.format()));
    return lines.join(QLatin1Char('\n'));
}

bool addFileToHash(QCryptographicHash &hash, const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    return hash.addData(&file);
}

QString sha256Of(const QString &path)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (QFileInfo(path).isDir()) {
        const QDir dir(path);
        for (const auto &spec : wt::tensorSpecs(wt::Network::Anderson2021))
            if (!addFileToHash(hash, dir.filePath(QString::fromUtf8(spec.legacyFile))))
                return {};
    } else if (!addFileToHash(hash, path)) {
        return {};
    }
    return QString::fromLatin1(hash.result().toHex());
}

} // namespace

QString LoadedWeights::errorText() const
{
    return diagnosticsText(result, wt::Severity::Error);
}

QString LoadedWeights::warningText() const
{
    return diagnosticsText(result, wt::Severity::Warning);
}

LoadedWeightsPtr loadForDisplay(const QString &path)
{
    auto loaded = std::make_shared<LoadedWeights>();
    loaded->path = path;
    loaded->result = wt::loadWeights(path.toStdString());
    loaded->sha256 = sha256Of(path);
    if (loaded->ok())
        for (const auto &tensor : loaded->weights().tensors)
            loaded->stats.push_back(wt::computeStats(tensor));
    return loaded;
}

} // namespace beamscope::ui
