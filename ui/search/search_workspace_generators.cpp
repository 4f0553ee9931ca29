// A user's generator libraries in the Search workspace: a .so is probed in a child process (code
// that crashes or hangs ends that process, not the explorer), its generators join the App list and
// the pipeline registry, and the chosen one's GeneratorParams are edited and checked in a table.

#include "core/pipelines/generator_library.h"
#include "core/pipelines/generator_params.h"
#include "core/pipelines/pipeline.h"
#include "ui/search/search_workspace.h"

#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>

namespace beamscope::ui {

const SearchWorkspace::LoadedGenerator *SearchWorkspace::currentGenerator() const
{
    const QString data = m_app->currentData().toString();
    if (!data.startsWith(QLatin1String("generator:")))
        return nullptr;
    const qsizetype index = data.mid(10).toInt();
    return index >= 0 && index < m_generators.size() ? &m_generators[index] : nullptr;
}

QString SearchWorkspace::currentPipelineName() const
{
    const LoadedGenerator *g = currentGenerator();
    return g ? g->info.name : m_app->currentData().toString();
}

QStringList SearchWorkspace::generatorEntries() const
{
    QStringList out;
    for (int i = 0; i < m_app->count(); ++i)
        if (m_app->itemData(i).toString().startsWith(QLatin1String("generator:")))
            out << m_app->itemText(i);
    return out;
}

// The selected generator's GeneratorParams in the table (its defaults until set); hidden for an app.
void SearchWorkspace::onGeneratorSelected()
{
    const LoadedGenerator *g = currentGenerator();
    m_genParams->setRowCount(0);
    m_genParamsLabel->setVisible(g != nullptr);
    m_genParams->setVisible(g != nullptr && !g->info.params.isEmpty());
    if (!g)
        return;
    m_genParamsLabel->setText(
        g->info.params.isEmpty()
            ? tr("Generator %1 has no parameters.").arg(g->info.name)
            : tr("Parameters of %1 (defaults shown; edit a value to change it):").arg(g->info.name));
    m_genParams->setRowCount(static_cast<int>(g->info.params.size()));
    for (int r = 0; r < m_genParams->rowCount(); ++r) {
        const GeneratorParamInfo &p = g->info.params[r];
        auto *name = new QTableWidgetItem(p.name);
        name->setFlags(Qt::ItemIsEnabled);
        QString tip = tr("%1 (%2), default %3").arg(p.name, p.type, p.defaultValue);
        if (!p.choices.isEmpty())
            tip += tr("; one of %1").arg(p.choices.join(QStringLiteral(", ")));
        name->setToolTip(tip);
        auto *value = new QTableWidgetItem(p.defaultValue);
        value->setToolTip(tip);
        auto *type = new QTableWidgetItem(p.choices.isEmpty() ? p.type : tr("one of %1").arg(p.choices.join(", ")));
        type->setFlags(Qt::ItemIsEnabled);
        type->setToolTip(tip);
        const QSignalBlocker quiet(m_genParams); // filling in defaults is not an edit to check
        m_genParams->setItem(r, 0, name);
        m_genParams->setItem(r, 1, value);
        m_genParams->setItem(r, 2, type);
    }
    m_genParams->resizeColumnToContents(0);
    m_genParams->resizeColumnToContents(1);
    if (!g->info.error.isEmpty())
        m_status->setText(tr("%1 cannot be searched with its defaults: %2").arg(g->info.name, g->info.error));
}

// A value is checked as it is typed (G11), with the check the build applies, so a wrong one is
// marked at once instead of at Start.
void SearchWorkspace::checkGeneratorParamEdit(QTableWidgetItem *item)
{
    const LoadedGenerator *g = currentGenerator();
    if (!g || !item || item->column() != 1 || item->row() >= g->info.params.size())
        return;
    const GeneratorParamInfo &info = g->info.params[item->row()];
    pipelines::GeneratorParamSpec spec;
    spec.name = info.name.toStdString();
    spec.type = info.type.toStdString();
    for (const QString &c : info.choices)
        spec.choices.push_back(c.toStdString());
    const QString why = QString::fromStdString(pipelines::checkGeneratorParamValue(spec, item->text().toStdString()));
    const QSignalBlocker quiet(m_genParams);
    item->setBackground(why.isEmpty() ? QBrush() : QBrush(QColor(255, 220, 220)));
    item->setToolTip(why.isEmpty() ? m_genParams->item(item->row(), 0)->toolTip() : tr("%1: %2").arg(info.name, why));
    if (!why.isEmpty())
        m_status->setText(tr("%1 = %2: %3").arg(info.name, item->text(), why));
}

bool SearchWorkspace::setGeneratorParam(const QString &name, const QString &value)
{
    for (int r = 0; r < m_genParams->rowCount(); ++r)
        if (m_genParams->item(r, 0) && m_genParams->item(r, 0)->text() == name) {
            m_genParams->item(r, 1)->setText(value);
            return true;
        }
    return false;
}

void SearchWorkspace::openGeneratorLibrary(const QString &library, const QString &generator,
                                           const GeneratorParamValues &values)
{
    const QString path = QFileInfo(library).absoluteFilePath();
    m_status->setText(
        tr("Looking at %1 in a separate process (its generators run there first)…").arg(QFileInfo(path).fileName()));
    const auto cancel = startProbe();
    m_generatorJob.start(
        this, [path, cancel] { return probeGeneratorLibrary(path, {}, {}, cancel.get()); },
        [this, path, generator, values](GeneratorProbe probe) {
            probeEnded();
            if (!probe.ok) {
                m_status->setText(probe.error);
                Q_EMIT statusMessage(probe.error, 0);
                Q_EMIT generatorLibraryOpened(false, probe.error);
                return;
            }
            // The library's generators replace what an earlier opening of it listed.
            QList<LoadedGenerator> kept;
            for (const LoadedGenerator &g : m_generators)
                if (g.library != path)
                    kept << g;
            for (const GeneratorInfo &info : probe.generators) {
                kept << LoadedGenerator{path, info};
                if (!info.error.isEmpty())
                    continue; // listed with its reason; the Pipeline and Autotune views take only what builds
                pipelines::PipelineInfo pipeline;
                pipeline.name = info.name.toStdString();
                if (const auto taken = pipelines::findPipeline(pipeline.name);
                    taken && taken->origin != pipelines::Origin::Generator)
                    pipeline.name += "@" + QFileInfo(path).completeBaseName().toStdString(); // not an app's name
                pipeline.description = "generator " + info.name.toStdString() + " of " + path.toStdString();
                pipeline.origin = pipelines::Origin::Generator;
                const std::string lib = path.toStdString(), name = info.name.toStdString();
                pipeline.build = [lib, name] { return pipelines::buildGenerator(lib, name, {}); };
                pipelines::registerUserPipeline(std::move(pipeline), {lib, name});
            }
            {
                const QSignalBlocker block(m_app);
                for (int i = m_app->count() - 1; i >= 0; --i)
                    if (m_app->itemData(i).toString().startsWith(QLatin1String("generator:")))
                        m_app->removeItem(i);
                m_generators = kept;
                for (qsizetype g = 0; g < m_generators.size(); ++g) {
                    const LoadedGenerator &lg = m_generators[g];
                    m_app->addItem(tr("%1 (%2)").arg(lg.info.name, QFileInfo(lg.library).fileName()),
                                   QStringLiteral("generator:%1").arg(g));
                    m_app->setItemData(
                        m_app->count() - 1,
                        lg.info.error.isEmpty()
                            ? tr("generator %1 of %2: %3 stages").arg(lg.info.name, lg.library).arg(lg.info.stages)
                            : tr("generator %1 of %2 cannot be searched: %3")
                                  .arg(lg.info.name, lg.library, lg.info.error),
                        Qt::ToolTipRole);
                }
            }
            int select = -1;
            for (qsizetype g = 0; g < m_generators.size(); ++g)
                if (m_generators[g].library == path &&
                    (generator.isEmpty() || m_generators[g].info.name == generator) && select < 0)
                    select = m_app->findData(QStringLiteral("generator:%1").arg(g));
            if (select >= 0)
                m_app->setCurrentIndex(select); // fills the parameter table, sets the weights' default
            for (const auto &[key, value] : values)
                setGeneratorParam(key, value);
            QStringList names;
            for (const GeneratorInfo &info : probe.generators)
                names << (info.error.isEmpty() ? info.name
                                               : tr("%1 (cannot be searched: %2)").arg(info.name, info.error));
            QString message = tr("%1: %n generator(s): %2", nullptr, static_cast<int>(probe.generators.size()))
                                  .arg(QFileInfo(path).fileName(), names.join(QStringLiteral(", ")));
            if (!generator.isEmpty() && select < 0)
                message = tr("%1 has no generator named %2 (it has %3)")
                              .arg(QFileInfo(path).fileName(), generator, names.join(QStringLiteral(", ")));
            m_status->setText(message);
            Q_EMIT statusMessage(message, 10000);
            Q_EMIT fileOpened(path); // File › Recent remembers it
            Q_EMIT generatorLibraryOpened(select >= 0 || generator.isEmpty(), message);
            // An opened generator trace that waited for its library takes it now.
            if (m_treeFromFile && !m_data.params().generator.empty() && !m_session)
                findTraceGeneratorLibrary();
        });
}

std::shared_ptr<SilentProgress> SearchWorkspace::startProbe()
{
    m_probeCancel = std::make_shared<SilentProgress>();
    m_cancel->setEnabled(true); // a library that hangs is waited on for up to 90 s: let the user stop it
    return m_probeCancel;
}

void SearchWorkspace::probeEnded()
{
    m_probeCancel.reset();
    m_cancel->setEnabled(m_searching);
}

} // namespace beamscope::ui
