#pragma once
// A small JSON value: enough for the CLI's --json output, search traces and the
// golden data's case files. Objects keep insertion order so output reads in the
// order the code wrote it.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace beamscope {

class Json {
public:
    using Array = std::vector<Json>;
    using Object = std::vector<std::pair<std::string, Json>>;

    Json() = default; // null
    Json(std::nullptr_t) {}
    Json(bool b) : m_value(b) {}
    Json(int v) : m_value(static_cast<double>(v)) {}
    Json(int64_t v) : m_value(static_cast<double>(v)) {}
    Json(uint64_t v) : m_value(static_cast<double>(v)) {}
    Json(uint32_t v) : m_value(static_cast<double>(v)) {}
    Json(double v) : m_value(v) {}
    Json(float v) : m_value(static_cast<double>(v)) {}
    Json(const char *s) : m_value(std::string(s)) {}
    Json(std::string s) : m_value(std::move(s)) {}
    Json(std::string_view s) : m_value(std::string(s)) {}
    Json(Array a) : m_value(std::move(a)) {}
    Json(Object o) : m_value(std::move(o)) {}

    static Json array() { return Json(Array{}); }
    static Json object() { return Json(Object{}); }

    bool isNull() const { return std::holds_alternative<std::monostate>(m_value); }
    bool isBool() const { return std::holds_alternative<bool>(m_value); }
    bool isNumber() const { return std::holds_alternative<double>(m_value); }
    bool isString() const { return std::holds_alternative<std::string>(m_value); }
    bool isArray() const { return std::holds_alternative<Array>(m_value); }
    bool isObject() const { return std::holds_alternative<Object>(m_value); }

    bool toBool(bool fallback = false) const;
    double toNumber(double fallback = 0) const;
    int64_t toInt(int64_t fallback = 0) const { return isNumber() ? static_cast<int64_t>(toNumber()) : fallback; }
    const std::string &toString() const; // empty string when not a string
    const Array &items() const;          // empty when not an array
    const Object &members() const;       // empty when not an object

    // Object access: find returns nullptr when absent; operator[] inserts (turning null into an object).
    const Json *find(std::string_view key) const;
    Json &operator[](std::string_view key);
    // Array append (turning null into an array).
    Json &push(Json value);
    size_t size() const;

    // indent < 0: compact, one line. Numbers are written with enough digits to round-trip.
    std::string dump(int indent = -1) const;

private:
    void dumpTo(std::string &out, int indent, int depth) const;
    std::variant<std::monostate, bool, double, std::string, Array, Object> m_value;
};

struct JsonParseResult {
    std::optional<Json> value;
    std::string error; // "offset N: expected X, found Y" when !value
};

JsonParseResult parseJson(std::string_view text);

} // namespace beamscope
