// Two hosts on one machine: two network namespaces joined by a veth pair (the cable), Debian's
// sshd in the generator's namespace with a host key and a client key made for the test, and the
// engine in the device under test's namespace starting `noisefloor generate` over the real ssh
// client (-F a configuration of the test's own: the user's ~/.ssh is never read). Root only;
// addresses are from TEST-NET-2 (the cable) and TEST-NET-3 (the management network ssh uses) and
// exist only inside the test's namespaces.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/app/cli_process.h"
#include "tests/support/ssh_lab.h"

namespace nf::test {
namespace {

constexpr const char* kDutAddr = "198.51.100.1";
constexpr const char* kGenAddr = "198.51.100.2";
// The management network ssh goes over, as in a lab (xdp-rx takes every frame of the cable):
// 203.0.113.0/24 (TEST-NET-3), a second veth pair.
constexpr const char* kDutMgmt = "203.0.113.1";
constexpr const char* kGenMgmt = "203.0.113.2";

// A process started in a namespace with `ip netns exec` (which execs it: the pid is its own).
class NsProcess {
public:
    NsProcess(const std::string& ns, std::vector<std::string> args, const std::string& out, const std::string& err)
        : m_out(out), m_err(err)
    {
        args.insert(args.begin(), {"ip", "netns", "exec", ns});
        std::vector<char*> argv;
        for (auto& a : args) {
            argv.push_back(a.data());
        }
        argv.push_back(nullptr);
        m_pid = ::fork();
        if (m_pid == 0) {
            const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            const int in = ::open("/dev/null", O_RDONLY);
            if (o < 0 || e < 0 || in < 0) {
                ::_exit(127);
            }
            ::dup2(in, 0);
            ::dup2(o, 1);
            ::dup2(e, 2);
            ::execvp("ip", argv.data());
            ::_exit(127);
        }
    }
    ~NsProcess() { end(); }
    NsProcess(const NsProcess&) = delete;
    NsProcess& operator=(const NsProcess&) = delete;

