// parseJson: nlohmann-json's lexer and (iterative) SAX parser build a Json tree
// directly, with the depth limit and the duplicate-key check added here, and
// nlohmann's exceptions turned into "offset N: expected X, found Y".

#include "core/util/json.h"

#include <nlohmann/json.hpp>

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12, once it inlines Json's std::variant move into place(), reports the
// storage of the alternatives that are not active as "may be used
// uninitialized" for every put() (a known false positive of its variant
// analysis; clang and ASan/UBSan see nothing). Off for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <cstddef>
#include <iterator>
#include <unordered_set>

namespace beamscope {

namespace {

// Walks the text for nlohmann's lexer and remembers how far it has read, which
// the SAX callbacks need for offsets (nlohmann passes a position only to
// parse_error). nlohmann reads through an iterator pair one char at a time.
class ReadHead {
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char *;
    using reference = const char &;

    ReadHead() = default;
    ReadHead(const char *p, const char **furthest) : m_p(p), m_furthest(furthest) {}
    reference operator*() const { return *m_p; }
    ReadHead &operator++()
    {
        ++m_p;
        if (m_furthest)
            *m_furthest = m_p;
        return *this;
    }
    ReadHead operator++(int)
    {
        ReadHead before = *this;
        ++*this;
        return before;
    }
    bool operator==(const ReadHead &o) const { return m_p == o.m_p; }

private:
    const char *m_p = nullptr;
    const char **m_furthest = nullptr;
};

bool isWordChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
           c == '.';
}

// The input from offset on, as an error message shows it: a word (literal or
// number) whole, else one character; bytes that do not print as \xNN.
std::string foundAt(std::string_view text, size_t offset)
{
    if (offset >= text.size())
        return "end of input";
    size_t end = offset + 1;
    if (isWordChar(text[offset]))
        while (end < text.size() && end - offset < 24 && isWordChar(text[end]))
            end++;
    std::string shown = "'";
    for (size_t k = offset; k < end; k++) {
        const auto c = static_cast<unsigned char>(text[k]);
        if (c >= 0x20 && c < 0x7f) {
            shown += static_cast<char>(c);
        } else {
            static const char hex[] = "0123456789abcdef";
            shown += "\\x";
            shown += hex[c >> 4];
            shown += hex[c & 15];
        }
    }
    return shown + "'";
}

std::string format(size_t offset, const std::string &expected, const std::string &found)
{
    return "offset " + std::to_string(offset) + ": expected " + expected + ", found " + found;
}

std::string after(const std::string &s, const std::string &marker)
{
    const size_t at = s.find(marker);
    return at == std::string::npos ? std::string() : s.substr(at + marker.size());
}

std::string before(const std::string &s, const std::string &marker) { return s.substr(0, s.find(marker)); }

// nlohmann's messages are "syntax error while parsing CONTEXT - unexpected T; expected E"
// (the grammar) or "... - LEXER MESSAGE; last read: 'TOKEN'[; expected E]" (a bad token),
// and out_of_range.406 "number overflow parsing 'TOKEN'". position counts the bytes
// read, including the one that showed the error.
std::string describe(std::string_view text, size_t position, const nlohmann::ordered_json::exception &e)
{
    const std::string what = e.what();
    size_t offset = position == 0 ? 0 : std::min(position - 1, text.size());
    // Point at the start of a literal or number rather than at its last character.
    if (offset < text.size() && isWordChar(text[offset]))
        while (offset > 0 && isWordChar(text[offset - 1]))
            offset--;
    if (e.id == 406)
        return format(offset, "a number a double can hold", foundAt(text, offset));

    const std::string context = before(after(what, "while parsing "), " - ");
    const std::string message = after(what, " - ");
    std::string expected = after(message, "; expected ");
    if (message.find("; last read: '") != std::string::npos) {
        // A bad token. The grammar's expectation (after the token) wins when there is one.
        const std::string lexer = before(message, "; last read: '");
        expected = after(after(message, "; last read: '"), "; expected ");
        if (expected.empty()) {
            if (lexer == "invalid literal")
                expected = "a value (true, false, null, a number, a string, an array or an object)";
            else if (lexer.rfind("invalid number; expected ", 0) == 0)
                expected = after(lexer, "invalid number; expected ") + " in a number";
            else if (lexer.rfind("invalid string: ", 0) == 0)
                expected = "a valid string (" + after(lexer, "invalid string: ") + ")";
            else
                expected = "valid JSON (" + lexer + ")";
        }
        // In a string the byte that broke it is the one to show; a misspelt
        // literal is shown from its start ("tru]" stops at the ']').
        if (lexer.rfind("invalid string", 0) == 0)
            offset = position == 0 ? 0 : std::min(position - 1, text.size());
        else if (lexer == "invalid literal")
            while (offset > 0 && isWordChar(text[offset - 1]))
                offset--;
    }
    if (expected == "'[', '{', or a literal")
        expected = "a value";
    else if (expected == "']'" && context == "array")
        expected = "',' or ']'";
    else if (expected == "'}'" && context == "object")
        expected = "',' or '}'";
    else if (expected == "string literal" && context == "object key")
        expected = "a key (a string)";
    if (expected.empty())
        expected = "valid JSON (" + message + ")";
    return format(offset, expected, foundAt(text, offset));
}

} // namespace

