#include "ui/weights/conversion_dialog.h"

#include "core/weights/weights.h"
#include "ui/weights/loaded_weights.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QCursor>
#include <QFileDialog>
#include <QMenu>
#include <QShowEvent>
#include <QStringList>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace beamscope::ui {

namespace wt = beamscope::weights;

namespace {
QWidget *withBrowse(QLineEdit *edit, QWidget *parent, const std::function<void()> &browse)
{
    auto *row = new QWidget(parent);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    auto *button = new QToolButton(row);
    button->setText(QStringLiteral("…"));
    button->setToolTip(ConversionDialog::tr("Browse"));
    QObject::connect(button, &QToolButton::clicked, parent, browse);
    layout->addWidget(button);
    return row;
}

// Every error diagnostic, one per line (a load that failed always names one).
QString errorLines(const wt::LoadResult &loaded) { return diagnosticsText(loaded, wt::Severity::Error); }

// Which of the destination's parts already exist (for the overwrite question).
QStringList existingOutputs(const QString &destination, wt::Form form)
{
    QStringList existing;
    const QFileInfo info(destination);
    if (form == wt::Form::File) {
        if (info.exists())
            existing.append(destination);
        return existing;
    }
    if (info.exists() && !info.isDir()) {
        existing.append(destination);
        return existing;
    }
    const QDir dir(destination);
    for (const auto &spec : wt::tensorSpecs(wt::Network::Anderson2021)) {
        const QString member = dir.filePath(QString::fromUtf8(spec.legacyFile));
        if (QFileInfo::exists(member))
            existing.append(member);
    }
    return existing;
}
} // namespace

ConversionDialog::ConversionDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Convert weights"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Converts between a <b>.weights</b> file (hwf1) and Halide's legacy "
                                "<b>six-file directory</b>. The values are copied bit for bit."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *form = new QFormLayout;
    m_source = new QLineEdit(this);
    m_source->setPlaceholderText(tr("a .weights file or a legacy weights directory"));
    m_destination = new QLineEdit(this);
    m_destination->setPlaceholderText(tr("name.weights for a file, any other name for a directory"));
    form->addRow(tr("&Source:"), withBrowse(m_source, this, [this] { browseSource(); }));
    m_sourceInfo = new QLabel(this);
    m_sourceInfo->setWordWrap(true);
    m_sourceInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(QString(), m_sourceInfo);
    form->addRow(tr("&Destination:"), withBrowse(m_destination, this, [this] { browseDestination(); }));
    m_form = new QComboBox(this);
    m_form->addItem(tr("Automatic (from the destination name)"));
    m_form->addItem(tr(".weights file (hwf1)"));
    m_form->addItem(tr("Legacy six-file directory"));
    form->addRow(tr("&Form:"), m_form);
    m_formHint = new QLabel(this);
    form->addRow(QString(), m_formHint);
    m_replace = new QCheckBox(tr("&Replace existing destination"), this);
    m_replace->setToolTip(tr("Without this, an existing destination is left untouched"));
    form->addRow(QString(), m_replace);
    layout->addLayout(form);

    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setVisible(false);
    layout->addWidget(m_message);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto *convertButton = m_buttons->addButton(tr("&Convert"), QDialogButtonBox::AcceptRole);
    convertButton->setDefault(true);
    // Accept converts but keeps the dialog open, so the result (or the error) stays readable.
    connect(convertButton, &QPushButton::clicked, this, [this] { convert(); });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(m_buttons);

    connect(m_destination, &QLineEdit::textChanged, this, [this] {
        clearMessage(); // a result or refusal is about the paths it was given
        updateFormHint();
    });
    connect(m_source, &QLineEdit::textChanged, this, [this] {
        clearMessage();
        previewSource();
    });
    connect(m_form, &QComboBox::currentIndexChanged, this, [this] { updateFormHint(); });
    resize(660, 0);
    updateFormHint();
    previewSource();
}

void ConversionDialog::showEvent(QShowEvent *event)
{
    clearMessage(); // a dialog opened again starts without the last run's message
    previewSource();
    QDialog::showEvent(event);
}

void ConversionDialog::setSource(const QString &path) { m_source->setText(path); }

void ConversionDialog::setDestination(const QString &path) { m_destination->setText(path); }

void ConversionDialog::setFormChoice(FormChoice choice) { m_form->setCurrentIndex(static_cast<int>(choice)); }

void ConversionDialog::setReplaceConfirmed(bool replace) { m_replace->setChecked(replace); }

QString ConversionDialog::source() const { return m_source->text().trimmed(); }

QString ConversionDialog::destination() const { return m_destination->text().trimmed(); }

QString ConversionDialog::errorText() const { return m_error; }

QString ConversionDialog::statusText() const { return m_status; }

QString ConversionDialog::sourceInfoText() const { return m_sourceInfo->text(); }

void ConversionDialog::browseSource()
{
    // A file picker cannot choose a folder: the legacy form gets its own.
    QMenu menu(this);
    QAction *file = menu.addAction(tr("A .weights file…"));
    QAction *folder = menu.addAction(tr("A legacy six-file directory…"));
    const QAction *chosen = menu.exec(QCursor::pos());
    QString path;
    if (chosen == file)
        path = QFileDialog::getOpenFileName(this, tr("Weights to convert"), source(),
                                            tr("Weights (*.weights);;Legacy member files (*.data);;All files (*)"));
    else if (chosen == folder)
        path = QFileDialog::getExistingDirectory(this, tr("Legacy weights directory to convert"), source());
    if (!path.isEmpty())
        setSource(sourceForChosenPath(path));
}

