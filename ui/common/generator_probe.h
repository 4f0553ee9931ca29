#pragma once
// A user's generator library looked at in a child process before the explorer
// loads it: `beamscope-cli generators LIB [--name GEN --param k=v ...] --json`
// lists its generators and their parameters and builds each (or the one named,
// with those values). User code that crashes, hangs or aborts ends that process; the
// explorer says so, naming the library and the generator, and keeps running.
// Plain blocking code: run it on a worker thread.

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace beamscope {
class Progress;
}

namespace beamscope::ui {

struct GeneratorParamInfo {
    QString name, type, defaultValue;
    QStringList choices; // an enum's values, or false/true
};

struct GeneratorInfo {
    QString name;
    QList<GeneratorParamInfo> params;
    int stages = 0; // the cost model's stages of its pipeline, when it was built
    QString error;  // why it cannot be searched (no estimates, a bad parameter), when it was built and failed
};

struct GeneratorProbe {
    bool ok = false;
    QString library; // absolute
    QList<GeneratorInfo> generators;
    QString error; // names the library (and the generator); the child's crash or message
};

using GeneratorParamValues = QList<QPair<QString, QString>>;

GeneratorProbe probeGeneratorLibrary(const QString &library, const QString &generator = {},
                                     const GeneratorParamValues &params = {}, const Progress *progress = nullptr);

// beamscope-cli: $BEAMSCOPE_CLI, else beside the explorer, else on PATH.
QString beamscopeCliPath();

} // namespace beamscope::ui
