#include "core/util/json.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <limits>

// The value and its writer; the reader is json_parse.cpp.

namespace beamscope {

namespace {
const std::string kEmptyString;
const Json::Array kEmptyArray;
const Json::Object kEmptyObject;

void appendEscaped(std::string &out, const std::string &s)
{
    // nlohmann's serializer: the escapes JSON needs (\" \\ \b \f \n \r \t, \u00XX
    // for other control characters) and UTF-8 checked, with an ill-formed byte
    // replaced rather than thrown: a path or a compiler message that is not
    // UTF-8 must not stop a trace or a record from being written, and a file
    // holding such a byte would be refused by every strict reader, ours included.
    out += nlohmann::ordered_json(s).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

template <typename Int>
void appendInteger(std::string &out, Int v)
{
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, end);
}

void appendDouble(std::string &out, double v)
{
    if (!std::isfinite(v)) {
        out += "null"; // see dump() in json.h
        return;
    }
    if (v == std::floor(v) && std::fabs(v) < 9.007199254740992e15) {
        appendInteger(out, static_cast<int64_t>(v));
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

// 2^63 and 2^64 are exact doubles; the range checks compare against them so a
// conversion never leaves the target type (which would be undefined).
constexpr double kTwoTo63 = 9223372036854775808.0;
constexpr double kTwoTo64 = 18446744073709551616.0;
} // namespace

bool Json::toBool(bool fallback) const { return isBool() ? std::get<bool>(m_value) : fallback; }

double Json::toNumber(double fallback) const
{
    if (const auto *i = std::get_if<int64_t>(&m_value))
        return static_cast<double>(*i);
    if (const auto *u = std::get_if<uint64_t>(&m_value))
        return static_cast<double>(*u);
    if (const auto *d = std::get_if<double>(&m_value))
        return *d;
    return fallback;
}

int64_t Json::toInt(int64_t fallback) const
{
    if (const auto *i = std::get_if<int64_t>(&m_value))
        return *i;
    if (const auto *u = std::get_if<uint64_t>(&m_value))
        return *u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? static_cast<int64_t>(*u) : fallback;
    if (const auto *d = std::get_if<double>(&m_value))
        return *d >= -kTwoTo63 && *d < kTwoTo63 ? static_cast<int64_t>(*d) : fallback; // false for NaN
    return fallback;
}

uint64_t Json::toUint64(uint64_t fallback) const
{
    if (const auto *u = std::get_if<uint64_t>(&m_value))
        return *u;
    if (const auto *i = std::get_if<int64_t>(&m_value))
        return *i >= 0 ? static_cast<uint64_t>(*i) : fallback;
    if (const auto *d = std::get_if<double>(&m_value))
        return *d >= 0.0 && *d < kTwoTo64 ? static_cast<uint64_t>(*d) : fallback;
    return fallback;
}

const std::string &Json::toString() const { return isString() ? std::get<std::string>(m_value) : kEmptyString; }
const Json::Array &Json::items() const { return isArray() ? std::get<Array>(m_value) : kEmptyArray; }
const Json::Object &Json::members() const { return isObject() ? std::get<Object>(m_value) : kEmptyObject; }

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
    } else if (const auto *i = std::get_if<int64_t>(&m_value)) {
        appendInteger(out, *i);
    } else if (const auto *u = std::get_if<uint64_t>(&m_value)) {
        appendInteger(out, *u);
    } else if (const auto *d = std::get_if<double>(&m_value)) {
        appendDouble(out, *d);
    } else if (isString()) {
        appendEscaped(out, toString());
    } else if (isArray()) {
        const auto &array = items();
        out += '[';
        for (size_t k = 0; k < array.size(); k++) {
            if (k)
                out += ',';
            newline(out, indent, depth + 1);
            array[k].dumpTo(out, indent, depth + 1);
        }
        if (!array.empty())
            newline(out, indent, depth);
        out += ']';
    } else {
        const auto &object = members();
        out += '{';
        for (size_t k = 0; k < object.size(); k++) {
            if (k)
                out += ',';
            newline(out, indent, depth + 1);
            appendEscaped(out, object[k].first);
            out += indent < 0 ? ":" : ": ";
            object[k].second.dumpTo(out, indent, depth + 1);
        }
        if (!object.empty())
            newline(out, indent, depth);
        out += '}';
    }
}

} // namespace beamscope
