#pragma once
// Below the tree: the final beam (FinalBeamModel) as a table with a title that
// counts it. A click or Enter on a row selects that state in the tree.

#include <QWidget>

#include <cstdint>

class QLabel;
class QTableView;

namespace beamscope::ui {

class FinalBeamModel;
class SearchTreeData;

class FinalBeamPanel : public QWidget {
    Q_OBJECT
public:
    explicit FinalBeamPanel(QWidget *parent = nullptr);

    void refresh(const SearchTreeData *data);
    // Highlights the state's row when it is in the beam (no signal).
    void showSelected(int64_t id);
    FinalBeamModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }

Q_SIGNALS:
    void stateActivated(qint64 id);

private:
    FinalBeamModel *m_model = nullptr;
    QTableView *m_table = nullptr;
    QLabel *m_title = nullptr;
};

} // namespace beamscope::ui
