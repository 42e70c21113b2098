#pragma once
// One run of a user's command as a child process: forked, pinned, stopped before exec so that the
// parent can open counters on it, then continued; waited for with a timeout.

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "probes/result.h"

namespace nf::engine {

struct ProcessSpec {
    std::vector<std::string> argv;  // argv[0] is looked up in PATH; with `shell`, {"/bin/sh", "-c", text}
    int cpu = -1;                   // pinned here before exec; -1 = not pinned
    double timeout = 0;             // seconds; 0 = none
};

struct ProcessResult {
    bool started = false;    // exec succeeded
    bool timedOut = false;   // killed after `timeout`
    bool stopped = false;    // killed because a stop was requested
    int exitStatus = -1;     // exit code, or 128 + signal
    double wallSeconds = 0;  // from SIGCONT to exit (CLOCK_MONOTONIC)
    std::string output;      // stdout
    std::string errors;      // stderr
    std::string failure;     // why it did not start ("nosuch: command not found")
};

// Hooks called while the child is stopped before exec (attach counters) and once it has exited
// (read them). `attach` gets the child's pid; an error from it kills the child.
struct ProcessHooks {
    std::function<Result<void>(pid_t)> attach;
    std::function<void()> exited;
    std::function<bool()> stopRequested;
};

// Fork; in the child only async-signal-safe calls: dup2 of the output files, sched_setaffinity,
// raise(SIGSTOP), execv (the program is looked up in PATH before fork), and _exit(127) after a failed exec (its errno
// goes to the parent through a close-on-exec pipe). The parent waits for the stop, runs `attach`, sends SIGCONT and
// waits for the exit, polling a pidfd so that the timeout and a stop request end the child with SIGKILL.
Result<ProcessResult> runProcess(const ProcessSpec& spec, const ProcessHooks& hooks);

// Runs a shell snippet (prepare/cleanup) to completion; its failure is an Error naming it.
Result<void> runShell(const std::string& what, const std::string& text, double timeout);

}  // namespace nf::engine
