// The remote generator: `noisefloor generate --control` on the generator host, started through
// the real OpenSSH client and driven over its stdin/stdout (engine/net/remote_generator.h).

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <thread>

#include "engine/net/remote_generator.h"
#include "engine/run/run_stop.h"
#include "nf_version.h"

namespace nf::engine::net {

namespace {

// How long an answer to start/stop/count may take, once connected.
constexpr int kAnswerMs = 5000;
// After stdin is closed, how long ssh (and through it the remote) may take to end before a SIGTERM.
constexpr int kExitMs = 5000;
// While connecting, how often the run's stop is looked at.
constexpr int kStopCheckMs = 50;

std::string lastLine(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
        text.pop_back();
    }
    const auto nl = text.rfind('\n');
    return nl == std::string::npos ? text : text.substr(nl + 1);
}

class Ssh : public SshGenerator {
public:
    Ssh(SshGeneratorOptions options, pid_t pid, Fd in, Fd out, Fd err)
        : m_options(std::move(options)), m_pid(pid), m_in(std::move(in)), m_out(std::move(out)), m_err(std::move(err))
    {
        m_remote.host = m_options.host;
    }
    ~Ssh() override { end(); }
    Ssh(const Ssh&) = delete;
    Ssh& operator=(const Ssh&) = delete;

    // The remote's first line: {"event":"hello","version":...,"iface":...,"mac":...,"addr":...}.
    // The run's stop (RunStop) ends the wait at once: ssh, still connecting, is terminated and the
    // error's errnum is ECANCELED.
    Result<void> hello(const std::string& version)
    {
        std::lock_guard lock(m_mutex);
        const std::stop_token stop = RunStop::current();
        auto line = readLine((m_options.connectTimeout + 10) * 1000, &stop);
        if (!line) {
            if (line.error().errnum == ECANCELED) {
                ::kill(-m_pid, SIGTERM);  // end() reaps it at once instead of waiting for it to give up
            }
            return line.error();
        }
        const nlohmann::json& j = *line;
        if (j.value("event", "") == "error") {
            return Error{"generator host " + m_options.host + ": " + j.value("message", "failed")};
        }
        if (j.value("event", "") != "hello") {
            return Error{"generator host " + m_options.host + ": unexpected first line " + j.dump()};
        }
        m_remote.version = j.value("version", "");
        m_remote.iface = j.value("iface", "");
        m_remote.mac = j.value("mac", "");
        m_remote.addr = j.value("addr", "");
        if (m_remote.version != version) {
            return Error{"generator host " + m_options.host + " runs noisefloor " + m_remote.version + ", this is " +
                         version + " (install the same version on both hosts)"};
        }
        return {};
    }

    const RemoteFacts& remote() const override { return m_remote; }

    Result<void> start() override
    {
        std::lock_guard lock(m_mutex);
        NF_TRY(request("start", "started"));
        return {};
    }

    void stop() override
    {
        std::lock_guard lock(m_mutex);
        if (m_failure.empty() && m_in.valid()) {
            (void)request("stop", "stopped");
        }
    }

