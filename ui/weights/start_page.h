#pragma once
// What the Weights workspace shows when the library is empty and nothing is
// open: how to point it at weights, and which folders it already looked in.

#include <QWidget>

class QLabel;

namespace beamscope::ui {

class StartPage : public QWidget {
    Q_OBJECT
public:
    explicit StartPage(QWidget *parent = nullptr);
    void setSearchedFolders(const QStringList &folders);

Q_SIGNALS:
    void openFileRequested();
    void addFolderRequested();

private:
    QLabel *m_searched = nullptr;
};

} // namespace beamscope::ui
