#pragma once
// Progress of a long command on stderr, cancelled by Ctrl-C while an
// InterruptScope is alive: the work stops at its next safe point and says so,
// instead of dying half-way. Three styles: throttled lines with a percentage
// (at most two a second, the final one always), every message as a line (for
// commands whose reports are a few named steps), or one line rewritten in
// place (a terminal's progress bar).

#include "core/util/progress.h"

#include <atomic>
#include <chrono>
#include <string>

namespace beamscope::cli {

// SIGINT sets a flag instead of killing the process, until destroyed.
class InterruptScope {
public:
    InterruptScope();
    ~InterruptScope();
    InterruptScope(const InterruptScope &) = delete;
    InterruptScope &operator=(const InterruptScope &) = delete;
    static bool interrupted();

private:
    void (*m_previous)(int) = nullptr;
};

class StderrProgress : public Progress {
public:
    enum class Style { Throttled, EveryMessage, SameLine };
    explicit StderrProgress(std::string prefix, bool quiet = false, Style style = Style::Throttled)
        : m_prefix(std::move(prefix)), m_quiet(quiet), m_style(style)
    {}
    void report(double fraction, std::string_view message) override;
    bool cancelled() const override { return InterruptScope::interrupted(); }

private:
    std::string m_prefix;
    bool m_quiet;
    Style m_style;
    std::chrono::steady_clock::time_point m_last{};
};

} // namespace beamscope::cli
