#pragma once
// Results a worker produces faster than a view can draw them (an epoch every
// few milliseconds): the worker pushes, the GUI thread takes everything that
// arrived since its last look, on a timer, and draws it once. One queued call
// per result would flood the event loop, so clicks (Cancel) wait behind
// thousands of redraws.

#include <mutex>
#include <utility>
#include <vector>

namespace beamscope::ui {

template <typename T>
class BatchedInbox {
public:
    void push(T item)
    {
        std::lock_guard lock(m_mutex);
        m_items.push_back(std::move(item));
    }

    // Everything pushed since the last take, oldest first.
    std::vector<T> take()
    {
        std::lock_guard lock(m_mutex);
        std::vector<T> out;
        out.swap(m_items);
        return out;
    }

private:
    std::mutex m_mutex;
    std::vector<T> m_items;
};

} // namespace beamscope::ui
