#pragma once
// A small JSON value: enough for the CLI's --json output, search traces and the
// golden data's case files. Objects keep insertion order so output reads in the
// order the code wrote it.
//
// Reading and the text of strings are nlohmann-json's (json.cpp): strict RFC 8259
// (no NaN/Infinity, comments or trailing text), \u surrogate pairs, UTF-8
// checked. The tree stays this small class because callers hold references to
// array elements and object members (items(), members()), which nlohmann's own
// tree would hand out as its type, not this one.
//
// Numbers keep their kind: integers written as integers (seeds, ids and hashes
// up to 2^64 - 1) read back exactly; only a number written with a fraction or
// exponent is a double.

#include <cstdint>
#include <map>    // not needed here; callers have long had it from this header
#include <memory> // likewise
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
    Json(int v) : m_value(int64_t{v}) {}
    Json(int64_t v) : m_value(v) {}
    Json(uint64_t v) : m_value(v) {}
    Json(uint32_t v) : m_value(int64_t{v}) {}
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
    bool isNumber() const { return isInteger() || std::holds_alternative<double>(m_value); }
    // An integer: written without fraction or exponent (in a file), or made from an integer type.
    bool isInteger() const
    {
        return std::holds_alternative<int64_t>(m_value) || std::holds_alternative<uint64_t>(m_value);
    }
    bool isString() const { return std::holds_alternative<std::string>(m_value); }
    bool isArray() const { return std::holds_alternative<Array>(m_value); }
    bool isObject() const { return std::holds_alternative<Object>(m_value); }

    bool toBool(bool fallback = false) const;
    // Any number as a double (integers above 2^53 round, as doubles do).
    double toNumber(double fallback = 0) const;
    // An integer exactly; a double truncated toward zero. fallback when not a
    // number or outside int64 (a uint64 above 2^63 - 1, NaN, a huge double).
    int64_t toInt(int64_t fallback = 0) const;
    // The same for unsigned 64-bit values (seeds, hashes): fallback when negative or above 2^64 - 1.
    uint64_t toUint64(uint64_t fallback = 0) const;
    const std::string &toString() const; // empty string when not a string
    const Array &items() const;          // empty when not an array
    const Object &members() const;       // empty when not an object

    // Object access: find returns nullptr when absent; operator[] inserts (turning null into an object).
    const Json *find(std::string_view key) const;
    Json &operator[](std::string_view key);
    // Array append (turning null into an array).
    Json &push(Json value);
    size_t size() const;

    // indent < 0: compact, one line. Integers are written exactly; doubles with
    // enough digits to round-trip, an integral double below 2^53 without a
    // fraction (so 3.0 is written "3"). NaN and infinities are written as null:
    // JSON has no such numbers, and a document that stays valid beats one no
    // reader accepts; callers that must tell the user report them themselves.
    // Strings are written as UTF-8; bytes that are not UTF-8 become U+FFFD.
    std::string dump(int indent = -1) const;

private:
    friend class JsonBuilder; // json_parse.cpp: appends members without operator[]'s lookup
    void dumpTo(std::string &out, int indent, int depth) const;
    std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string, Array, Object> m_value;
};

// Arrays and objects nested deeper than this are refused by parseJson (the
// tree's destructor and dump recurse, so depth is bounded where input enters).
constexpr int kJsonMaxDepth = 512;

struct JsonParseResult {
    std::optional<Json> value;
    std::string error; // "offset N: expected X, found Y" when !value
};

// Strict: one JSON value, optional surrounding white space (and a UTF-8 byte
// order mark at the start), nothing else. An object with the same key twice
// is an error (which of the two a reader should take is anyone's guess).
JsonParseResult parseJson(std::string_view text);

} // namespace beamscope
