#include "app/cli/arguments.h"

#include <charconv>

namespace beamscope::cli {

Arguments::Arguments(const std::vector<std::string> &args, std::set<std::string> flags, std::set<std::string> valued)
{
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &arg = args[i];
        if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
            m_positional.push_back(arg);
            continue;
        }
        std::string name = arg.substr(2);
        std::optional<std::string> inlineValue;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        if (flags.count(name)) {
            if (inlineValue) {
                m_error = "option --" + name + " takes no value";
                return;
            }
            m_flags.insert(name);
        } else if (valued.count(name)) {
            if (inlineValue) {
                m_values.emplace_back(name, *inlineValue);
            } else if (i + 1 < args.size()) {
                m_values.emplace_back(name, args[++i]);
            } else {
                m_error = "option --" + name + " needs a value";
                return;
            }
        } else {
            m_error = "unknown option --" + name;
            return;
        }
    }
}

std::optional<std::string> Arguments::value(const std::string &name) const
{
    std::optional<std::string> found;
    for (const auto &[k, v] : m_values)
        if (k == name)
            found = v;
    return found;
}

std::vector<std::string> Arguments::values(const std::string &name) const
{
    std::vector<std::string> found;
    for (const auto &[k, v] : m_values)
        if (k == name)
            found.push_back(v);
    return found;
}

long long Arguments::integer(const std::string &name, long long fallback)
{
    auto text = value(name);
    if (!text)
        return fallback;
    long long result = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), result);
    if (ec != std::errc() || end != text->data() + text->size()) {
        m_error = "--" + name + ": expected an integer, found '" + *text + "'";
        return fallback;
    }
    return result;
}

double Arguments::number(const std::string &name, double fallback)
{
    auto text = value(name);
    if (!text)
        return fallback;
    double result = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), result);
    if (ec != std::errc() || end != text->data() + text->size()) {
        m_error = "--" + name + ": expected a number, found '" + *text + "'";
        return fallback;
    }
    return result;
}

std::vector<std::string> withoutOptions(const std::vector<std::string> &args, const std::set<std::string> &flags,
                                        const std::set<std::string> &valued)
{
    std::vector<std::string> out;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &a = args[i];
        if (a.rfind("--", 0) == 0) {
            const std::string body = a.substr(2);
            const size_t eq = body.find('=');
            const std::string name = body.substr(0, eq);
            if (flags.count(name))
                continue;
            if (valued.count(name)) {
                if (eq == std::string::npos)
                    i++;
                continue;
            }
        }
        out.push_back(a);
    }
    return out;
}

} // namespace beamscope::cli
