#pragma once
// A second "host" reachable with the real ssh client, for tests: Debian's sshd started by the test
// with a host key and a client key made for it, listening on one address (loopback, or an address
// inside a namespace the test made), and an ssh configuration of the test's own with a Host alias,
// so the user's ~/.ssh is never read. Root only (sshd logs in as root with the test's key).

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/temp_dir.h"

namespace nf::test {

inline constexpr const char* kSshd = "/usr/sbin/sshd";

// What a test sets up: the address and port sshd listens on, the directory put first on the
// remote PATH (the build's noisefloor), more environment for the remote commands, the alias.
struct SshLabOptions {
    std::string listen = "127.0.0.1";
    int port = 2222;
    std::string bin;
    std::map<std::string, std::string> env;
    std::string alias = "dut";
};

class SshLab {
public:
    SshLab(const TempDir& dir, SshLabOptions options) : m_dir(dir), m_o(std::move(options)) {}
    ~SshLab() { stop(); }
    SshLab(const SshLab&) = delete;
    SshLab& operator=(const SshLab&) = delete;

    // Why a test cannot have one here ("" when it can).
    static std::string unavailable()
    {
        if (::geteuid() != 0) {
            return "an sshd for the test needs root";
        }
        if (!std::filesystem::exists(kSshd)) {
            return std::string("no ") + kSshd + " (scripts/setup installs openssh-server)";
        }
        return {};
    }

    // Keys and configurations; "" or what failed.
    std::string prepare()
    {
        for (const char* key : {"host_key", "client_key"}) {
            if (std::system(("ssh-keygen -q -t ed25519 -N '' -C noisefloor-test -f " + m_dir.file(key)).c_str()) != 0) {
                return "ssh-keygen failed";
            }
        }
        std::filesystem::copy_file(m_dir.file("client_key.pub"), m_dir.file("authorized_keys"));
        std::ostringstream env;
        env << "PATH=" << m_o.bin << ":/usr/sbin:/usr/bin:/sbin:/bin";
        for (const auto& [k, v] : m_o.env) {
            env << ' ' << k << '=' << v;
        }
        std::ofstream(m_dir.file("sshd_config"))
            << "Port " << m_o.port << "\nListenAddress " << m_o.listen << "\nHostKey " << m_dir.file("host_key")
            << "\nAuthorizedKeysFile " << m_dir.file("authorized_keys") << "\nPidFile none\n"
            << "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
            << "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nSetEnv " << env.str() << "\n";
        std::ifstream hostKey(m_dir.file("host_key.pub"));
        std::ofstream(m_dir.file("known_hosts"))
            << "[" << m_o.listen << "]:" << m_o.port << " " << std::string(std::istreambuf_iterator<char>(hostKey), {});
        std::ofstream(m_dir.file("ssh_config"))
            << "Host " << m_o.alias << "\n  HostName " << m_o.listen << "\n  Port " << m_o.port
            << "\n  User root\n  IdentityFile " << m_dir.file("client_key")
            << "\n  IdentitiesOnly yes\n  UserKnownHostsFile " << m_dir.file("known_hosts")
            << "\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n";
        return {};
    }

    // Starts sshd (in namespace `ns`, or here) and waits until `probe` (a shell command line that
    // runs ssh) succeeds; "" or what failed.
    std::string start(const std::string& ns, const std::string& probe)
    {
        if (!std::filesystem::exists("/run/sshd")) {  // sshd's privilege-separation directory
            std::filesystem::create_directories("/run/sshd");
            m_madeRunSshd = true;
        }
        std::vector<std::string> args;
        if (!ns.empty()) {
            args = {"ip", "netns", "exec", ns};
        }
        args.insert(args.end(), {kSshd, "-D", "-e", "-f", m_dir.file("sshd_config")});
        const std::string errPath = m_dir.file("sshd.err");
        m_pid = ::fork();
        if (m_pid == 0) {
            std::vector<char*> argv;
            for (auto& a : args) {
                argv.push_back(a.data());
            }
            argv.push_back(nullptr);
            if (std::freopen("/dev/null", "r", stdin) == nullptr ||
                std::freopen(errPath.c_str(), "w", stdout) == nullptr ||
                std::freopen(errPath.c_str(), "a", stderr) == nullptr) {
                ::_exit(127);
            }
            ::execvp(argv[0], argv.data());
            ::_exit(127);
        }
        for (int i = 0; i < 100; ++i) {
            if (std::system((probe + " >/dev/null 2>&1").c_str()) == 0) {
                return {};
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        std::ifstream err(errPath);
        return "sshd did not answer: " + std::string(std::istreambuf_iterator<char>(err), {});
    }

    // ssh -F this configuration ALIAS (a shell command line prefix).
    std::string ssh() const { return "ssh -F " + config() + " -o BatchMode=yes " + m_o.alias; }
    std::string config() const { return m_dir.file("ssh_config"); }
    pid_t pid() const { return m_pid; }

    void stop()
    {
        if (m_pid > 0) {
            ::kill(m_pid, SIGTERM);
            ::waitpid(m_pid, nullptr, 0);
            m_pid = -1;
        }
        if (m_madeRunSshd) {
            std::error_code ec;
            std::filesystem::remove("/run/sshd", ec);
            m_madeRunSshd = false;
        }
    }

private:
    const TempDir& m_dir;
    SshLabOptions m_o;
    pid_t m_pid = -1;
    bool m_madeRunSshd = false;
};

}  // namespace nf::test