    std::uint64_t sent() const override
    {
        std::lock_guard lock(m_mutex);
        if (m_failure.empty() && m_in.valid()) {
            (void)request("count", "count");
        }
        return m_sent;
    }
    std::uint64_t offered() const override
    {
        std::lock_guard lock(m_mutex);
        return m_offered;
    }
    std::string failure() const override
    {
        std::lock_guard lock(m_mutex);
        return m_failure;
    }
    std::string warning() const override
    {
        std::lock_guard lock(m_mutex);
        return m_warning;
    }
    std::string describe() const override
    {
        const auto& g = m_options.generator;
        return "packet (AF_PACKET sendmmsg) on " + m_remote.host + " " + m_remote.iface + " to UDP port " +
               std::to_string(g.port) + ", batch " + std::to_string(g.batch) + ", " + std::to_string(g.payload) +
               "-byte payload, CPU " + std::to_string(g.cpu) +
               (g.rate > 0 ? ", limited to " + std::to_string(g.rate) + " pps" : "");
    }

private:
    // One request line, and the answer whose event is `expected` (its counts are kept).
    Result<nlohmann::json> request(const std::string& what, const std::string& expected) const
    {
        const std::string line = what + "\n";
        // A socket, not a pipe: MSG_NOSIGNAL makes a dead ssh an EPIPE here rather than a SIGPIPE.
        if (::send(m_in.get(), line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
            return lost("cannot write to ssh");
        }
        auto j = NF_TRY(readLine(kAnswerMs));
        if (j.value("event", "") == "error") {
            return lost(j.value("message", "failed"));
        }
        if (j.value("event", "") != expected) {
            return lost("unexpected answer " + j.dump());
        }
        m_sent = j.value("sent", m_sent);
        m_offered = j.value("offered", m_offered);
        if (j.contains("warning") && m_warning.empty()) {
            m_warning = "generator host: " + j.value("warning", "");
        }
        return j;
    }

    // The next line, within `timeoutMs`; with `stop`, an error (ECANCELED) as soon as it is requested.
    Result<nlohmann::json> readLine(int timeoutMs, const std::stop_token* stop = nullptr) const
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        for (;;) {
            const auto nl = m_buffer.find('\n');
            if (nl != std::string::npos) {
                const std::string line = m_buffer.substr(0, nl);
                m_buffer.erase(0, nl + 1);
                try {
                    return nlohmann::json::parse(line);
                } catch (const nlohmann::json::exception&) {
                    return lost("unreadable line from the generator: " + line.substr(0, 200));
                }
            }
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) {
                return lost("no answer within " + std::to_string(timeoutMs / 1000) + " s");
            }
            if (stop != nullptr && stop->stop_requested()) {
                return Error{"generator host " + m_options.host + ": stopped while connecting", ECANCELED};
            }
            pollfd p{m_out.get(), POLLIN, 0};
            const auto slice = stop != nullptr && stop->stop_possible() ? std::min<long>(left.count(), kStopCheckMs)
                                                                        : static_cast<long>(left.count());
            const int r = ::poll(&p, 1, static_cast<int>(slice));
            if (r < 0 && errno == EINTR) {
                continue;
            }
            if (r > 0) {
                char buf[4096];
                const ssize_t n = ::read(m_out.get(), buf, sizeof buf);
                if (n <= 0) {
                    return lost("the connection closed");
                }
                m_buffer.append(buf, static_cast<std::size_t>(n));
            }
        }
    }

    // Records why the generator is gone: ssh's own last line on stderr when it gave one.
    Error lost(const std::string& why) const
    {
        std::string err = drainErr();
        std::string text = "generator host " + m_options.host + ": " + why;
        if (!err.empty()) {
            text += " (ssh: " + lastLine(err) + ")";
        }
        if (m_failure.empty()) {
            m_failure = text;
        }
        return Error{m_failure, ECONNABORTED};
    }

    std::string drainErr() const
    {
        std::string text;
        char buf[4096];
        pollfd p{m_err.get(), POLLIN, 0};
        // ssh writes its last words as it ends: give it a moment when the connection just closed.
        while (::poll(&p, 1, 200) > 0) {
            const ssize_t n = ::read(m_err.get(), buf, sizeof buf);
            if (n <= 0) {
                break;
            }
            text.append(buf, static_cast<std::size_t>(n));
        }
        m_errText += text;
        return m_errText;
    }

