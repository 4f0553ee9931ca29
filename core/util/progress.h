#pragma once
// The small interface long-running core work reports through. Core never sees
// Qt: the GUI adapts this to signals, the CLI prints to stderr, tests count calls.

#include <atomic>
#include <string_view>

namespace beamscope {

class Progress {
public:
    virtual ~Progress() = default;

    // fraction in [0, 1]; message says what is being done now.
    virtual void report(double fraction, std::string_view message) = 0;

    // Polled by the work at safe points; when true the work stops early and
    // says so in its result (never by throwing through the caller).
    virtual bool cancelled() const = 0;
};

// A Progress that ignores reports and is cancelled only through cancel().
class SilentProgress : public Progress {
public:
    void report(double, std::string_view) override {}
    bool cancelled() const override { return m_cancelled.load(std::memory_order_relaxed); }
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled{false};
};

} // namespace beamscope
