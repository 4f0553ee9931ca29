// core/util/json: exact integers, strings as RFC 8259 and nlohmann read them,
// strict parsing with offsets in its errors, the depth limit, and the written
// form callers and golden files rely on.

#include "core/util/json.h"

#include "tests/weights/qtest_std_string.h"

#include <QTest>

#include <cmath>
#include <cstdint>
#include <limits>

using namespace beamscope;

namespace {
Json parsed(const std::string &text)
{
    JsonParseResult r = parseJson(text);
    if (!r.value)
        qFatal("unexpected parse error for %s: %s", text.c_str(), r.error.c_str());
    return *r.value;
}

std::string errorOf(const std::string &text)
{
    const JsonParseResult r = parseJson(text);
    return r.value ? std::string("(parsed)") : r.error;
}
} // namespace

class JsonTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void int64Extremes()
    {
        const int64_t max = std::numeric_limits<int64_t>::max(), min = std::numeric_limits<int64_t>::min();
        QCOMPARE(Json(max).dump(), std::string("9223372036854775807"));
        QCOMPARE(parsed(Json(max).dump()).toInt(), max);
        QCOMPARE(parsed(Json(min).dump()).toInt(), min);
        QVERIFY(parsed("9223372036854775807").isInteger());
    }

    void uint64Max()
    {
        const uint64_t max = std::numeric_limits<uint64_t>::max();
        QCOMPARE(Json(max).dump(), std::string("18446744073709551615"));
        const Json back = parsed(Json(max).dump());
        QCOMPARE(back.toUint64(), max);
        // Above int64: toInt cannot hold it and says so with the fallback.
        QCOMPARE(back.toInt(-1), int64_t(-1));
        QCOMPARE(parsed("-1").toUint64(7), uint64_t(7));
    }

    void beyondDoublePrecision()
    {
        // 2^53 + 1 is the first integer a double cannot hold.
        const int64_t v = (int64_t(1) << 53) + 1;
        QCOMPARE(parsed("9007199254740993").toInt(), v);
        QCOMPARE(parsed("9007199254740993").dump(), std::string("9007199254740993"));
        Json o = Json::object();
        o["seed"] = uint64_t{0xfedcba9876543210ull};
        QCOMPARE(parsed(o.dump()).find("seed")->toUint64(), uint64_t{0xfedcba9876543210ull});
    }

    void numberKinds()
    {
        QVERIFY(parsed("1.5").isNumber() && !parsed("1.5").isInteger());
        QCOMPARE(parsed("1.5").toInt(), int64_t(1)); // truncated, as before
        QCOMPARE(parsed("-2.5").toInt(), int64_t(-2));
        QCOMPARE(parsed("1e300").toInt(9), int64_t(9)); // outside int64: the fallback, not UB
        QCOMPARE(parsed("12").toNumber(), 12.0);
        QCOMPARE(Json("x").toInt(5), int64_t(5));
        QCOMPARE(Json(3.0).dump(), std::string("3")); // integral doubles keep their old form
        QCOMPARE(Json(0.1).dump(), std::string("0.1"));
        QCOMPARE(Json(1e16).dump(), std::string("1e+16"));
        QCOMPARE(Json(0.1f).dump(), std::string("0.10000000149011612"));
    }

    void nonFiniteWrittenAsNull()
    {
        Json a = Json::array();
        a.push(std::numeric_limits<double>::quiet_NaN());
        a.push(std::numeric_limits<double>::infinity());
        a.push(-std::numeric_limits<float>::infinity());
        QCOMPARE(a.dump(), std::string("[null,null,null]"));
        QVERIFY(parseJson(a.dump()).value.has_value());
    }

    void surrogatePairs()
    {
        // U+1F600 as a pair decodes to its four UTF-8 bytes.
        QCOMPARE(parsed("\"\\ud83d\\ude00\"").toString(), std::string("\xF0\x9F\x98\x80"));
        QCOMPARE(parsed("\"\\u00e9\\u20ac\"").toString(), std::string("\xC3\xA9\xE2\x82\xAC"));
        // Written back as UTF-8, not escaped.
        QCOMPARE(Json(std::string("\xF0\x9F\x98\x80")).dump(), std::string("\"\xF0\x9F\x98\x80\""));
    }

    void loneSurrogatesRejected()
    {
        QCOMPARE(errorOf("\"\\ud83d\""),
                 std::string("offset 7: expected a valid string (surrogate U+D800..U+DBFF must be followed by "
                             "U+DC00..U+DFFF), found '\"'"));
        QVERIFY(errorOf("\"\\ude00\"").rfind("offset ", 0) == 0);
        QVERIFY(errorOf("[\"\\ud83dx\"]").find("surrogate") != std::string::npos);
    }

    void notJsonRejected()
    {
        QCOMPARE(errorOf("nan"),
                 std::string("offset 0: expected a value (true, false, null, a number, a string, an array or an "
                             "object), found 'nan'"));
        QCOMPARE(errorOf("[1, NaN]"),
                 std::string("offset 4: expected a value (true, false, null, a number, a string, an array or an "
                             "object), found 'NaN'"));
        QVERIFY(errorOf("inf").rfind("offset 0: ", 0) == 0);
        QCOMPARE(errorOf("-Infinity"),
                 std::string("offset 0: expected digit after '-' in a number, found '-Infinity'"));
        QCOMPARE(errorOf("{\"a\":1} x"), std::string("offset 8: expected end of input, found 'x'"));
        QCOMPARE(errorOf("[1 2]"), std::string("offset 3: expected ',' or ']', found '2'"));
        QCOMPARE(errorOf("{\"a\":1,}"), std::string("offset 7: expected a key (a string), found '}'"));
        QCOMPARE(errorOf("[1,"), std::string("offset 3: expected a value, found end of input"));
        QCOMPARE(errorOf(""), std::string("offset 0: expected a value, found end of input"));
        QCOMPARE(errorOf("1e400"), std::string("offset 0: expected a number a double can hold, found '1e400'"));
        QVERIFY(errorOf("// comment\n1").rfind("offset 0: ", 0) == 0);
        QVERIFY(errorOf("/* comment */ 1").rfind("offset 0: ", 0) == 0);
        QVERIFY(errorOf("\"\\x\"").rfind("offset 2: ", 0) == 0);  // unknown escape
        QVERIFY(errorOf("\"a\tb\"").rfind("offset 2: ", 0) == 0); // raw control character
        QVERIFY(errorOf("\"\xff\"").find("UTF-8") != std::string::npos);
        QVERIFY(errorOf("01").rfind("offset 0: expected end of input", 0) == 0);
        QVERIFY(errorOf("+1").rfind("offset 0: ", 0) == 0);
    }

    void whiteSpaceAndByteOrderMark()
    {
        QCOMPARE(parsed(" \t\r\n[1]\n ").size(), size_t(1));
        QCOMPARE(parsed("\xEF\xBB\xBF{}").size(), size_t(0));
    }

    void duplicateKeysRejected()
    {
        QCOMPARE(errorOf("{\"a\":1,\"b\":2,\"a\":3}"),
                 std::string("offset 13: expected each key once in an object, found \"a\" a second time"));
        // The same key in different objects is fine; escapes are compared decoded.
        QVERIFY(parseJson("[{\"a\":1},{\"a\":2}]").value.has_value());
        QVERIFY(errorOf("{\"q\\\"\":1,\"q\\u0022\":2}").rfind("offset 9: ", 0) == 0);
        // Large objects switch to a set; the check still holds.
        std::string big = "{";
        for (int k = 0; k < 100; k++)
            big += "\"k" + std::to_string(k) + "\":" + std::to_string(k) + ",";
        QCOMPARE(parsed(big + "\"end\":0}").size(), size_t(101));
        QVERIFY(errorOf(big + "\"k42\":0}").find("\"k42\" a second time") != std::string::npos);
    }

    void insertionOrderKept()
    {
        const Json j = parsed("{\"z\":1,\"a\":2,\"m\":{\"y\":[],\"b\":{}}}");
        QCOMPARE(j.members()[0].first, std::string("z"));
        QCOMPARE(j.members()[1].first, std::string("a"));
        QCOMPARE(j.dump(), std::string("{\"z\":1,\"a\":2,\"m\":{\"y\":[],\"b\":{}}}"));
        QCOMPARE(j.dump(2),
                 std::string("{\n  \"z\": 1,\n  \"a\": 2,\n  \"m\": {\n    \"y\": [],\n    \"b\": {}\n  }\n}"));
    }

    void deepNestingRefused()
    {
        // 512 levels parse; the 513th is refused where it opens, without
        // descending (nlohmann's parser and our builder keep explicit stacks).
        const std::string ok = std::string(512, '[') + std::string(512, ']');
        QVERIFY(parseJson(ok).value.has_value());
        QCOMPARE(errorOf(std::string(513, '[') + std::string(513, ']')),
                 std::string("offset 512: expected arrays and objects nested at most 512 deep, found a deeper one"));
        std::string objects;
        for (int k = 0; k < 100000; k++)
            objects += "{\"a\":";
        QVERIFY(errorOf(objects).rfind("offset 2560: expected arrays and objects nested at most 512", 0) == 0);
    }

    void escapesWritten()
    {
        QCOMPARE(Json(std::string("a\"b\\c\n\t\x01")).dump(), std::string("\"a\\\"b\\\\c\\n\\t\\u0001\""));
        // Bytes that are not UTF-8 are replaced, so the file stays readable.
        const std::string written = Json(std::string("x\xffy")).dump();
        QCOMPARE(written, std::string("\"x\xEF\xBF\xBDy\""));
        QVERIFY(parseJson(written).value.has_value());
        // A NUL inside a string survives.
        QCOMPARE(parsed("\"a\\u0000b\"").toString(), std::string("a\0b", 3));
    }
};

QTEST_GUILESS_MAIN(JsonTest)
#include "test_json.moc"
