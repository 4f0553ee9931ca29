#pragma once
// Runs body(i) for every i in [0, n) on up to `threads` threads, this one included, each index
// exactly once, handing out indices one at a time so that uneven items balance. Results stay the
// same for any number of threads as long as body(i) writes only what belongs to i. The first
// exception a body throws is rethrown here once every thread has stopped.
//
// The other threads are the process's workers (WorkerPool), started on first use and kept: the
// search calls this once per few beam states, and a thread started per call cost a lens_blur search
// a fifth of its time in the kernel (each new thread's allocator heap faulting its pages in afresh).
// A body may call parallelFor again; the inner call runs on the threads free at that moment and
// always on its caller's.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace beamscope {

// The threads to use when a caller asks for 0 (one per core).
inline int defaultThreadCount() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

namespace detail {
// Runs `work` on this thread and, at once, on up to `helpers` worker threads that are free; returns
// when every copy has returned. `work` must not throw, and must be safe to run on any number of
// threads (a copy that starts after the work is done returns at once).
void runOnWorkers(size_t helpers, const std::function<void()> &work);
} // namespace detail

template <typename Body>
void parallelFor(size_t n, int threads, Body &&body)
{
    const size_t useful = std::min(n, static_cast<size_t>(std::max(1, threads)));
    if (useful <= 1) {
        for (size_t i = 0; i < n; i++)
            body(i);
        return;
    }
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    std::mutex failureLock;
    const std::function<void()> work = [&] {
        for (size_t i = next++; i < n; i = next++) {
            try {
                body(i);
            } catch (...) {
                const std::lock_guard lock(failureLock);
                if (!failure)
                    failure = std::current_exception();
                next = n; // the others stop at their next index
            }
        }
    };
    detail::runOnWorkers(useful - 1, work);
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace beamscope