    pid_t pid() const { return m_pid; }
    CliResult wait()
    {
        CliResult r;
        int status = 0;
        if (m_pid > 0 && ::waitpid(m_pid, &status, 0) == m_pid) {
            r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        m_pid = -1;
        r.out = readFile(m_out);
        r.err = readFile(m_err);
        return r;
    }
    // On every way out of a test: SIGTERM, then SIGKILL.
    void end()
    {
        if (m_pid <= 0) {
            return;
        }
        ::kill(m_pid, SIGTERM);
        for (int i = 0; i < 300 && ::waitpid(m_pid, nullptr, WNOHANG) != m_pid; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            if (i == 299) {
                ::kill(m_pid, SIGKILL);
                ::waitpid(m_pid, nullptr, 0);
            }
        }
        m_pid = -1;
    }

private:
    pid_t m_pid = -1;
    std::string m_out;
    std::string m_err;
};

// Pids of processes whose command line contains `text`: "[x]yz" so that the shell running pgrep,
// whose own command line holds the pattern, does not match it.
std::string pidsMatching(const std::string& text)
{
    return shell("pgrep -f -- '[" + text.substr(0, 1) + "]" + text.substr(1) + "' || true").second;
}

// A TCP socket listening on addr:port inside namespace `ns` that never accepts: the kernel completes
// a client's handshake and the client then waits for a first word that never comes, as from a host
// whose sshd hangs. -1 when it cannot be made.
int silentListener(const std::string& ns, const char* addr, int port)
{
    const int here = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    const int there = ::open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    int fd = -1;
    if (here >= 0 && there >= 0 && ::setns(there, CLONE_NEWNET) == 0) {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(static_cast<std::uint16_t>(port));
        ::inet_pton(AF_INET, addr, &sa.sin_addr);
        const int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 4) != 0) {
            ::close(fd);
            fd = -1;
        }
        ::setns(here, CLONE_NEWNET);
    }
    for (const int nsFd : {here, there}) {
        if (nsFd >= 0) {
            ::close(nsFd);
        }
    }
    return fd;
}

class TwoHost : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "two hosts make namespaces, veth devices and an sshd: needs root";
        }
        if (const auto why = SshLab::unavailable(); !why.empty()) {
            GTEST_SKIP() << why;
        }
        const std::string id = std::to_string(::getpid());
        m_dut = "nft2h" + id + "d";
        m_gen = "nft2h" + id + "g";
        m_dutIf = "t2h" + id + "d";
        m_genIf = "t2h" + id + "g";
        ASSERT_EQ(shell("ip netns add " + m_dut).first, 0);
        m_madeDut = true;
        ASSERT_EQ(shell("ip netns add " + m_gen).first, 0);
        m_madeGen = true;
        ASSERT_EQ(
            shell("ip link add " + m_dutIf + " netns " + m_dut + " type veth peer name " + m_genIf + " netns " + m_gen)
                .first,
            0);
        ASSERT_EQ(shell("ip -n " + m_dut + " addr add " + kDutAddr + "/24 dev " + m_dutIf + " && ip -n " + m_dut +
                        " link set " + m_dutIf + " up && ip -n " + m_dut + " link set lo up")
                      .first,
                  0);
        ASSERT_EQ(shell("ip -n " + m_gen + " addr add " + kGenAddr + "/24 dev " + m_genIf + " && ip -n " + m_gen +
                        " link set " + m_genIf + " up && ip -n " + m_gen + " link set lo up")
                      .first,
                  0);
        ASSERT_EQ(shell("ip link add " + m_dutIf + "m netns " + m_dut + " type veth peer name " + m_genIf + "m netns " +
                        m_gen + " && ip -n " + m_dut + " addr add " + kDutMgmt + "/24 dev " + m_dutIf + "m && ip -n " +
                        m_gen + " addr add " + kGenMgmt + "/24 dev " + m_genIf + "m && ip -n " + m_dut + " link set " +
                        m_dutIf + "m up && ip -n " + m_gen + " link set " + m_genIf + "m up")
                      .first,
                  0);
        startSshd();
    }

    void TearDown() override
    {
        if (m_sshd) {
            m_sshd->stop();
        }
        for (const auto& ns : {m_dut, m_gen}) {  // whatever is still inside the test's namespaces
            if (!ns.empty()) {
                shell("ip netns pids " + ns + " 2>/dev/null | xargs -r kill -9");
            }
        }
        if (m_madeGen) {
            shell("ip netns del " + m_gen);
        }
        if (m_madeDut) {
            shell("ip netns del " + m_dut);  // the veth pair goes with it
        }
    }

    void startSshd()
    {
        m_sshd = std::make_unique<SshLab>(
            m_dir, SshLabOptions{.listen = kGenMgmt,
                                 .port = 2222,
                                 .bin = std::filesystem::path(NF_CLI_PATH).parent_path().string(),
                                 .env = {},
                                 .alias = "gen"});
        ASSERT_EQ(m_sshd->prepare(), "");
        ASSERT_EQ(m_sshd->start(m_gen, "ip netns exec " + m_dut + " " + m_sshd->ssh() + " true"), "");
    }

    // Two variants of udp-rx, each with its own receiving port and generator; xdp-rx takes the
    // interface's queue 0 whole, so one variant at a time.
    std::vector<std::string> runArgs(const std::string& workload, int reps)
    {
        std::vector<std::string> args = {NF_CLI_PATH, "--db", m_dir.file("runs.db"), "run", workload, "--reps",
                                         std::to_string(reps), "--duration", "0.3", "--interval", "0.1", "--warmup",
                                         "0.1", "-p", "iface=" + m_dutIf, "-p", "tx_host=gen", "-p",
                                         "ssh_config=" + m_dir.file("ssh_config"), "-p", "rate=20000",
                                         // these check the path, not a figure: other runs may hold CPU 1
                                         "--share-cpus"};
        if (workload == "udp-rx") {
            args.insert(args.end(), {"--variant", "a:batch=1", "--variant", "b:batch=64"});
        }
        return args;
    }

    // The run's samples: sums of the receiver's packets and the generator's sent and offered.
    struct Totals {
        double received = 0;
        double sent = 0;
        double offered = 0;
        int samples = 0;
    };
    Totals totals()
    {
        const auto csv = cli({"export", "1", "--format", "csv"}).out;
        std::istringstream in(csv);
        std::string header;
        std::getline(in, header);
        std::vector<std::string> names;
        std::istringstream h(header);
        for (std::string n; std::getline(h, n, ',');) {
            names.push_back(n);
        }
        const auto column = [&](const std::string& n) {
            return static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin());
        };
        Totals t;
        for (std::string line; std::getline(in, line);) {
            std::vector<std::string> cells;
            std::istringstream l(line);
            for (std::string c; std::getline(l, c, ',');) {
                cells.push_back(c);
            }
            const auto value = [&](const std::string& n) {
                const auto i = column(n);
                return i < cells.size() && !cells[i].empty() ? std::stod(cells[i]) : 0.0;
            };
            t.received += value("packets");
            t.sent += value("offered_packets");
            t.offered += value("gen_offered");
            ++t.samples;
        }
        return t;
    }

    CliResult cli(std::vector<std::string> args)
    {
        args.insert(args.begin(), {"--db", m_dir.file("runs.db")});
        return runCli(args, m_dir);
    }

    // Nothing of the run is left: no generator, no ssh, nothing but sshd in the generator's namespace.
    void expectNothingLeft()
    {
        std::string left;
        for (int i = 0; i < 100; ++i) {
            left = pidsMatching("generate --control") + pidsMatching(m_dir.file("ssh_config"));
            if (left.empty()) {
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        EXPECT_EQ(left, "") << shell("ps -ef | grep -e generate -e ssh").second;
        const auto inGen = shell("ip netns pids " + m_gen).second;
        EXPECT_EQ(inGen, std::to_string(m_sshd->pid()) + "\n") << "left in the generator namespace";
        EXPECT_EQ(shell("ip netns pids " + m_dut).second, "") << "left in the device under test's namespace";
        EXPECT_EQ(shell("ip -n " + m_dut + " link show " + m_dutIf + " | grep -c xdp || true").second, "0\n");
    }

    TempDir m_dir;
    std::string m_dut;
    std::string m_gen;
    std::string m_dutIf;
    std::string m_genIf;
    bool m_madeDut = false;
    bool m_madeGen = false;
    std::unique_ptr<SshLab> m_sshd;
};

TEST_F(TwoHost, GenerateRefusesAnotherVersionAndBadInput)
{
    const auto other = cli({"generate", "--iface", "lo", "--dst-mac", "02:00:00:00:00:01", "--dst", kDutAddr,
                            "--expect-version", "0.0.0-other"});
    EXPECT_EQ(other.status, 1);
    EXPECT_NE(other.err.find("the engine runs 0.0.0-other"), std::string::npos) << other.err;
    const auto mac = cli({"generate", "--iface", "lo", "--dst-mac", "02:00:00:00:01", "--dst", kDutAddr});
    EXPECT_EQ(mac.status, 2);
    EXPECT_NE(mac.err.find("not a MAC address"), std::string::npos) << mac.err;
}

TEST_F(TwoHost, UdpRxStoresBothSidesCountsAndTheGeneratorHost)
{
    NsProcess run(m_dut, runArgs("udp-rx", 2), m_dir.file("run.out"), m_dir.file("run.err"));
    const auto r = run.wait();
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(cli({"export", "1", "--format", "json"}).out);
    const std::string text = j.dump();
    EXPECT_NE(text.find("\"two-host\""), std::string::npos);
    EXPECT_NE(text.find("\"generator_host\":\"gen\""), std::string::npos);
    EXPECT_NE(text.find("\"generator_version\""), std::string::npos);
    // Both sides' counts in every sample: 2 variants x 2 repetitions x 3 intervals, 20 kpps over
    // a veth cable, so what one side sent the other received (the counts are read an ssh round
    // trip apart, hence the margin).
    const auto t = totals();
    std::cout << "two-host udp-rx: " << t.samples << " samples, generator offered " << t.offered << ", sent " << t.sent
              << ", received " << t.received << "\n";
    EXPECT_EQ(t.samples, 12);
    EXPECT_GT(t.sent, 0.5 * 20000 * 0.1 * 12) << t.sent;
    EXPECT_GE(t.offered, t.sent);
    EXPECT_NEAR(t.received, t.sent, 0.1 * t.sent);
    expectNothingLeft();
}

TEST_F(TwoHost, XdpRxThroughSshLeavesNoProgram)
{
    NsProcess run(m_dut, runArgs("xdp-rx", 2), m_dir.file("run.out"), m_dir.file("run.err"));
    const auto r = run.wait();
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(cli({"export", "1", "--format", "json"}).out);
    EXPECT_NE(j.dump().find("\"generator_host\":\"gen\""), std::string::npos);
    expectNothingLeft();
}

TEST_F(TwoHost, KilledSshStopsBothSidesAndTheRunIsAborted)
{
    NsProcess run(m_dut, runArgs("udp-rx", 1000), m_dir.file("run.out"), m_dir.file("run.err"));
    ASSERT_TRUE(waitForStoredRepetitions(m_dir.file("runs.db"), m_dir, 1));
    const auto ssh = shell("pgrep -P " + std::to_string(run.pid()) + " -x ssh").second;
    ASSERT_FALSE(ssh.empty());
    ::kill(std::stoi(ssh), SIGKILL);
    const auto r = run.wait();
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("aborted: generator host gen: "), std::string::npos) << r.err;
    int lines = 0;  // one line says why (a warning that CPU 1 was shared with another run aside)
    std::istringstream err(r.err);
    for (std::string line; std::getline(err, line);) {
        lines += line.rfind("noisefloor: warning: ", 0) == 0 ? 0 : 1;
    }
    EXPECT_EQ(lines, 1) << r.err;
    const auto list = nlohmann::json::parse(cli({"list", "--format", "json"}).out);
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0]["status"], "aborted");
    EXPECT_GE(list[0]["repetitions"].get<int>(), 1);
    expectNothingLeft();
}

