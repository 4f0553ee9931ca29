#pragma once
// Lets QCOMPARE print std::string values when they differ.

#include <QTest>

#include <string>

namespace QTest {
template <>
inline char *toString(const std::string &value)
{
    return qstrdup(("\"" + value + "\"").c_str());
}
} // namespace QTest
