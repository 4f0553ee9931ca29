#include "ui/common/generator_probe.h"

#include "core/util/child_process.h"
#include "core/util/json.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace beamscope::ui {

QString beamscopeCliPath()
{
    if (const QString env = qEnvironmentVariable("BEAMSCOPE_CLI"); !env.isEmpty())
        return env;
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("beamscope-cli"));
    return QFileInfo::exists(beside) ? beside : QStringLiteral("beamscope-cli");
}

GeneratorProbe probeGeneratorLibrary(const QString &library, const QString &generator,
                                     const GeneratorParamValues &params, const Progress *progress)
{
    GeneratorProbe out;
    out.library = QFileInfo(library).absoluteFilePath();
    const QString what =
        generator.isEmpty() ? out.library : QObject::tr("%1, generator %2").arg(out.library, generator);
    if (!QFileInfo(library).isFile()) {
        out.error = QObject::tr("%1: no such file").arg(out.library);
        return out;
    }
    std::vector<std::string> argv = {beamscopeCliPath().toStdString(), "generators", out.library.toStdString(),
                                     "--json"};
    if (!generator.isEmpty()) {
        argv.insert(argv.end(), {"--name", generator.toStdString()});
        for (const auto &[key, value] : params)
            argv.insert(argv.end(), {"--param", (key + QLatin1Char('=') + value).toStdString()});
    }
    // Building a large generator takes seconds; a minute and a half is a hang.
    const ChildResult r = runChild(argv, 90, progress);
    if (!r.started) {
        out.error = QObject::tr("%1: cannot run %2: %3")
                        .arg(what, QString::fromStdString(argv.front()), QString::fromStdString(r.startError));
        return out;
    }
    if (r.cancelled) {
        out.error = QObject::tr("%1: cancelled").arg(what);
        return out;
    }
    if (r.timedOut) {
        out.error =
            QObject::tr("%1: no answer within 90 s (does the generator hang?); the explorer did not load it").arg(what);
        return out;
    }
    if (r.signaled) {
        // The child says which generator it is building before it builds it.
        const QString log = QString::fromStdString(r.err);
        const QString marker = QStringLiteral("generators: building ");
        const qsizetype at = log.lastIndexOf(marker);
        const QString building = at < 0 ? QString() : log.mid(at + marker.size()).section(QLatin1Char('\n'), 0, 0);
        out.error = building.isEmpty()
                        ? QObject::tr("%1 crashed (%2) while loading; the explorer did not load it")
                              .arg(what, QString::fromStdString(signalName(r.signal)))
                        : QObject::tr("%1: generator %2 crashed (%3) while building its pipeline; the explorer did "
                                      "not load the library")
                              .arg(out.library, building, QString::fromStdString(signalName(r.signal)));
        return out;
    }
    const JsonParseResult parsed = parseJson(r.out);
    if (!parsed.value || !parsed.value->isObject()) {
        const QString err = QString::fromStdString(r.err).trimmed();
        out.error = QObject::tr("%1: %2").arg(what, err.isEmpty() ? QObject::tr("no answer from beamscope-cli") : err);
        return out;
    }
    const Json &j = *parsed.value;
    if (const Json *error = j.find("error")) {
        out.error = QString::fromStdString(error->toString());
        return out;
    }
    if (const Json *generators = j.find("generators"))
        for (const Json &g : generators->items()) {
            GeneratorInfo info;
            info.name = QString::fromStdString(g.find("name") ? g.find("name")->toString() : std::string());
            if (const Json *ps = g.find("params"))
                for (const Json &p : ps->items()) {
                    GeneratorParamInfo param;
                    const auto text = [&p](const char *key) {
                        return QString::fromStdString(p.find(key) ? p.find(key)->toString() : std::string());
                    };
                    param.name = text("name");
                    param.type = text("type");
                    param.defaultValue = text("default");
                    if (const Json *choices = p.find("choices"))
                        for (const Json &c : choices->items())
                            param.choices << QString::fromStdString(c.toString());
                    info.params << param;
                }
            if (const Json *stages = g.find("stages"))
                info.stages = static_cast<int>(stages->toNumber(0));
            if (const Json *error = g.find("error"))
                info.error = QString::fromStdString(error->toString());
            if (!generator.isEmpty() && info.name == generator && !info.error.isEmpty())
                out.error = info.error; // the one asked for cannot be searched
            out.generators << info;
        }
    out.ok = r.exitCode == 0 && !out.generators.isEmpty() && out.error.isEmpty();
    if (out.error.isEmpty() && !out.ok)
        out.error = out.generators.isEmpty() ? QObject::tr("%1: the library registered no generators").arg(what)
                                             : QObject::tr("%1: beamscope-cli generators failed").arg(what);
    return out;
}

} // namespace beamscope::ui
