#include <QTest>
class TestModelTraining : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void placeholder() { QVERIFY(true); }
};
QTEST_GUILESS_MAIN(TestModelTraining)
#include "test_training.moc"