class JsonBuilder final : public nlohmann::json_sax<nlohmann::ordered_json> {
public:
    JsonBuilder(std::string_view text, const char *const *furthest) : m_text(text), m_furthest(furthest) {}

    bool null() override { return put(Json()); }
    bool boolean(bool v) override { return put(Json(v)); }
    bool number_integer(number_integer_t v) override { return put(Json(static_cast<int64_t>(v))); }
    bool number_unsigned(number_unsigned_t v) override { return put(Json(static_cast<uint64_t>(v))); }
    bool number_float(number_float_t v, const string_t &) override { return put(Json(static_cast<double>(v))); }
    bool string(string_t &v) override { return put(Json(std::move(v))); }
    bool binary(binary_t &) override { return fail(readOffset(), "JSON text", "binary data"); } // JSON text has none

    bool start_object(std::size_t) override { return open(Json::object()); }
    bool start_array(std::size_t) override { return open(Json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }

    bool key(string_t &k) override
    {
        Frame &top = m_open.back();
        auto &members = std::get<Json::Object>(top.value->m_value);
        // Small objects (nearly all) are searched; a set is kept once one grows.
        bool seen = false;
        if (!top.keys.empty() || members.size() >= 16) {
            if (top.keys.empty())
                for (const auto &m : members)
                    top.keys.insert(m.first);
            seen = !top.keys.insert(k).second;
        } else {
            for (const auto &m : members)
                seen = seen || m.first == k;
        }
        if (seen)
            return fail(keyStart(), "each key once in an object", Json(k).dump() + " a second time");
        m_key = std::move(k);
        return true;
    }

    bool parse_error(std::size_t position, const std::string &, const nlohmann::ordered_json::exception &e) override
    {
        if (m_error.empty())
            m_error = describe(m_text, position, e);
        return false;
    }

    Json &&result() { return std::move(m_root); }
    const std::string &error() const { return m_error; }

private:
    struct Frame {
        Json *value;
        std::unordered_set<std::string> keys;
    };

    // Puts v where the next value goes and returns where it went. A container's
    // address stays put while it is open: its parent gains no element until it
    // is closed.
    Json *place(Json v)
    {
        if (m_open.empty()) {
            m_root = std::move(v);
            return &m_root;
        }
        Json *top = m_open.back().value;
        if (top->isArray())
            return &top->push(std::move(v));
        auto &members = std::get<Json::Object>(top->m_value);
        members.emplace_back(std::move(m_key), std::move(v));
        return &members.back().second;
    }
    bool put(Json v)
    {
        place(std::move(v));
        return true;
    }
    bool open(Json container)
    {
        if (m_open.size() >= static_cast<size_t>(kJsonMaxDepth))
            return fail(readOffset() - 1,
                        "arrays and objects nested at most " + std::to_string(kJsonMaxDepth) + " deep", "a deeper one");
        m_open.push_back({place(std::move(container)), {}});
        return true;
    }
    bool close()
    {
        m_open.pop_back();
        return true;
    }
    bool fail(size_t offset, const std::string &expected, const std::string &found)
    {
        if (m_error.empty())
            m_error = format(offset, expected, found);
        return false;
    }
    size_t readOffset() const { return static_cast<size_t>(*m_furthest - m_text.data()); }
    // A key callback comes when the lexer has read the key's closing quote; its
    // opening quote is the last '"' before that which no odd run of '\' escapes.
    size_t keyStart() const
    {
        size_t end = readOffset();
        if (end == 0)
            return 0;
        for (size_t q = end - 1; q-- > 0;) {
            if (m_text[q] != '"')
                continue;
            size_t slashes = 0;
            while (slashes < q && m_text[q - 1 - slashes] == '\\')
                slashes++;
            if (slashes % 2 == 0)
                return q;
        }
        return 0;
    }

    std::string_view m_text;
    const char *const *m_furthest;
    Json m_root;
    std::vector<Frame> m_open;
    std::string m_key;
    std::string m_error;
};

JsonParseResult parseJson(std::string_view text)
{
    const char *furthest = text.data();
    JsonBuilder builder(text, &furthest);
    const bool ok = nlohmann::ordered_json::sax_parse(ReadHead(text.data(), &furthest),
                                                      ReadHead(text.data() + text.size(), nullptr), &builder,
                                                      nlohmann::ordered_json::input_format_t::json,
                                                      /*strict: nothing after the value*/ true,
                                                      /*ignore_comments*/ false);
    if (!ok)
        return {std::nullopt,
                builder.error().empty() ? "offset 0: expected JSON, found unreadable input" : builder.error()};
    return {builder.result(), {}};
}

} // namespace beamscope
