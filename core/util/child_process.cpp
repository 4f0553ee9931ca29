#include "core/util/child_process.h"

#include "core/util/progress.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace beamscope {

namespace {

constexpr size_t kMaxCapture = 4 << 20;

// Keeps the first kMaxCapture bytes of stdout (the report comes first) and the
// last kMaxCapture bytes of stderr (the error comes last).
void append(std::string &to, const char *data, size_t n, bool keepTail)
{
    to.append(data, n);
    if (to.size() > kMaxCapture) {
        if (keepTail)
            to.erase(0, to.size() - kMaxCapture);
        else
            to.resize(kMaxCapture);
    }
}

struct Pipe {
    int fd[2] = {-1, -1};
    bool open() { return pipe2(fd, O_CLOEXEC) == 0; } // not inherited by children spawned on other threads
    void closeEnd(int i)
    {
        if (fd[i] >= 0)
            ::close(fd[i]);
        fd[i] = -1;
    }
    ~Pipe()
    {
        closeEnd(0);
        closeEnd(1);
    }
};

} // namespace

std::string signalName(int signal)
{
    switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGXCPU: return "SIGXCPU";
    default: return "signal " + std::to_string(signal);
    }
}

ChildResult runChild(const std::vector<std::string> &argv, double timeoutSeconds, const Progress *progress)
{
    ChildResult r;
    if (argv.empty()) {
        r.startError = "no program given";
        return r;
    }
    Pipe out, err;
    if (!out.open() || !err.open()) {
        r.startError = std::string("cannot create pipes: ") + std::strerror(errno);
        return r;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);

    std::vector<char *> cargv;
    for (const auto &a : argv)
        cargv.push_back(const_cast<char *>(a.c_str()));
    cargv.push_back(nullptr);

    const auto start = std::chrono::steady_clock::now();
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, cargv[0], &actions, &attr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        r.startError = "cannot start " + argv[0] + ": " + std::strerror(rc);
        return r;
    }
    r.started = true;
    out.closeEnd(1);
    err.closeEnd(1);

    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    auto killGroup = [&] {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
    };

    bool killed = false;
    char buf[65536];
    while (out.fd[0] >= 0 || err.fd[0] >= 0) {
        pollfd fds[2];
        nfds_t count = 0;
        if (out.fd[0] >= 0)
            fds[count++] = {out.fd[0], POLLIN, 0};
        if (err.fd[0] >= 0)
            fds[count++] = {err.fd[0], POLLIN, 0};
        const int ready = ::poll(fds, count, 100);
        if (ready < 0 && errno != EINTR)
            break;
        for (nfds_t i = 0; ready > 0 && i < count; ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const bool isOut = fds[i].fd == out.fd[0];
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0)
                append(isOut ? r.out : r.err, buf, static_cast<size_t>(n), !isOut);
            else if (n == 0 || errno != EINTR)
                (isOut ? out : err).closeEnd(0);
        }
        if (killed)
            continue;
        if (timeoutSeconds > 0 && elapsed() > timeoutSeconds) {
            r.timedOut = killed = true;
            killGroup();
        } else if (progress && progress->cancelled()) {
            r.cancelled = killed = true;
            killGroup();
        }
    }
    // Output closed; the child may still be running (it closed its streams, or
    // handed them on): keep enforcing the limit while waiting for it.
    int status = 0;
    for (;;) {
        const pid_t w = ::waitpid(pid, &status, killed ? 0 : WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            break;
        if (!killed && timeoutSeconds > 0 && elapsed() > timeoutSeconds) {
            r.timedOut = killed = true;
            killGroup();
        } else if (!killed && progress && progress->cancelled()) {
            r.cancelled = killed = true;
            killGroup();
        } else if (!killed) {
            ::usleep(20000);
        }
    }
    r.seconds = elapsed();
    if (WIFSIGNALED(status)) {
        r.signaled = true;
        r.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        r.exitCode = WEXITSTATUS(status);
    }
    return r;
}

} // namespace beamscope
