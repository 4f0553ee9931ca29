#include "app/cli/stderr_progress.h"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

namespace beamscope::cli {

namespace {
std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted.store(true); }
} // namespace

InterruptScope::InterruptScope()
{
    g_interrupted.store(false);
    m_previous = std::signal(SIGINT, onInterrupt);
}

InterruptScope::~InterruptScope() { std::signal(SIGINT, m_previous); }

bool InterruptScope::interrupted() { return g_interrupted.load(); }

void StderrProgress::report(double fraction, std::string_view message)
{
    if (m_quiet)
        return;
    if (m_style == Style::EveryMessage) {
        std::cerr << m_prefix << message << "\n";
        return;
    }
    if (m_style == Style::SameLine) {
        std::fprintf(stderr, "\r%s[%3d%%] %-60.60s", m_prefix.c_str(), static_cast<int>(fraction * 100),
                     std::string(message).c_str());
        if (fraction >= 1.0)
            std::fprintf(stderr, "\n");
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (fraction < 1.0 && now - m_last < std::chrono::milliseconds(500))
        return;
    m_last = now;
    char pct[16];
    std::snprintf(pct, sizeof pct, "%5.1f%%", 100.0 * fraction);
    std::cerr << m_prefix << pct << " " << message << "\n";
}

} // namespace beamscope::cli