    // Closes ssh's stdin (the remote generator ends at EOF) and reaps ssh; SIGTERM, then SIGKILL,
    // to its process group when it takes too long.
    void end()
    {
        m_in = Fd();
        if (m_pid <= 0) {
            return;
        }
        const auto waitFor = [&](int ms) {
            for (int i = 0; i < ms / 10; ++i) {
                if (::waitpid(m_pid, nullptr, WNOHANG) == m_pid) {
                    return true;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            return false;
        };
        if (!waitFor(kExitMs)) {
            ::kill(-m_pid, SIGTERM);
            if (!waitFor(2000)) {
                ::kill(-m_pid, SIGKILL);
                ::waitpid(m_pid, nullptr, 0);
            }
        }
        m_pid = -1;
    }

    SshGeneratorOptions m_options;
    RemoteFacts m_remote;
    pid_t m_pid = -1;
    Fd m_in;
    Fd m_out;
    Fd m_err;
    mutable std::mutex m_mutex;
    mutable std::string m_buffer;
    mutable std::string m_errText;
    mutable std::string m_failure;
    mutable std::string m_warning;
    mutable std::uint64_t m_sent = 0;
    mutable std::uint64_t m_offered = 0;
};

// One word for the remote shell: single-quoted, with each ' as '\''.
std::string shellWord(const std::string& word)
{
    std::string out = "'";
    for (char c : word) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

std::string number(double v)
{
    nlohmann::json j = v;
    return j.dump();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> twoHostFacts(const Endpoint& rx, const RemoteFacts& remote)
{
    return {{"path", "two-host"},
            {"generator_host", remote.host},
            {"generator_version", remote.version},
            {"sender", remote.host + " " + remote.iface + " " + remote.mac + " " + remote.addr},
            {"receiver", rx.ifname + " (ifindex " + std::to_string(rx.ifindex) + ") " + formatMac(rx.mac) + " " +
                             formatAddr(rx.addr)}};
}

std::vector<std::string> generateCommand(const SshGeneratorOptions& o, const std::string& version)
{
    const auto& g = o.generator;
    std::vector<std::string> words = {o.command.empty() ? "noisefloor" : o.command,
                                      "generate",
                                      "--control",
                                      "--iface",
                                      o.iface.empty() ? "route" : o.iface,
                                      "--dst-mac",
                                      formatMac(o.to.mac),
                                      "--dst",
                                      formatAddr(o.to.addr),
                                      "--port",
                                      std::to_string(g.port),
                                      "--size",
                                      std::to_string(g.payload),
                                      "--batch",
                                      std::to_string(g.batch),
                                      "--rate",
                                      number(g.rate),
                                      "--cpu",
                                      std::to_string(g.cpu),
                                      "--expect-version",
                                      version};
    for (auto& w : words) {
        w = shellWord(w);
    }
    return words;
}

Result<std::unique_ptr<SshGenerator>> makeSshGenerator(const SshGeneratorOptions& o, const std::string& version)
{
    if (o.host.empty() || o.host[0] == '-' || o.host.find_first_of(" \t\n'\"\\;") != std::string::npos) {
        return Error{"tx_host=" + o.host + ": not a host ssh accepts (user@host or a Host alias)"};
    }
    std::vector<std::string> args = {"ssh", "-T",
                                     "-o",  "BatchMode=yes",
                                     "-o",  "ConnectTimeout=" + std::to_string(o.connectTimeout),
                                     "-o",  "ServerAliveInterval=2",
                                     "-o",  "ServerAliveCountMax=3"};
    if (!o.sshConfig.empty()) {
        args.insert(args.end(), {"-F", o.sshConfig});
    }
    args.push_back(o.host);
    std::string remote;
    for (const auto& w : generateCommand(o, version)) {
        remote += (remote.empty() ? "" : " ") + w;
    }
    args.push_back(remote);
    int in[2];
    int out[2];
    int err[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
        return Error::fromErrno("socketpair");
    }
    Fd inRead(in[0]);
    Fd inWrite(in[1]);
    if (::pipe2(out, O_CLOEXEC) != 0) {
        return Error::fromErrno("pipe");
    }
    Fd outRead(out[0]);
    Fd outWrite(out[1]);
    if (::pipe2(err, O_CLOEXEC) != 0) {
        return Error::fromErrno("pipe");
    }
    Fd errRead(err[0]);
    Fd errWrite(err[1]);
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        return Error::fromErrno("fork");
    }
    if (pid == 0) {
        // Its own process group: a terminal's SIGINT goes to the engine, which stops both sides.
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) {
            ::_exit(127);
        }
        sigset_t none;
        sigemptyset(&none);
        ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
        (void)::signal(SIGPIPE, SIG_DFL);  // ignored by `run --events`
        ::dup2(inRead.get(), 0);
        ::dup2(outWrite.get(), 1);
        ::dup2(errWrite.get(), 2);
        ::execvp("ssh", argv.data());
        const char msg[] = "cannot run ssh (install openssh-client)\n";
        (void)!::write(2, msg, sizeof msg - 1);
        ::_exit(127);
    }
    ::setpgid(pid, pid);
    // ssh's ends, closed here: while this process held them, ssh's exit closed no pipe and a
    // failure ssh reported in 0.1 s read as "no answer within 20 s".
    inRead = Fd();
    outWrite = Fd();
    errWrite = Fd();
    (void)::fcntl(errRead.get(), F_SETFL, O_NONBLOCK);
    auto ssh = std::make_unique<Ssh>(o, pid, std::move(inWrite), std::move(outRead), std::move(errRead));
    NF_TRY(ssh->hello(version));
    return std::unique_ptr<SshGenerator>(std::move(ssh));
}

Result<std::unique_ptr<SshGenerator>> makeTwoHostGenerator(const GeneratorHost& host, const Endpoint& to,
                                                           const GeneratorOptions& generator)
{
    return makeSshGenerator({.host = host.host,
                             .iface = host.iface,
                             .sshConfig = host.sshConfig,
                             .command = "noisefloor",
                             .connectTimeout = 10,
                             .to = to,
                             .generator = generator},
                            NF_VERSION);
}

}  // namespace nf::engine::net
