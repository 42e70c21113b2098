#include "tests/app/cli_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace nf::test {

CliProcess::CliProcess(const std::vector<std::string>& args, const TempDir& dir, int ignored)
{
    static std::atomic<int> counter{0};
    const int n = counter++;
    m_outPath = dir.file("out." + std::to_string(n));
    m_errPath = dir.file("err." + std::to_string(n));
    std::vector<std::string> argv = {NF_CLI_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) {
        cargv.push_back(a.data());
    }
    cargv.push_back(nullptr);
    m_pid = fork();
    if (m_pid == 0) {
        const int out = open(m_outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open(m_errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int in = open("/dev/null", O_RDONLY);
        if (out < 0 || err < 0 || in < 0) {
            _exit(127);
        }
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
            (void)signal(sig, sig == ignored ? SIG_IGN : SIG_DFL);
        }
        execv(cargv[0], cargv.data());
        _exit(127);
    }
}

CliResult CliProcess::wait()
{
    int status = 0;
    waitpid(m_pid, &status, 0);
    CliResult r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = readFile(m_outPath);
    r.err = readFile(m_errPath);
    return r;
}

CliResult runCli(const std::vector<std::string>& args, const TempDir& dir)
{
    return CliProcess(args, dir).wait();
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void writePageFragTestOutput(const std::string& path, double us)
{
    std::ofstream file(path);
    double t = 1000;
    for (const double jitter : {0.0, 0.001, -0.001, 0.002, -0.002}) {
        file << "[ " << t
             << "] 2000000 of iterations for non-aligned testing took: " << static_cast<long>(us * (1 + jitter))
             << "us\n";
        t += 3;
    }
}

std::pair<int, std::string> shell(const std::string& command)
{
    std::string out;
    FILE* p = ::popen((command + " 2>&1").c_str(), "r");
    if (p == nullptr) {
        return {-1, ""};
    }
    char buf[512];
    while (std::fgets(buf, sizeof buf, p) != nullptr) {
        out += buf;
    }
    const int status = ::pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool waitForStoredRepetitions(const std::string& db, const TempDir& dir, int reps, double seconds)
{
    for (int i = 0; i < static_cast<int>(seconds * 20); ++i) {
        ::usleep(50000);
        const auto list = runCli({"--db", db, "list", "--format", "json"}, dir);
        if (list.status != 0 || list.out.empty()) {
            continue;
        }
        const auto j = nlohmann::json::parse(list.out, nullptr, false);
        if (j.is_array() && !j.empty() && j[0].value("repetitions", 0) >= reps) {
            return true;
        }
    }
    return false;
}

}  // namespace nf::test
