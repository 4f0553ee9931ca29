#include "core/util/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace beamscope {

namespace {
const std::string kEmptyString;
const Json::Array kEmptyArray;
const Json::Object kEmptyObject;

void appendEscaped(std::string &out, const std::string &s)
{
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    out += '"';
}

void appendNumber(std::string &out, double v)
{
    if (!std::isfinite(v)) {
        out += "null"; // JSON has no NaN/Inf; callers report those separately
        return;
    }
    if (v == std::floor(v) && std::fabs(v) < 9.007199254740992e15) {
        out += std::to_string(static_cast<int64_t>(v));
        return;
    }
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v); // shortest round-trip form
    out.append(buf, end);
}

void newline(std::string &out, int indent, int depth)
{
    if (indent < 0)
        return;
    out += '\n';
    out.append(static_cast<size_t>(indent * depth), ' ');
}

class Parser {
public:
    explicit Parser(std::string_view text) : m_text(text) {}

    JsonParseResult run()
    {
        JsonParseResult result;
        Json value;
        if (!parseValue(value, 0))
            return {std::nullopt, m_error};
        skipSpace();
        if (m_pos != m_text.size()) {
            fail("end of input");
            return {std::nullopt, m_error};
        }
        result.value = std::move(value);
        return result;
    }

private:
    bool fail(const std::string &expected)
    {
        if (m_error.empty()) {
            std::string found = m_pos < m_text.size() ? "'" + std::string(1, m_text[m_pos]) + "'" : "end of input";
            m_error = "offset " + std::to_string(m_pos) + ": expected " + expected + ", found " + found;
        }
        return false;
    }
    void skipSpace()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' ||
                                          m_text[m_pos] == '\r' || m_text[m_pos] == '\t'))
            m_pos++;
    }
    bool literal(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            return false;
        m_pos += word.size();
        return true;
    }
    bool parseString(std::string &out)
    {
        if (m_pos >= m_text.size() || m_text[m_pos] != '"')
            return fail("'\"'");
        m_pos++;
        while (m_pos < m_text.size() && m_text[m_pos] != '"') {
            char c = m_text[m_pos++];
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_text.size())
                return fail("escape character");
            char e = m_text[m_pos++];
            switch (e) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'u': {
                if (m_pos + 4 > m_text.size())
                    return fail("four hex digits");
                unsigned code = 0;
                auto [p, ec] = std::from_chars(m_text.data() + m_pos, m_text.data() + m_pos + 4, code, 16);
                if (ec != std::errc() || p != m_text.data() + m_pos + 4)
                    return fail("four hex digits");
                m_pos += 4;
                if (code < 0x80) {
                    out += static_cast<char>(code);
                } else if (code < 0x800) {
                    out += static_cast<char>(0xC0 | (code >> 6));
                    out += static_cast<char>(0x80 | (code & 0x3F));
                } else {
                    out += static_cast<char>(0xE0 | (code >> 12));
                    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
                    out += static_cast<char>(0x80 | (code & 0x3F));
                }
                break;
            }
            default: out += e;
            }
        }
        if (m_pos >= m_text.size())
            return fail("closing '\"'");
        m_pos++;
        return true;
    }
    bool parseValue(Json &out, int depth)
    {
        if (depth > 512)
            return fail("nesting depth below 512");
        skipSpace();
        if (m_pos >= m_text.size())
            return fail("a value");
        const char c = m_text[m_pos];
        if (c == '{') {
            m_pos++;
            Json::Object object;
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                m_pos++;
                out = Json(std::move(object));
                return true;
            }
            for (;;) {
                skipSpace();
                std::string key;
                if (!parseString(key))
                    return false;
                skipSpace();
                if (m_pos >= m_text.size() || m_text[m_pos] != ':')
                    return fail("':'");
                m_pos++;
                Json value;
                if (!parseValue(value, depth + 1))
                    return false;
                object.emplace_back(std::move(key), std::move(value));
                skipSpace();
                if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                    m_pos++;
                    continue;
                }
                if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                    m_pos++;
                    break;
                }
                return fail("',' or '}'");
            }
            out = Json(std::move(object));
            return true;
        }
        if (c == '[') {
            m_pos++;
            Json::Array array;
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                m_pos++;
                out = Json(std::move(array));
                return true;
            }
            for (;;) {
                Json value;
                if (!parseValue(value, depth + 1))
                    return false;
                array.push_back(std::move(value));
                skipSpace();
                if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                    m_pos++;
                    continue;
                }
                if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                    m_pos++;
                    break;
                }
                return fail("',' or ']'");
            }
            out = Json(std::move(array));
            return true;
        }
        if (c == '"') {
            std::string s;
            if (!parseString(s))
                return false;
            out = Json(std::move(s));
            return true;
        }
        if (literal("true")) {
            out = Json(true);
            return true;
        }
        if (literal("false")) {
            out = Json(false);
            return true;
        }
        if (literal("null")) {
            out = Json();
            return true;
        }
        double number = 0;
        auto [p, ec] = std::from_chars(m_text.data() + m_pos, m_text.data() + m_text.size(), number);
        if (ec != std::errc())
            return fail("a value");
        m_pos = static_cast<size_t>(p - m_text.data());
        out = Json(number);
        return true;
    }

    std::string_view m_text;
    size_t m_pos = 0;
    std::string m_error;
};
} // namespace

