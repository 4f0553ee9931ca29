#pragma once
// Adapts core's Progress interface to a long job running on a worker thread:
// report() is forwarded to the GUI thread through a queued call (at most ~20
// times a second, the final 100% always), cancelled() reads an atomic flag the
// GUI sets. The receiver is held by QPointer and every delivery also asks the
// job's `isCurrent` check, so reports of a job that was replaced or whose view
// is gone are dropped on the GUI thread instead of landing in the wrong place.

#include "core/util/progress.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>

namespace beamscope::ui {

// Runs f on the GUI thread later, unless the guarded receiver was destroyed by
// then. Make the guard on the GUI thread (before the work starts) and copy it.
template <typename F>
void postToGui(QPointer<QObject> guard, F f)
{
    QCoreApplication *app = QCoreApplication::instance();
    if (!app)
        return;
    // Through the application object, which outlives every view, so the guard
    // is checked on the GUI thread rather than on the worker.
    QMetaObject::invokeMethod(
        app,
        [guard, f = std::move(f)]() mutable {
            if (guard)
                f();
        },
        Qt::QueuedConnection);
}

class RelayProgress : public Progress {
public:
    // onReport runs on the GUI thread with (fraction, message).
    RelayProgress(QObject *receiver, std::function<bool()> isCurrent,
                  std::function<void(double, const QString &)> onReport)
        : m_receiver(receiver), m_isCurrent(std::move(isCurrent)), m_onReport(std::move(onReport))
    {}

    void report(double fraction, std::string_view message) override
    {
        const auto now = std::chrono::steady_clock::now();
        {
            std::lock_guard lock(m_mutex);
            if (fraction < 1.0 && now - m_last < std::chrono::milliseconds(50))
                return;
            m_last = now;
        }
        postToGui(m_receiver, [isCurrent = m_isCurrent, onReport = m_onReport, fraction,
                               text = QString::fromUtf8(message.data(), static_cast<qsizetype>(message.size()))] {
            if (isCurrent())
                onReport(fraction, text);
        });
    }

    bool cancelled() const override { return m_cancel.load(std::memory_order_relaxed); }
    void cancel() { m_cancel.store(true, std::memory_order_relaxed); }

private:
    QPointer<QObject> m_receiver;
    std::function<bool()> m_isCurrent;
    std::function<void(double, const QString &)> m_onReport;
    std::atomic<bool> m_cancel{false};
    std::mutex m_mutex;
    std::chrono::steady_clock::time_point m_last{};
};

} // namespace beamscope::ui
