#include "engine/run/cpu_claim.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

#include "engine/run/scheduler.h"

namespace nf::engine {

namespace {

void addCpuParam(const ParamSet& params, const char* name, std::vector<int>& out)
{
    const auto& all = params.all();
    const auto it = all.find(name);
    if (it == all.end()) {
        return;
    }
    int cpu = -1;
    const auto* end = it->second.data() + it->second.size();
    if (auto [p, ec] = std::from_chars(it->second.data(), end, cpu); ec == std::errc{} && p == end && cpu >= 0) {
        out.push_back(cpu);
    }
}

// The key's name: the tool's own for the system lock directory; one of its own for any other
// directory (tests), so that they never meet real runs.
std::string keyName(const std::string& dir, const std::string& what)
{
    const std::string scope = dir == kOwnerLockDir ? "" : std::to_string(std::hash<std::string>{}(dir)) + "/";
    return "noisefloor/" + scope + "cpu/" + what;
}

socklen_t abstractAddress(const std::string& name, sockaddr_un& addr)
{
    addr = {};
    addr.sun_family = AF_UNIX;
    const std::size_t n = std::min(name.size(), sizeof addr.sun_path - 1);
    std::memcpy(addr.sun_path + 1, name.data(), n);  // sun_path[0] == 0: the abstract namespace
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

// Binds and listens on `name`; -1 with `err` set when it cannot (EADDRINUSE: another holds it).
int bindKey(const std::string& name, int& err)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        err = errno;
        return -1;
    }
    sockaddr_un addr{};
    const socklen_t len = abstractAddress(name, addr);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), len) != 0 || ::listen(fd, 16) != 0) {
        err = errno;
        ::close(fd);
        return -1;
    }
    return fd;
}

// The pid (as this process sees it; 0 in a PID namespace it cannot see) of whoever listens on `name`.
std::optional<int> keyHolder(const std::string& name)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return std::nullopt;
    }
    sockaddr_un addr{};
    const socklen_t len = abstractAddress(name, addr);
    std::optional<int> pid;
    ucred cred{};
    socklen_t size = sizeof cred;
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), len) == 0 &&
        ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) == 0) {
        pid = cred.pid;
    }
    ::close(fd);
    return pid;
}

// "pid 1234 (noisefloor run into /x/runs.db)", from its command line; what it is, not "pid 0".
std::string describePid(int pid)
{
    if (pid <= 0) {
        return "a process in a PID namespace this one cannot see";
    }
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!cmdline.empty() && cmdline.back() == '\0') {
        cmdline.pop_back();
    }
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.size() > 120) {
        cmdline = cmdline.substr(0, 117) + "...";
    }
    if (cmdline.empty() && !in.is_open()) {
        return "pid " + std::to_string(pid) + " (exited; a process it started still holds the lock)";
    }
    return "pid " + std::to_string(pid) + (cmdline.empty() ? std::string() : " (" + cmdline + ")");
}

// The pid holding a flock on the file at `path`, from /proc/locks (0 when none is found).
int flockHolder(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return 0;
    }
    std::ifstream in("/proc/locks");
    std::string line;
    while (std::getline(in, line)) {
        // "1: FLOCK  ADVISORY  WRITE 1234 00:19:5678 0 EOF"
        std::istringstream fields(line);
        std::string number;
        std::string kind;
        std::string mode;
        std::string access;
        int pid = 0;
        std::string where;
        if (!(fields >> number >> kind >> mode >> access >> pid >> where) || kind != "FLOCK") {
            continue;
        }
        unsigned major = 0;
        unsigned minor = 0;
        unsigned long long inode = 0;
        if (std::sscanf(where.c_str(), "%x:%x:%llu", &major, &minor, &inode) == 3 && inode == st.st_ino &&
            major == ::major(st.st_dev) && minor == ::minor(st.st_dev)) {
            return pid;
        }
    }
    return 0;
}

// The pids of the runs that share CPU `cpu` (their keys "<key>/shared/<pid>" in /proc/net/unix),
// this process left out.
std::vector<int> sharers(const std::string& dir, const std::string& cpu)
{
    const std::string prefix = "@" + keyName(dir, cpu + "/shared/");
    std::vector<int> pids;
    std::ifstream in("/proc/net/unix");
    std::string line;
    while (std::getline(in, line)) {
        const auto at = line.find(prefix);
        if (at == std::string::npos) {
            continue;
        }
        int pid = 0;
        const char* begin = line.data() + at + prefix.size();
        const char* end = line.data() + line.size();
        if (auto [p, ec] = std::from_chars(begin, end, pid); ec == std::errc{} && pid != ::getpid()) {
            if (std::find(pids.begin(), pids.end(), pid) == pids.end()) {
                pids.push_back(pid);
            }
        }
    }
    return pids;
}

}  // namespace

SharerWatch::SharerWatch(std::vector<int> cpus, std::string dir, std::vector<std::pair<int, int>> known)
    : m_cpus(std::move(cpus)), m_dir(std::move(dir)), m_known(std::move(known))
{
}

