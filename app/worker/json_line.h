#pragma once
// The worker reports one JSON line on stdout. It cannot use core/util/json
// (core links the CUDA runtime when built with the toolkit), so it writes the
// few shapes it needs itself.

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace beamscope::worker {

inline std::string jsonString(const std::string &s)
{
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
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
    return out + "\"";
}

inline std::string jsonNumber(double v)
{
    if (!std::isfinite(v))
        return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

template <typename T> std::string jsonArray(const std::vector<T> &values)
{
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i)
        out += (i ? "," : "") + jsonNumber(static_cast<double>(values[i]));
    return out + "]";
}

// Builds {"k": v, ...} with values already rendered as JSON.
class JsonObject {
public:
    JsonObject &raw(const std::string &key, const std::string &json)
    {
        m_text += (m_text.empty() ? "" : ",") + jsonString(key) + ":" + json;
        return *this;
    }
    JsonObject &str(const std::string &key, const std::string &v) { return raw(key, jsonString(v)); }
    JsonObject &num(const std::string &key, double v) { return raw(key, jsonNumber(v)); }
    JsonObject &boolean(const std::string &key, bool v) { return raw(key, v ? "true" : "false"); }
    std::string dump() const { return "{" + m_text + "}"; }

private:
    std::string m_text;
};

} // namespace beamscope::worker
