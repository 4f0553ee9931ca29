#include "ui/weights/summary_widget.h"

#include "ui/common/number_format.h"

#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace beamscope::ui {

namespace wt = beamscope::weights;

SummaryWidget::SummaryWidget(QWidget *parent) : QWidget(parent)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(3);
    addField(QStringLiteral("path"), tr("Path"), 0, 0);
    addField(QStringLiteral("network"), tr("Network"), 1, 0);
    addField(QStringLiteral("versions"), tr("Feature versions"), 1, 2);
    addField(QStringLiteral("form"), tr("Form"), 2, 0);
    addField(QStringLiteral("size"), tr("Size"), 2, 2);
    addField(QStringLiteral("sha256"), tr("SHA-256"), 3, 0);
    addField(QStringLiteral("provenance"), tr("Trained"), 4, 0);
    // Fields were created parentless; place them now (title, value) by their recorded cells.
    for (const QString &name :
         {QStringLiteral("path"), QStringLiteral("network"), QStringLiteral("versions"), QStringLiteral("form"),
          QStringLiteral("size"), QStringLiteral("sha256"), QStringLiteral("provenance")}) {
        QLabel *value = m_fields.value(name);
        const int row = value->property("row").toInt(), column = value->property("column").toInt();
        auto *title = new QLabel(value->property("title").toString() + QLatin1Char(':'), this);
        // Secondary, yet readable: the text colour halfway to the background, not the disabled grey.
        QPalette muted = title->palette();
        const QColor text = muted.color(QPalette::WindowText), window = muted.color(QPalette::Window);
        muted.setColor(QPalette::WindowText,
                       QColor((2 * text.red() + window.red()) / 3, (2 * text.green() + window.green()) / 3,
                              (2 * text.blue() + window.blue()) / 3));
        title->setPalette(muted);
        grid->addWidget(title, row, column, Qt::AlignRight | Qt::AlignTop);
        const bool wide =
            name == QLatin1String("path") || name == QLatin1String("sha256") || name == QLatin1String("provenance");
        grid->addWidget(value, row, column + 1, 1, wide ? 3 : 1);
    }
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 2);
    outer->addLayout(grid);
    m_problems = new QLabel(this);
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problems->setVisible(false);
    outer->addWidget(m_problems);
    setWeights(nullptr);
}

QLabel *SummaryWidget::addField(const QString &name, const QString &title, int row, int column)
{
    auto *value = new QLabel(this);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setProperty("row", row);
    value->setProperty("column", column);
    value->setProperty("title", title);
    if (name == QLatin1String("sha256") || name == QLatin1String("size") || name == QLatin1String("versions"))
        value->setFont(monospaceFont());
    m_fields.insert(name, value);
    return value;
}

QString SummaryWidget::field(const QString &name) const
{
    if (name == QLatin1String("problems"))
        return m_problems->isVisible() ? m_problems->text() : QString();
    const QLabel *label = m_fields.value(name);
    return label ? label->text() : QString();
}

void SummaryWidget::setLoading(const QString &path)
{
    for (QLabel *label : std::as_const(m_fields))
        label->clear();
    m_fields[QStringLiteral("path")]->setText(tr("%1 (loading…)").arg(path));
    m_problems->setVisible(false);
}

void SummaryWidget::setWeights(const LoadedWeightsPtr &weights)
{
    for (QLabel *label : std::as_const(m_fields))
        label->clear();
    m_problems->setVisible(false);
    if (!weights) {
        m_fields[QStringLiteral("path")]->setText(tr("No weights open"));
        return;
    }
    const wt::LoadResult &r = weights->result;
    m_fields[QStringLiteral("path")]->setText(weights->path);
    m_fields[QStringLiteral("path")]->setToolTip(weights->path);
    m_fields[QStringLiteral("form")]->setText(r.form == wt::Form::File ? tr(".weights file (hwf1)")
                                                                       : tr("legacy six-file directory"));
    m_fields[QStringLiteral("size")]->setText(formatBytes(static_cast<qint64>(r.sizeBytes)));
    m_fields[QStringLiteral("sha256")]->setText(weights->sha256);
    m_fields[QStringLiteral("sha256")]->setToolTip(
        r.form == wt::Form::File ? tr("SHA-256 of the file")
                                 : tr("SHA-256 of the equivalent .weights file (what `beamscope-cli weights "
                                      "inspect` prints)"));
    // Untrained files are the trap: a flat histogram looks like any other model's.
    const QString provenance =
        weights->provenance.isEmpty() ? tr("not a shipped file: its training is not known") : weights->provenance;
    m_fields[QStringLiteral("provenance")]->setText(
        weights->untrained ? QStringLiteral("<b style='color:#a04000'>%1</b>").arg(provenance.toHtmlEscaped())
                           : provenance.toHtmlEscaped());
    if (weights->ok()) { // read whole: refused values (NaN) still show what the file is
        const wt::Weights &w = weights->weights();
        m_fields[QStringLiteral("network")]->setText(w.network == wt::Network::Anderson2021
                                                         ? tr("anderson2021 (GPU, head2 24 × 73)")
                                                         : tr("adams2019 (CPU, head2 24 × 39)"));
        m_fields[QStringLiteral("versions")]->setText(
            r.form == wt::Form::File
                ? tr("pipeline %1, schedule %2").arg(w.pipelineFeaturesVersion).arg(w.scheduleFeaturesVersion)
                : tr("none stored (directory form)"));
    }
    QStringList lines;
    const QString errors = weights->errorText(), warnings = weights->warningText();
    if (!errors.isEmpty())
        lines.append(
            QStringLiteral("<span style='color:#b00020'><b>%1</b> %2</span>")
                .arg(tr("Cannot be used:"), errors.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    if (!warnings.isEmpty())
        lines.append(
            QStringLiteral("<span style='color:#a06000'><b>%1</b> %2</span>")
                .arg(tr("Warnings:"), warnings.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    if (!lines.isEmpty()) {
        m_problems->setText(lines.join(QStringLiteral("<br>")));
        m_problems->setVisible(true);
    }
}

} // namespace beamscope::ui
