#include "core/util/parallel_for.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <vector>

namespace beamscope::detail {

namespace {

// Threads kept for the life of the process, each waiting for a job to help with. A job asks for a
// number of helpers (its tickets); a free worker takes one ticket and runs the job's work once.
// Tickets nobody took by the time the caller's own copy of the work returns are withdrawn: every
// index was handed out by then, so a late helper would find nothing to do.
class WorkerPool {
public:
    static WorkerPool &instance()
    {
        static WorkerPool pool;
        return pool;
    }

    void run(size_t helpers, const std::function<void()> &work)
    {
        Job job{&work, helpers, 0};
        {
            const std::lock_guard lock(m_mutex);
            while (m_threads.size() < helpers)
                m_threads.emplace_back([this] { serve(); });
            m_jobs.push_back(&job);
        }
        m_wake.notify_all();
        work();
        std::unique_lock lock(m_mutex);
        if (job.tickets > 0)
            m_jobs.erase(std::find(m_jobs.begin(), m_jobs.end(), &job));
        m_done.wait(lock, [&] { return job.running == 0; });
    }

    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

private:
    struct Job {
        const std::function<void()> *work;
        size_t tickets; // helpers still wanted
        size_t running; // helpers working on it now
    };

    WorkerPool() = default;
    ~WorkerPool()
    {
        {
            const std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_all();
        for (std::thread &t : m_threads)
            t.join();
    }

    void serve()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return m_stopping || !m_jobs.empty(); });
            if (m_stopping)
                return;
            Job *job = m_jobs.front();
            if (--job->tickets == 0)
                m_jobs.pop_front();
            job->running++;
            lock.unlock();
            (*job->work)();
            lock.lock();
            if (--job->running == 0)
                m_done.notify_all();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::deque<Job *> m_jobs; // jobs with tickets left, oldest first
    std::vector<std::thread> m_threads;
    bool m_stopping = false;
};

} // namespace

void runOnWorkers(size_t helpers, const std::function<void()> &work)
{
    if (helpers == 0) {
        work();
        return;
    }
    WorkerPool::instance().run(helpers, work);
}

} // namespace beamscope::detail
