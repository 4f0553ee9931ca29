#pragma once
// Background work whose result matters only while it is the newest request.
//
// The habit comes from KDAB's hotspot: each job carries a generation number and
// a QPointer to its receiver, and delivers through a queued call on the GUI
// thread. A result that arrives after the receiver was destroyed, or after a
// newer request was started (the user clicked another file), is dropped there,
// so a stale result never lands in a view that moved on.

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

#include <memory>
#include <utility>

namespace beamscope::ui {

class LatestJob {
public:
    // Runs work() on the global thread pool; deliver(result) runs later on the
    // GUI thread if receiver still exists and no newer start() or cancel() came.
    template <typename Work, typename Deliver>
    void start(QObject *receiver, Work work, Deliver deliver)
    {
        Q_ASSERT(QThread::currentThread() == QCoreApplication::instance()->thread());
        const quint64 generation = ++m_state->generation;
        m_state->pending = true;
        auto state = m_state;
        QPointer<QObject> guard(receiver);
        auto future = QtConcurrent::run(
            [state, guard, generation, work = std::move(work), deliver = std::move(deliver)]() mutable {
                auto result = work();
                QCoreApplication *app = QCoreApplication::instance();
                if (!app)
                    return;
                // Delivered through the application object (which outlives every view),
                // so the receiver is checked on the GUI thread rather than here.
                QMetaObject::invokeMethod(
                    app,
                    [state, guard, generation, deliver = std::move(deliver), result = std::move(result)]() mutable {
                        if (!guard || state->generation != generation)
                            return;
                        state->pending = false;
                        deliver(std::move(result));
                    },
                    Qt::QueuedConnection);
            });
        Q_UNUSED(future);
    }

    // Drops whatever is in flight.
    void cancel()
    {
        ++m_state->generation;
        m_state->pending = false;
    }

    // True from start() until its result is delivered (or dropped by cancel()).
    bool pending() const { return m_state->pending; }

private:
    // Shared with the jobs in flight; read and written on the GUI thread only.
    struct State {
        quint64 generation = 0;
        bool pending = false;
    };
    std::shared_ptr<State> m_state = std::make_shared<State>();
};

} // namespace beamscope::ui
