#pragma once
// Runs body(i) for every i in [0, n) on up to `threads` threads, this one included, each index
// exactly once, handing out indices one at a time so that uneven items balance. Results stay the
// same for any number of threads as long as body(i) writes only what belongs to i. The first
// exception a body throws is rethrown here once every thread has stopped.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace beamscope {

// The threads to use when a caller asks for 0 (one per core).
inline int defaultThreadCount() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

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
    const auto work = [&] {
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
    std::vector<std::thread> workers;
    workers.reserve(useful - 1);
    for (size_t t = 1; t < useful; t++)
        workers.emplace_back(work);
    work();
    for (std::thread &w : workers)
        w.join();
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace beamscope
