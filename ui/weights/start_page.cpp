#include "ui/weights/start_page.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace beamscope::ui {

StartPage::StartPage(QWidget *parent) : QWidget(parent)
{
    auto *outer = new QVBoxLayout(this);
    outer->addStretch(1);
    auto *column = new QVBoxLayout;
    auto *title = new QLabel(tr("<h2>No weights found yet</h2>"), this);
    column->addWidget(title);
    auto *text =
        new QLabel(tr("<p>Beamscope shows the cost model's <b>.weights</b> files (and Halide's legacy six-file "
                      "weights directories). Point it at a folder that holds some:</p>"
                      "<ul>"
                      "<li>a Halide checkout's <code>src/autoschedulers/anderson2021</code> (it holds "
                      "<code>baseline.weights</code> and the per-app files in <code>weights/</code>), "
                      "or <code>src/autoschedulers/adams2019</code> for the CPU model;</li>"
                      "<li>any folder of your own: use <b>Add folder…</b> below, <i>File ▸ Open folder…</i>, "
                      "or drop the folder on this window;</li>"
                      "<li>on the command line: <code>beamscope --weights-dir DIR</code>, or list folders in "
                      "<code>BEAMSCOPE_WEIGHTS_PATH</code> (separated by colons).</li>"
                      "</ul>"
                      "<p>A single file opens with <b>Open weights…</b> (Ctrl+O) or by dropping it here.</p>"),
                   this);
    text->setWordWrap(true);
    text->setTextFormat(Qt::RichText);
    column->addWidget(text);
    auto *buttons = new QHBoxLayout;
    auto *addFolder = new QPushButton(QIcon(QStringLiteral(":/icons/folder-add.svg")), tr("Add folder…"), this);
    auto *openFile = new QPushButton(QIcon(QStringLiteral(":/icons/weights-file.svg")), tr("Open weights…"), this);
    buttons->addWidget(addFolder);
    buttons->addWidget(openFile);
    buttons->addStretch(1);
    column->addLayout(buttons);
    m_searched = new QLabel(this);
    m_searched->setWordWrap(true);
    m_searched->setEnabled(false);
    m_searched->setTextInteractionFlags(Qt::TextSelectableByMouse);
    column->addSpacing(12);
    column->addWidget(m_searched);

    auto *centre = new QHBoxLayout;
    centre->addStretch(1);
    auto *box = new QWidget(this);
    box->setLayout(column);
    box->setMaximumWidth(720);
    centre->addWidget(box, 4);
    centre->addStretch(1);
    outer->addLayout(centre);
    outer->addStretch(2);

    connect(addFolder, &QPushButton::clicked, this, &StartPage::addFolderRequested);
    connect(openFile, &QPushButton::clicked, this, &StartPage::openFileRequested);
}

void StartPage::setSearchedFolders(const QStringList &folders)
{
    if (folders.isEmpty()) {
        m_searched->setText(tr("No library folders are configured."));
        return;
    }
    QStringList escaped;
    for (const QString &folder : folders)
        escaped.append(folder.toHtmlEscaped());
    m_searched->setText(tr("Searched (up to three levels deep): %1").arg(escaped.join(QStringLiteral(", "))));
}

} // namespace beamscope::ui
