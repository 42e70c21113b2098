#pragma once
// One run of a user's command as a child process: forked, pinned, stopped before exec so that the
// parent can open counters on it, then continued; waited for with a timeout.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"

namespace nf::engine {

struct ProcessSpec {
    std::vector<std::string> argv;  // argv[0] is looked up in PATH; with `shell`, {"/bin/sh", "-c", text}
    int cpu = -1;                   // pinned here before exec; -1 = not pinned
    double timeout = 0;             // seconds; 0 = none
    // "NAME=value" entries set in the command's environment, each in place of an inherited
    // variable of that name; every other variable is inherited as it is.
    std::vector<std::string> environment{};
};

struct ProcessResult {
    bool started = false;             // exec succeeded
    bool timedOut = false;            // killed after `timeout`
    bool stopped = false;             // killed because a stop was requested
    int exitStatus = -1;              // exit code, or 128 + signal
    double wallSeconds = 0;           // from SIGCONT to exit (CLOCK_MONOTONIC)
    std::string output;               // stdout, its first kCaptureLimit bytes
    std::string errors;               // stderr, likewise
    std::uint64_t outputDropped = 0;  // bytes past the limit, read and thrown away
    std::uint64_t errorsDropped = 0;
    std::string failure;  // why it did not start ("nosuch: command not found")
};

// What is kept of each of a command's output streams; the rest is read (so the command never
// blocks on a full pipe) and counted, not kept: `yes` must not fill the memory.
inline constexpr std::size_t kCaptureLimit = 4U << 20;

// Hooks called while the child is stopped before exec (attach counters) and once it has exited
// (read them). `attach` gets the child's pid; an error from it kills the child.
struct ProcessHooks {
    std::function<Result<void>(pid_t)> attach;
    std::function<void()> exited;
    std::function<bool()> stopRequested;
};

// The command runs as the init of a PID namespace of its own (clone(CLONE_NEWPID), so this needs
// CAP_SYS_ADMIN), with PR_SET_PDEATHSIG SIGKILL: when it exits, is killed (timeout, stop) or
// noisefloor dies, even by SIGKILL, the kernel kills every process it started, grandchildren
// included. (As an init it ignores signals it has no handler for when they come from inside its
// namespace, e.g. its own `kill $$`.) In the child only async-signal-safe calls: dup2 of the
// output pipes, sched_setaffinity, the default SIGXFSZ, a read of the parent's go byte, execve
// (the program is looked up in PATH and the environment made before the clone), and _exit(127)
// after a failure (its errno goes to the parent through a close-on-exec pipe). The parent waits for
// the child to be ready, runs `attach`, sends the go byte and reads the output while it waits for
// the exit, polling a pidfd so that the timeout and a stop request end the namespace with SIGKILL.
Result<ProcessResult> runProcess(const ProcessSpec& spec, const ProcessHooks& hooks);

// Runs a shell snippet (prepare/cleanup) to completion; its failure is an Error naming it.
Result<void> runShell(const std::string& what, const std::string& text, double timeout);

}  // namespace nf::engine