QString sourceForChosenPath(const QString &path)
{
    // One member of a legacy directory stands for the directory.
    const QFileInfo info(path);
    if (info.isFile() && info.suffix() == QLatin1String("data") &&
        wt::holdsLegacyWeightsFiles(info.absolutePath().toStdString()))
        return info.absolutePath();
    return path;
}

void ConversionDialog::previewSource()
{
    const QString src = source();
    if (src.isEmpty()) {
        m_sourceInfo->clear();
        return;
    }
    // Weights are small (under 100 KB); reading them here is quicker than a worker round trip.
    const wt::LoadResult loaded = wt::loadWeights(sourceForChosenPath(src).toStdString());
    if (!loaded.ok()) {
        m_sourceInfo->setText(
            QStringLiteral("<span style='color:#b00020'>%1</span>")
                .arg(tr("Not valid weights, it cannot be converted:<br>%1")
                         .arg(errorLines(loaded).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")))));
        return;
    }
    const wt::Weights &w = *loaded.weights;
    const QString network = QString::fromUtf8(wt::networkName(w.network));
    const QString versions = QStringLiteral("%1/%2").arg(w.pipelineFeaturesVersion).arg(w.scheduleFeaturesVersion);
    m_sourceInfo->setText(loaded.form == wt::Form::Directory
                              ? tr("Source: %1 legacy directory; feature versions are not stored there (read as %2, "
                                   "which a .weights file written from it stores).")
                                    .arg(network, versions)
                              : tr("Source: %1 .weights file, feature versions %2 (a legacy directory written from "
                                   "it cannot store them).")
                                    .arg(network, versions));
}

void ConversionDialog::clearMessage()
{
    m_error.clear();
    m_status.clear();
    m_message->clear();
    m_message->setVisible(false);
}

void ConversionDialog::browseDestination()
{
    QString path;
    if (m_form->currentIndex() == static_cast<int>(FormChoice::Directory))
        path = QFileDialog::getExistingDirectory(this, tr("Destination directory"), destination());
    else
        path = QFileDialog::getSaveFileName(this, tr("Destination"), destination(),
                                            tr("Weights (*.weights);;All files (*)"), nullptr,
                                            QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty())
        setDestination(path);
}

void ConversionDialog::updateFormHint()
{
    if (m_form->currentIndex() != static_cast<int>(FormChoice::Auto) || destination().isEmpty()) {
        m_formHint->clear();
        return;
    }
    const wt::Form form = wt::formForDestination(destination().toStdString());
    m_formHint->setText(form == wt::Form::File ? tr("will write a .weights file")
                                               : tr("will write a legacy six-file directory"));
}

void ConversionDialog::showError(const QString &text)
{
    m_error = text;
    m_status.clear();
    m_message->setText(QStringLiteral("<span style='color:#b00020'>%1</span>")
                           .arg(text.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    m_message->setVisible(true);
}

void ConversionDialog::showSuccess(const QString &text)
{
    m_error.clear();
    m_status = text;
    m_message->setText(QStringLiteral("<span style='color:#1b7a33'>%1</span>").arg(text.toHtmlEscaped()));
    m_message->setVisible(true);
}

bool ConversionDialog::convert()
{
    const QString src = source(), dst = destination();
    if (src.isEmpty() || dst.isEmpty()) {
        showError(tr("Give both a source and a destination."));
        return false;
    }
    if (QFileInfo(src).absoluteFilePath() == QFileInfo(dst).absoluteFilePath()) {
        showError(tr("The destination is the source itself; choose another destination."));
        return false;
    }
    wt::Form form = wt::formForDestination(dst.toStdString());
    if (m_form->currentIndex() == static_cast<int>(FormChoice::File))
        form = wt::Form::File;
    else if (m_form->currentIndex() == static_cast<int>(FormChoice::Directory))
        form = wt::Form::Directory;
    if (form == wt::Form::File && QFileInfo(dst).isDir()) {
        showError(tr("%1 is a directory; a .weights file cannot replace it.").arg(dst));
        return false;
    }

    const wt::LoadResult loaded = wt::loadWeights(sourceForChosenPath(src).toStdString());
    if (!loaded.ok()) {
        // Every problem at once, as `beamscope-cli weights validate` lists them.
        showError(tr("Cannot read the source:\n%1").arg(errorLines(loaded)));
        return false;
    }
    const QStringList existing = existingOutputs(dst, form);
    if (!existing.isEmpty() && !m_replace->isChecked()) {
        showError(tr("The destination already exists (%1). Tick \"Replace existing destination\" to "
                     "overwrite it; nothing was written.")
                      .arg(existing.join(QStringLiteral(", "))));
        return false;
    }
    const Overwrite overwrite = m_replace->isChecked() ? Overwrite::Replace : Overwrite::Refuse;
    const WriteResult written = form == wt::Form::File
                                    ? wt::saveWeightsFile(*loaded.weights, dst.toStdString(), overwrite)
                                    : wt::saveWeightsDirectory(*loaded.weights, dst.toStdString(), overwrite);
    if (!written.ok) {
        showError(tr("Writing failed: %1").arg(QString::fromStdString(written.error)));
        return false;
    }
    QString done = tr("Wrote %1 (%2, %3).")
                       .arg(dst, QString::fromUtf8(wt::formName(form)),
                            QString::fromUtf8(wt::networkName(loaded.weights->network)));
    if (loaded.form == form)
        done += QLatin1Char(' ') + tr("Source and destination have the same form: this was a copy.");
    showSuccess(done);
    Q_EMIT converted(dst);
    return true;
}

} // namespace beamscope::ui