void SharerWatch::look(int repetition, bool always)
{
    const auto now = std::chrono::steady_clock::now();
    if (m_cpus.empty() || (!always && now - m_looked < std::chrono::milliseconds(250))) {
        return;
    }
    m_looked = now;
    for (const int cpu : m_cpus) {
        for (const int pid : sharers(m_dir, std::to_string(cpu))) {
            if (std::find(m_known.begin(), m_known.end(), std::pair{cpu, pid}) != m_known.end()) {
                continue;
            }
            auto it =
                std::find_if(m_seen.begin(), m_seen.end(), [&](const Seen& s) { return s.cpu == cpu && s.pid == pid; });
            if (it == m_seen.end()) {  // named while it runs: its command line is gone once it ends
                m_seen.push_back({cpu, pid, describePid(pid), repetition, repetition});
            } else {
                it->last = repetition;
            }
        }
    }
}

std::vector<std::string> SharerWatch::warnings() const
{
    std::vector<std::string> lines;
    for (const auto& s : m_seen) {
        const std::string when = s.first == s.last
                                     ? "repetition " + std::to_string(s.first)
                                     : "repetitions " + std::to_string(s.first) + "-" + std::to_string(s.last);
        lines.push_back("CPU " + std::to_string(s.cpu) + " was shared by " + s.who +
                        ", a run that joined it with --share-cpus, during " + when);
    }
    return lines;
}

CpuKey& CpuKey::operator=(CpuKey&& other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

CpuKey::~CpuKey()
{
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

std::string userLockDir()
{
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    const std::string base =
        runtime != nullptr && runtime[0] == '/' ? runtime : "/run/user/" + std::to_string(::getuid());
    return base + "/noisefloor";
}

std::vector<int> measuredCpus(const PreparedExperiment& prepared)
{
    std::vector<int> cpus;
    if (prepared.workload->kind == WorkloadKind::Live) {
        for (const auto& params : prepared.params) {
            const auto host = params.all().find("tx_host");
            if (host == params.all().end() || host->second.empty()) {  // else tx_cpu is the generator host's
                addCpuParam(params, "tx_cpu", cpus);
            }
            addCpuParam(params, "rx_cpu", cpus);
        }
    } else {
        cpus.push_back(prepared.workerCpu);
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

std::vector<std::string> cpusInUse(const std::vector<int>& cpus, const std::string& dir)
{
    std::vector<std::string> out;
    for (const int cpu : cpus) {
        const std::string name = std::to_string(cpu);
        if (const auto pid = keyHolder(keyName(dir, name)); pid && *pid != ::getpid()) {
            out.push_back("CPU " + name + ": " + describePid(*pid));
        }
        for (const int pid : sharers(dir, name)) {
            out.push_back("CPU " + name + ": " + describePid(pid) + ", sharing it (--share-cpus)");
        }
    }
    return out;
}

Result<CpuClaims> claimCpus(const std::vector<int>& cpus, const std::string& description, bool share,
                            const std::string& dir)
{
    CpuClaims claims;
    std::vector<std::pair<int, int>> known;
    for (int cpu : cpus) {
        const std::string name = std::to_string(cpu);
        // The lock file: in `dir`, or for a user who cannot use the system directory, in their own.
        auto attempt = OwnerLock::acquire("cpu", name, description, {{"cpu", name}}, dir);
        const bool denied = !attempt && (attempt.error().errnum == EACCES || attempt.error().errnum == EPERM ||
                                         attempt.error().errnum == EROFS);
        if (denied && dir == kOwnerLockDir) {
            attempt = OwnerLock::acquire("cpu", name, description, {{"cpu", name}}, userLockDir());
        }
        if (!attempt && !denied) {
            return Error{"cannot lock CPU " + name + " for this run: " + attempt.error().message,
                         attempt.error().errnum};
        }
        std::string holder;
        if (attempt && attempt->holder) {
            holder = attempt->holder->pid != 0
                         ? describeOwner(*attempt->holder)
                         : describePid(flockHolder(ownerLockPath("cpu", name, dir))) + ", not a noisefloor run";
        }
        // The key, which a deleted lock file cannot fool and every user's run sees.
        const std::string key = keyName(dir, name);
        int err = 0;
        const int fd = bindKey(share ? key + "/shared/" + std::to_string(::getpid()) : key, err);
        if (fd >= 0) {
            claims.keys.emplace_back(fd);
        }
        if (holder.empty() && (share || err == EADDRINUSE)) {
            if (auto pid = keyHolder(key); pid && *pid != ::getpid()) {
                holder = describePid(*pid);
            }
        }
        std::vector<std::string> others;
        for (const int pid : sharers(dir, name)) {
            others.push_back(describePid(pid) + ", which shares it (--share-cpus)");
            known.emplace_back(cpu, pid);
        }
        if (!share) {
            if (holder.empty() && !others.empty()) {
                holder = others.front();
            }
            if (!holder.empty()) {
                return Error{"CPU " + name + " is measured by another run, " + holder +
                             "; wait for it, choose other CPUs, or pass --share-cpus"};
            }
            if (attempt && attempt->lock) {
                claims.locks.push_back(std::move(*attempt->lock));
            }
            continue;
        }
        if (attempt && attempt->lock) {
            claims.locks.push_back(std::move(*attempt->lock));
        }
        if (!holder.empty()) {
            claims.warnings.push_back("CPU " + name + " shared with another run (--share-cpus): " + holder);
        }
        for (const auto& other : others) {
            claims.warnings.push_back("CPU " + name + " shared with another run (--share-cpus): " + other);
        }
    }
    claims.sharers = SharerWatch(cpus, dir, std::move(known));
    return claims;
}

}  // namespace nf::engine
