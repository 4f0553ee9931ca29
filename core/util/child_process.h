#pragma once
// Runs a program in a child process (posix_spawn, no shell, no Qt) with a
// time limit, capturing stdout and stderr. The child gets its own process
// group, so a hung child and anything it started are killed together.

#include <string>
#include <vector>

namespace beamscope {

class Progress;

struct ChildResult {
    bool started = false;
    std::string startError; // why the program could not be started
    bool timedOut = false;  // killed because the limit passed
    bool cancelled = false; // killed because progress->cancelled()
    bool signaled = false;  // ended by a signal (a crash, or our kill)
    int signal = 0;
    int exitCode = -1;    // when it exited normally
    std::string out, err; // captured output (each capped; err keeps its tail)
    double seconds = 0;
};

// timeoutSeconds <= 0: no limit. progress (optional) is polled for cancellation.
ChildResult runChild(const std::vector<std::string> &argv, double timeoutSeconds, const Progress *progress = nullptr);

// "SIGSEGV", "SIGABRT", ... or "signal N".
std::string signalName(int signal);

} // namespace beamscope
