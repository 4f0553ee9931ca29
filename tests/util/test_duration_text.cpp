// core/util/duration_text: measured times as the CLI and the explorer print them.

#include "core/util/duration_text.h"

#include "tests/weights/qtest_std_string.h"

#include <QTest>

using namespace beamscope;

class DurationTextTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void millisecondsKeepFourSignificantDigits()
    {
        QCOMPARE(millisecondsText(155.234), std::string("155.2 ms"));
        QCOMPARE(millisecondsText(0.083157), std::string("0.08316 ms"));
        QCOMPARE(millisecondsText(9999.4), std::string("9999 ms"));
    }

    void tenSecondsAndMoreReadAsSeconds()
    {
        // Four significant digits of 28,110 ms would print as 2.811e+04 ms.
        QCOMPARE(millisecondsText(28110.0), std::string("28.1 s"));
        QCOMPARE(millisecondsText(10000.0), std::string("10.0 s"));
        QCOMPARE(millisecondsText(125432.0), std::string("125.4 s"));
    }
};

QTEST_GUILESS_MAIN(DurationTextTest)
#include "test_duration_text.moc"
