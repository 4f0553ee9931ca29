// core/util/key_value: generator parameters as `--param k=v` gives them.

#include "core/util/key_value.h"

#include "tests/weights/qtest_std_string.h"

#include <QTest>

using namespace beamscope;

class KeyValueTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void entries()
    {
        std::string error;
        const auto kv = parseKeyValue("divisor=2.5", &error);
        QVERIFY(kv && kv->first == "divisor" && kv->second == "2.5");
        QCOMPARE(parseKeyValue("expr=a=b", &error)->second, std::string("a=b")); // the first '=' splits
        QCOMPARE(parseKeyValue("empty=", &error)->second, std::string());
        QVERIFY(parseKeyValue("_x9=1", &error).has_value());
    }

    void malformedEntriesNamed()
    {
        std::string error;
        QVERIFY(!parseKeyValue("novalue", &error));
        QCOMPARE(error, std::string("generator param \"novalue\": expected KEY=VALUE, found no '='"));
        QVERIFY(!parseKeyValue("=3", &error));
        QCOMPARE(error, std::string("generator param \"=3\": expected KEY=VALUE, found nothing before '='"));
        QVERIFY(!parseKeyValue("2x=1", &error));
        QCOMPARE(error, std::string("generator param \"2x=1\": offset 0: expected a key of letters, digits and '_' "
                                    "(not starting with a digit), found \"2\""));
        QVERIFY(!parseKeyValue("a b=1", &error));
        QVERIFY(error.find("offset 1:") != std::string::npos);
        QVERIFY(!parseKeyValue("k\xff=1", &error));
        QVERIFY(error.find("\\xff") != std::string::npos);
    }

    void listsRefuseRepeatedKeys()
    {
        std::string error;
        const auto ok = parseKeyValues({"a=1", "b=2"}, &error);
        QVERIFY(ok && ok->size() == 2 && ok->at("b") == "2");
        QVERIFY(!parseKeyValues({"a=1", "a=2"}, &error));
        QCOMPARE(error,
                 std::string("generator param \"a=2\": expected each key once, found \"a\" already set to \"1\""));
        QVERIFY(parseKeyValues({}, &error)->empty());
    }
};

QTEST_GUILESS_MAIN(KeyValueTest)
#include "test_key_value.moc"