TEST_F(TwoHost, SigintStopsBothSides)
{
    NsProcess run(m_dut, runArgs("udp-rx", 1000), m_dir.file("run.out"), m_dir.file("run.err"));
    ASSERT_TRUE(waitForStoredRepetitions(m_dir.file("runs.db"), m_dir, 1));
    ::kill(run.pid(), SIGINT);
    const auto r = run.wait();
    EXPECT_EQ(r.status, 130) << r.err;
    EXPECT_NE(r.err.find("aborted: SIGINT"), std::string::npos) << r.err;
    expectNothingLeft();
}

// ssh that fails at once (nothing listens on the generator host's port) is reported as fast as
// ssh reports it, with ssh's own reason: the engine no longer keeps the pipe's write end open
// itself, which made every such failure "no answer within 20 s".
TEST_F(TwoHost, AnSshFailureIsReportedAsSoonAsSshFails)
{
    m_sshd->stop();
    m_sshd.reset();
    const auto t0 = std::chrono::steady_clock::now();
    NsProcess run(m_dut, runArgs("udp-rx", 1), m_dir.file("run.out"), m_dir.file("run.err"));
    const auto r = run.wait();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("Connection refused"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("no answer within"), std::string::npos) << r.err;
    EXPECT_LT(seconds, 5.0) << r.err;
}

