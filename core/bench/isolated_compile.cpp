#include "core/bench/isolated_compile.h"

#include "core/util/child_process.h"
#include "core/util/progress.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace beamscope::bench {

namespace {

using Clock = std::chrono::steady_clock;

struct Child {
    size_t request = 0;
    pid_t pid = -1;
    int readFd = -1;
    std::string report;
    Clock::time_point started;
};

void writeAll(int fd, const std::string &text)
{
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += static_cast<size_t>(n);
    }
}

// In the child: compile, report, and leave without running the parent's
// atexit handlers or destructors (they belong to the parent's copy).
[[noreturn]] void compileInChild(const CompileRequest &request, const CompileOptions &options, int fd)
{
    ::setpgid(0, 0); // the C compiler it starts is killed with it
    CompileOptions one = options;
    one.jobs = 1;
    const CompiledLibrary result = compilePipeline(request, one);
    writeAll(fd, result.toJson().dump());
    ::close(fd);
    ::_exit(0);
}

CompiledLibrary failed(const CompileRequest &request, std::string error)
{
    CompiledLibrary c;
    c.ok = false;
    c.error = std::move(error);
    c.schedule = request.schedule.label;
    c.target = request.target.to_string();
    return c;
}

void drain(Child &child)
{
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(child.readFd, buf, sizeof buf);
        if (n > 0) {
            child.report.append(buf, static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return; // EOF or EAGAIN
    }
}

CompiledLibrary finish(const CompileRequest &request, Child &child, int status, double seconds)
{
    drain(child);
    ::close(child.readFd);
    child.readFd = -1;
    if (WIFSIGNALED(status))
        return failed(request, "the compiler process died from " + signalName(WTERMSIG(status)) + " after " +
                                   std::to_string(static_cast<int>(seconds)) + " s");
    const JsonParseResult parsed = parseJson(child.report);
    if (!parsed.value || WEXITSTATUS(status) != 0)
        return failed(request, "the compiler process exited with status " + std::to_string(WEXITSTATUS(status)) +
                                   " without a result");
    return CompiledLibrary::fromJson(*parsed.value);
}

} // namespace

std::vector<CompiledLibrary> compileIsolated(const std::vector<CompileRequest> &requests,
                                             const IsolatedCompileOptions &options, Progress *progress)
{
    std::vector<CompiledLibrary> out(requests.size());
    const size_t width = options.compile.jobs > 0 ? static_cast<size_t>(options.compile.jobs)
                                                  : std::max(1u, std::thread::hardware_concurrency());
    std::vector<Child> running;
    size_t next = 0, done = 0;
    while (done < requests.size()) {
        const bool cancelled = progress && progress->cancelled();
        while (!cancelled && running.size() < width && next < requests.size()) {
            int fds[2];
            if (::pipe2(fds, O_CLOEXEC) != 0) {
                out[next] = failed(requests[next], "cannot create a pipe for the compiler process");
                next++, done++;
                continue;
            }
            std::fflush(nullptr); // the child must not flush the parent's buffered output again
            const pid_t pid = ::fork();
            if (pid == 0) {
                ::close(fds[0]);
                compileInChild(requests[next], options.compile, fds[1]);
            }
            ::close(fds[1]);
            if (pid < 0) {
                ::close(fds[0]);
                out[next] = failed(requests[next], "cannot fork a compiler process");
                next++, done++;
                continue;
            }
            ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
            running.push_back({next, pid, fds[0], {}, Clock::now()});
            next++;
        }
        if (cancelled && next < requests.size()) {
            for (; next < requests.size(); next++, done++)
                out[next] = failed(requests[next], "cancelled before compiling");
        }
        if (running.empty())
            continue;

        std::vector<pollfd> fds;
        for (const Child &c : running)
            fds.push_back({c.readFd, POLLIN, 0});
        ::poll(fds.data(), fds.size(), 50);
        for (auto it = running.begin(); it != running.end();) {
            drain(*it);
            const double seconds = std::chrono::duration<double>(Clock::now() - it->started).count();
            int status = 0;
            const pid_t w = ::waitpid(it->pid, &status, WNOHANG);
            if (w == it->pid) {
                out[it->request] = finish(requests[it->request], *it, status, seconds);
            } else if (cancelled || (options.timeoutSeconds > 0 && seconds > options.timeoutSeconds)) {
                ::kill(-it->pid, SIGKILL);
                ::kill(it->pid, SIGKILL);
                ::waitpid(it->pid, &status, 0);
                ::close(it->readFd);
                CompiledLibrary c =
                    failed(requests[it->request],
                           cancelled ? std::string("cancelled while compiling")
                                     : "compile timeout: killed after " +
                                           std::to_string(static_cast<int>(options.timeoutSeconds)) + " s");
                c.timedOut = !cancelled;
                c.compileSeconds = seconds;
                out[it->request] = c;
            } else {
                ++it;
                continue;
            }
            done++;
            if (progress)
                progress->report(static_cast<double>(done) / static_cast<double>(requests.size()),
                                 "compiled " + std::to_string(done) + " of " + std::to_string(requests.size()));
            it = running.erase(it);
        }
    }
    return out;
}

} // namespace beamscope::bench
