#pragma once
// Minimal option parsing shared by the commands: positional arguments,
// boolean flags (--json) and valued options (--epochs 5 or --epochs=5).

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace beamscope::cli {

class Arguments {
public:
    // flags: options without a value; valued: options that take one (may repeat).
    Arguments(const std::vector<std::string> &args, std::set<std::string> flags, std::set<std::string> valued);

    bool ok() const { return m_error.empty(); }
    const std::string &error() const { return m_error; }

    const std::vector<std::string> &positional() const { return m_positional; }
    bool flag(const std::string &name) const { return m_flags.count(name) > 0; }
    std::optional<std::string> value(const std::string &name) const; // last occurrence
    std::vector<std::string> values(const std::string &name) const;  // every occurrence

    // Numeric option helpers: on a malformed number they set error() and return the fallback.
    long long integer(const std::string &name, long long fallback);
    double number(const std::string &name, double fallback);

private:
    std::vector<std::string> m_positional;
    std::set<std::string> m_flags;
    std::vector<std::pair<std::string, std::string>> m_values;
    std::string m_error;
};

// The raw arguments without the named options (flags alone, valued ones with
// their value, "--name value" or "--name=value"): what a command passes on to
// the jobs it submits.
std::vector<std::string> withoutOptions(const std::vector<std::string> &args, const std::set<std::string> &flags,
                                        const std::set<std::string> &valued);

} // namespace beamscope::cli