// Ctrl-C while ssh is still connecting (the generator host takes the connection and never answers)
// stops the run at once: the wait for the generator's first line sees the run's stop, and ssh is
// ended with it. Before, the run went on waiting until ssh gave up (its ConnectTimeout, 10 s).
TEST_F(TwoHost, SigintWhileSshConnectsStopsAtOnce)
{
    m_sshd->stop();
    m_sshd.reset();
    const int listener = silentListener(m_gen, kGenMgmt, 2222);
    ASSERT_GE(listener, 0);
    NsProcess run(m_dut, runArgs("udp-rx", 1), m_dir.file("run.out"), m_dir.file("run.err"));
    std::string ssh;
    for (int i = 0; i < 100 && ssh.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ssh = shell("pgrep -P " + std::to_string(run.pid()) + " -x ssh || true").second;
    }
    ASSERT_FALSE(ssh.empty()) << "ssh never started";
    std::this_thread::sleep_for(std::chrono::seconds(1));  // connected, waiting for the banner
    ASSERT_EQ(::waitpid(run.pid(), nullptr, WNOHANG), 0) << "the run ended before it was interrupted";
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(run.pid(), SIGINT);
    const auto r = run.wait();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ::close(listener);
    std::cout << "SIGINT during the ssh connect: exit " << r.status << " after " << seconds << " s\n";
    EXPECT_EQ(r.status, 130) << r.err;
    EXPECT_LT(seconds, 2.0) << r.err;
    EXPECT_NE(r.err.find("noisefloor: interrupted by SIGINT before the run was stored; nothing was stored"),
              std::string::npos)
        << r.err;
    int lines = 0;  // one line says why (a warning that CPU 1 was shared with another run aside)
    std::istringstream err(r.err);
    for (std::string line; std::getline(err, line);) {
        lines += line.rfind("noisefloor: warning: ", 0) == 0 ? 0 : 1;
    }
    EXPECT_EQ(lines, 1) << r.err;
    EXPECT_EQ(pidsMatching(m_dir.file("ssh_config")), "") << "ssh outlived the run";
    EXPECT_EQ(shell("ip netns pids " + m_dut).second, "") << "left in the device under test's namespace";
}

}  // namespace
}  // namespace nf::test