bool Json::toBool(bool fallback) const
{
    return isBool() ? std::get<bool>(m_value) : fallback;
}
double Json::toNumber(double fallback) const
{
    return isNumber() ? std::get<double>(m_value) : fallback;
}
const std::string &Json::toString() const
{
    return isString() ? std::get<std::string>(m_value) : kEmptyString;
}
const Json::Array &Json::items() const
{
    return isArray() ? std::get<Array>(m_value) : kEmptyArray;
}
const Json::Object &Json::members() const
{
    return isObject() ? std::get<Object>(m_value) : kEmptyObject;
}

const Json *Json::find(std::string_view key) const
{
    for (const auto &[k, v] : members())
        if (k == key)
            return &v;
    return nullptr;
}

Json &Json::operator[](std::string_view key)
{
    if (isNull())
        m_value = Object{};
    auto &object = std::get<Object>(m_value);
    for (auto &[k, v] : object)
        if (k == key)
            return v;
    object.emplace_back(std::string(key), Json());
    return object.back().second;
}

Json &Json::push(Json value)
{
    if (isNull())
        m_value = Array{};
    auto &array = std::get<Array>(m_value);
    array.push_back(std::move(value));
    return array.back();
}

size_t Json::size() const
{
    if (isArray())
        return items().size();
    if (isObject())
        return members().size();
    return 0;
}

std::string Json::dump(int indent) const
{
    std::string out;
    dumpTo(out, indent, 0);
    return out;
}

void Json::dumpTo(std::string &out, int indent, int depth) const
{
    if (isNull()) {
        out += "null";
    } else if (isBool()) {
        out += toBool() ? "true" : "false";
    } else if (isNumber()) {
        appendNumber(out, toNumber());
    } else if (isString()) {
        appendEscaped(out, toString());
    } else if (isArray()) {
        const auto &array = items();
        out += '[';
        for (size_t i = 0; i < array.size(); i++) {
            if (i)
                out += indent < 0 ? "," : ",";
            newline(out, indent, depth + 1);
            array[i].dumpTo(out, indent, depth + 1);
        }
        if (!array.empty())
            newline(out, indent, depth);
        out += ']';
    } else {
        const auto &object = members();
        out += '{';
        for (size_t i = 0; i < object.size(); i++) {
            if (i)
                out += ',';
            newline(out, indent, depth + 1);
            appendEscaped(out, object[i].first);
            out += indent < 0 ? ":" : ": ";
            object[i].second.dumpTo(out, indent, depth + 1);
        }
        if (!object.empty())
            newline(out, indent, depth);
        out += '}';
    }
}

JsonParseResult parseJson(std::string_view text)
{
    return Parser(text).run();
}

} // namespace beamscope
