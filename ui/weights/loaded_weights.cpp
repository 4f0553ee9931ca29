#include "ui/weights/loaded_weights.h"

#include "core/weights/shipped_weights.h"
#include "core/weights/weights_digest.h"

#include <QStringList>

namespace beamscope::ui {

namespace wt = beamscope::weights;

QString diagnosticsText(const wt::LoadResult &result, wt::Severity severity)
{
    QStringList lines;
    for (const auto &d : result.diagnostics)
        if (d.severity == severity)
            lines.append(QString::fromStdString(d.format()));
    return lines.join(QLatin1Char('\n'));
}

QString LoadedWeights::errorText() const { return diagnosticsText(result, wt::Severity::Error); }

QString LoadedWeights::warningText() const { return diagnosticsText(result, wt::Severity::Warning); }

LoadedWeightsPtr loadForDisplay(const QString &path)
{
    auto loaded = std::make_shared<LoadedWeights>();
    loaded->path = path;
    loaded->result = wt::loadWeights(path.toStdString());
    // The same digest `beamscope-cli weights inspect` prints.
    loaded->sha256 =
        QString::fromStdString(wt::weightsDigest(path.toStdString(), loaded->result).value_or(std::string()));
    loaded->provenance = QString::fromStdString(wt::describeShippedWeightsFor(path.toStdString(), {}));
    loaded->untrained = wt::isUntrainedShippedWeights(path.toStdString());
    if (loaded->ok())
        for (const auto &tensor : loaded->weights().tensors)
            loaded->stats.push_back(wt::computeStats(tensor));
    return loaded;
}

} // namespace beamscope::ui
