#include "engine/run/command_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <string_view>

namespace nf::engine {
namespace {

double monotonicSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A file descriptor closed on scope exit.
class Fd {
public:
    explicit Fd(int fd = -1) : m_fd(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd()
    {
        if (m_fd >= 0) {
            close(m_fd);
        }
    }
    int get() const { return m_fd; }
    void reset()
    {
        if (m_fd >= 0) {
            close(m_fd);
        }
        m_fd = -1;
    }

private:
    int m_fd;
};

// One output stream of the command: read as it comes, the first kCaptureLimit bytes kept.
struct Capture {
    int fd = -1;
    std::string text;
    std::uint64_t dropped = 0;
    bool open = true;

    // Reads what is there now; false at end of file.
    void drain()
    {
        char buffer[65536];
        while (open) {
            const ssize_t n = read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n < 0) {  // EAGAIN: nothing more for now
                return;
            }
            if (n == 0) {
                open = false;
                return;
            }
            const auto got = static_cast<std::size_t>(n);
            const std::size_t keep = std::min(got, kCaptureLimit - std::min(kCaptureLimit, text.size()));
            text.append(buffer, keep);
            dropped += got - keep;
        }
    }
};

int statusCode(int status)
{
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

// The child, init of its own PID namespace: nothing here may allocate or take a lock (the parent
// may be multi-threaded). It gets the signal mask of a fresh process (noisefloor blocks SIGINT and
// SIGTERM in its threads to take them in one watcher) and the default SIGXFSZ (noisefloor ignores
// it), and dies with the thread that made it. `go` is the parent's: its end of file before the go
// byte means the parent died before the prctl took effect.
[[noreturn]] void child(char* const* argv, char* const* envp, int out, int err, int report, int go, int goWrite,
                        const cpu_set_t* cpus)
{
    close(goWrite);
    sigset_t none;
    sigemptyset(&none);
    (void)sigprocmask(SIG_SETMASK, &none, nullptr);  // NOLINT(concurrency-mt-unsafe): the child has one thread
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    (void)sigaction(SIGXFSZ, &dfl, nullptr);
    (void)sigaction(SIGPIPE, &dfl, nullptr);  // ignored by `run --events`, not by what it measures
    auto failed = [report] {
        const int e = errno;
        (void)!write(report, &e, sizeof e);
        _exit(127);
    };
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
        failed();
    }
    if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) {
        failed();
    }
    if (cpus != nullptr && sched_setaffinity(0, sizeof(cpu_set_t), cpus) != 0) {
        failed();
    }
    const int ready = 0;
    (void)!write(report, &ready, sizeof ready);
    char byte = 0;
    ssize_t n = 0;
    do {
        n = read(go, &byte, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) {
        _exit(127);  // the parent is gone, or gave up on us
    }
    close(go);
    execve(argv[0], argv, envp);
    failed();
    _exit(127);
}

// clone(CLONE_NEWPID) with fork's semantics (the child continues on a copy of this stack).
pid_t cloneIntoPidNamespace()
{
    return static_cast<pid_t>(syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, nullptr, nullptr, nullptr, nullptr));
}

// argv[0] as execvp would find it, resolved before fork so that the child only calls execv.
std::string resolveExecutable(const std::string& name)
{
    if (name.find('/') != std::string::npos) {
        return name;
    }
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
        auto end = dirs.find(':', start);
        if (end == std::string::npos) {
            end = dirs.size();
        }
        const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
        std::string candidate = dir + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
        start = end + 1;
    }
    return {};
}

// This process's environment with `set` ("NAME=value") in place of the variables of those names,
// in the order they come, then what `set` adds; the pointers are into environ and `set`.
std::vector<char*> environmentWith(const std::vector<std::string>& set)
{
    const auto name = [](std::string_view entry) { return entry.substr(0, entry.find('=')); };
    std::vector<char*> envp;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string_view entry(*e);
        if (std::ranges::none_of(set, [&](const std::string& s) { return name(s) == name(entry); })) {
            envp.push_back(*e);
        }
    }
    for (const auto& entry : set) {
        envp.push_back(const_cast<char*>(entry.c_str()));  // execve takes char* const*; it does not write
    }
    envp.push_back(nullptr);
    return envp;
}

// Waits for the child's exit, reading its output meanwhile; kills it at the timeout or a stop.
int waitExit(pid_t pid, double timeout, const ProcessHooks& hooks, ProcessResult& r, double start, Capture& out,
             Capture& err)
{
    Fd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
    int status = 0;
    for (;;) {
        out.drain();
        err.drain();
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            break;
        }
        const double now = monotonicSeconds();
        const bool late = timeout > 0 && now - start >= timeout;
        const bool stop = hooks.stopRequested && hooks.stopRequested();
        if (late || stop) {
            kill(pid, SIGKILL);  // the init: the kernel kills its whole namespace
            r.timedOut = late;
            r.stopped = stop && !late;
            waitpid(pid, &status, 0);
            break;
        }
        double slice = 0.1;
        if (timeout > 0) {
            slice = std::min(slice, timeout - (now - start));
        }
        pollfd p[3] = {
            {pidfd.get(), POLLIN, 0}, {out.open ? out.fd : -1, POLLIN, 0}, {err.open ? err.fd : -1, POLLIN, 0}};
        if (pidfd.get() >= 0) {
            poll(p, 3, std::max(1, static_cast<int>(slice * 1000)));
        } else {
            poll(p + 1, 2, 1);
        }
    }
    // The namespace is gone with its init, so every writer of the pipes is: read to their end.
    const double deadline = monotonicSeconds() + 1.0;
    while ((out.open || err.open) && monotonicSeconds() < deadline) {
        out.drain();
        err.drain();
        pollfd p[2] = {{out.open ? out.fd : -1, POLLIN, 0}, {err.open ? err.fd : -1, POLLIN, 0}};
        poll(p, 2, 10);
    }
    return status;
}

}  // namespace

