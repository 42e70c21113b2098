#include "engine/run/command_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <ctime>

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

std::string readAll(int fd)
{
    std::string out;
    if (lseek(fd, 0, SEEK_SET) < 0) {
        return out;
    }
    char buffer[4096];
    for (;;) {
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
}

int statusCode(int status)
{
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

// The child: nothing here may allocate or take a lock (the parent may be multi-threaded).
// The command gets the signal mask of a fresh process (noisefloor blocks SIGINT and SIGTERM in
// its threads to take them in one watcher), and dies with the thread that forked it, so that a
// noisefloor killed with SIGKILL does not leave it running.
[[noreturn]] void child(char* const* argv, int out, int err, int report, const cpu_set_t* cpus, pid_t parent)
{
    sigset_t none;
    sigemptyset(&none);
    (void)sigprocmask(SIG_SETMASK, &none, nullptr);  // NOLINT(concurrency-mt-unsafe): the forked child has one thread
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {  // the parent died before prctl
        _exit(127);
    }
    if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) {
        const int e = errno;
        (void)!write(report, &e, sizeof e);
        _exit(127);
    }
    if (cpus != nullptr && sched_setaffinity(0, sizeof(cpu_set_t), cpus) != 0) {
        const int e = errno;
        (void)!write(report, &e, sizeof e);
        _exit(127);
    }
    (void)raise(SIGSTOP);
    execv(argv[0], argv);
    const int e = errno;
    (void)!write(report, &e, sizeof e);
    _exit(127);
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

// Waits for the child's exit; false when it had to be killed (timeout or stop).
int waitExit(pid_t pid, double timeout, const ProcessHooks& hooks, ProcessResult& r, double start)
{
    Fd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
    for (;;) {
        int status = 0;
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            return status;
        }
        const double now = monotonicSeconds();
        const bool late = timeout > 0 && now - start >= timeout;
        const bool stop = hooks.stopRequested && hooks.stopRequested();
        if (late || stop) {
            kill(pid, SIGKILL);
            r.timedOut = late;
            r.stopped = stop && !late;
            waitpid(pid, &status, 0);
            return status;
        }
        double slice = 0.1;
        if (timeout > 0) {
            slice = std::min(slice, timeout - (now - start));
        }
        if (pidfd.get() >= 0) {
            pollfd p{pidfd.get(), POLLIN, 0};
            poll(&p, 1, std::max(1, static_cast<int>(slice * 1000)));
        } else {
            usleep(1000);
        }
    }
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
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (spec.cpu >= 0) {
        CPU_SET(spec.cpu, &cpus);
    }
    Fd out(memfd_create("nf-stdout", MFD_CLOEXEC));
    Fd err(memfd_create("nf-stderr", MFD_CLOEXEC));
    int pipeFds[2] = {-1, -1};
    if (out.get() < 0 || err.get() < 0 || pipe2(pipeFds, O_CLOEXEC) != 0) {
        return Error::fromErrno("cannot set up the command's output");
    }
    Fd reportRead(pipeFds[0]);
    Fd reportWrite(pipeFds[1]);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        return Error::fromErrno("fork");
    }
    if (pid == 0) {
        child(argv.data(), out.get(), err.get(), reportWrite.get(), spec.cpu >= 0 ? &cpus : nullptr, parent);
    }
    reportWrite.reset();
    ProcessResult r;
    int status = 0;
    while (waitpid(pid, &status, WUNTRACED) < 0 && errno == EINTR) {
    }
    if (!WIFSTOPPED(status)) {  // it failed before stopping (dup2 or affinity)
        int e = 0;
        r.failure = read(reportRead.get(), &e, sizeof e) == sizeof e ? errnoText(e) : "exited before exec";
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
    kill(pid, SIGCONT);
    status = waitExit(pid, spec.timeout, hooks, r, start);
    r.wallSeconds = monotonicSeconds() - start;
    if (hooks.exited) {
        hooks.exited();
    }
    int e = 0;
    if (read(reportRead.get(), &e, sizeof e) == sizeof e) {
        r.failure = "execv " + program + ": " + errnoText(e);
    } else {
        r.started = true;
    }
    r.exitStatus = statusCode(status);
    r.output = readAll(out.get());
    r.errors = readAll(err.get());
    return r;
}

Result<void> runShell(const std::string& what, const std::string& text, double timeout)
{
    auto r = runProcess({{"/bin/sh", "-c", text}, -1, timeout}, {});
    if (!r) {
        return r.error();
    }
    if (r->timedOut) {
        return Error{what + " '" + text + "' timed out"};
    }
    if (r->exitStatus != 0) {
        const auto first = r->errors.substr(0, r->errors.find('\n'));
        return Error{what + " '" + text + "' failed with status " + std::to_string(r->exitStatus) +
                     (first.empty() ? "" : ": " + first)};
    }
    return {};
}

}  // namespace nf::engine
