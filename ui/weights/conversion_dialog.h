#pragma once
// Converts weights between the hwf1 file and the legacy six-file directory
// (core's saveWeightsFile / saveWeightsDirectory). Problems are shown inline in
// the dialog; an existing destination is replaced only when the user ticks
// "Replace existing destination".

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace beamscope::ui {

// A path the user picked as the source: one member file of a legacy directory
// stands for its directory.
QString sourceForChosenPath(const QString &path);

class ConversionDialog : public QDialog {
    Q_OBJECT
public:
    enum class FormChoice { Auto, File, Directory };

    explicit ConversionDialog(QWidget *parent = nullptr);

    void setSource(const QString &path);
    void setDestination(const QString &path);
    void setFormChoice(FormChoice choice);
    void setReplaceConfirmed(bool replace);
    QString source() const;
    QString destination() const;

    // Does the conversion now; on failure the reason is in errorText() and
    // nothing on disk has changed.
    bool convert();
    QString errorText() const;
    QString statusText() const;
    QLabel *messageLabel() const { return m_message; }
    // What the source is (network, form, versions) or every reason it is not weights.
    QString sourceInfoText() const;

protected:
    void showEvent(QShowEvent *event) override;

Q_SIGNALS:
    void converted(const QString &destination);

private:
    void browseSource();
    void browseDestination();
    void updateFormHint();
    void previewSource();
    void clearMessage();
    void showError(const QString &text);
    void showSuccess(const QString &text);

    QLineEdit *m_source = nullptr;
    QLineEdit *m_destination = nullptr;
    QComboBox *m_form = nullptr;
    QLabel *m_formHint = nullptr;
    QLabel *m_sourceInfo = nullptr;
    QCheckBox *m_replace = nullptr;
    QLabel *m_message = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
    QString m_error;
    QString m_status;
};

} // namespace beamscope::ui