Result<ProcessResult> runProcess(const ProcessSpec& spec, const ProcessHooks& hooks)
{
    if (spec.argv.empty() || spec.argv.front().empty()) {
        return Error{"no command to run"};
    }
    const std::string program = resolveExecutable(spec.argv.front());
    if (program.empty()) {
        ProcessResult r;
        r.failure = spec.argv.front() + ": command not found";
        return r;
    }
    std::vector<char*> argv;
    argv.reserve(spec.argv.size() + 1);
    argv.push_back(const_cast<char*>(program.c_str()));  // execv takes char* const*; it does not write
    for (std::size_t i = 1; i < spec.argv.size(); ++i) {
        argv.push_back(const_cast<char*>(spec.argv[i].c_str()));
    }
    argv.push_back(nullptr);
    const auto envp = environmentWith(spec.environment);
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (spec.cpu >= 0) {
        CPU_SET(spec.cpu, &cpus);
    }
    int outFds[2] = {-1, -1};
    int errFds[2] = {-1, -1};
    int reportFds[2] = {-1, -1};
    int goFds[2] = {-1, -1};
    const bool piped = pipe2(outFds, O_CLOEXEC) == 0 && pipe2(errFds, O_CLOEXEC) == 0 &&
                       pipe2(reportFds, O_CLOEXEC) == 0 && pipe2(goFds, O_CLOEXEC) == 0;
    Fd outRead(outFds[0]);
    Fd outWrite(outFds[1]);
    Fd errRead(errFds[0]);
    Fd errWrite(errFds[1]);
    Fd reportRead(reportFds[0]);
    Fd reportWrite(reportFds[1]);
    Fd goRead(goFds[0]);
    Fd goWrite(goFds[1]);
    if (!piped) {
        return Error::fromErrno("cannot set up the command's output");
    }
    const pid_t pid = cloneIntoPidNamespace();
    if (pid < 0) {
        const int e = errno;
        if (e == EPERM) {
            return Error::fromErrno("cannot run the command in a PID namespace of its own (needs CAP_SYS_ADMIN)", e);
        }
        return Error::fromErrno("clone", e);
    }
    if (pid == 0) {
        child(argv.data(), envp.data(), outWrite.get(), errWrite.get(), reportWrite.get(), goRead.get(), goWrite.get(),
              spec.cpu >= 0 ? &cpus : nullptr);
    }
    reportWrite.reset();
    outWrite.reset();
    errWrite.reset();
    goRead.reset();
    (void)fcntl(outRead.get(), F_SETFL, O_NONBLOCK);
    (void)fcntl(errRead.get(), F_SETFL, O_NONBLOCK);
    ProcessResult r;
    int status = 0;
    int e = -1;
    ssize_t got = 0;
    do {
        got = read(reportRead.get(), &e, sizeof e);
    } while (got < 0 && errno == EINTR);
    if (got != sizeof e || e != 0) {  // it failed before it was ready (prctl, dup2 or affinity)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        r.failure = got == sizeof e ? errnoText(e) : "exited before exec";
        r.exitStatus = statusCode(status);
        return r;
    }
    if (hooks.attach) {
        if (auto attached = hooks.attach(pid); !attached) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return attached.error();
        }
    }
    const double start = monotonicSeconds();
    const char go = 1;
    (void)!write(goWrite.get(), &go, 1);
    Capture out;
    Capture err;
    out.fd = outRead.get();
    err.fd = errRead.get();
    status = waitExit(pid, spec.timeout, hooks, r, start, out, err);
    r.wallSeconds = monotonicSeconds() - start;
    if (hooks.exited) {
        hooks.exited();
    }
    if (read(reportRead.get(), &e, sizeof e) == sizeof e) {
        r.failure = "execv " + program + ": " + errnoText(e);
    } else {
        r.started = true;
    }
    r.exitStatus = statusCode(status);
    r.output = std::move(out.text);
    r.errors = std::move(err.text);
    r.outputDropped = out.dropped;
    r.errorsDropped = err.dropped;
    return r;
}

Result<void> runShell(const std::string& what, const std::string& text, double timeout)
{
    auto r = NF_TRY(runProcess({{"/bin/sh", "-c", text}, -1, timeout}, {}));
    if (r.timedOut) {
        return Error{what + " '" + text + "' timed out"};
    }
    if (r.exitStatus != 0) {
        const auto first = r.errors.substr(0, r.errors.find('\n'));
        return Error{what + " '" + text + "' failed with status " + std::to_string(r.exitStatus) +
                     (first.empty() ? "" : ": " + first)};
    }
    return {};
}

}  // namespace nf::engine
