#include "app/cli/self_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <map>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace nf::cli {
namespace {

Result<int> spawnAndWait(const std::string& path, const std::vector<std::string>& argv, const ChildEnvironment& extra,
                         bool searchPath, bool quiet = false)
{
    std::map<std::string, std::string> env;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string entry = *e;
        const auto eq = entry.find('=');
        env[entry.substr(0, eq)] = eq == std::string::npos ? "" : entry.substr(eq + 1);
    }
    for (const auto& [key, value] : extra) {
        env[key] = value;
    }
    std::vector<std::string> envText;
    envText.reserve(env.size());
    for (const auto& [key, value] : env) {
        envText.push_back(key + "=" + value);
    }
    std::vector<char*> envp;
    envp.reserve(envText.size() + 1);
    for (auto& e : envText) {
        envp.push_back(e.data());
    }
    envp.push_back(nullptr);
    std::vector<std::string> args = argv;
    std::vector<char*> argp;
    argp.reserve(args.size() + 1);
    for (auto& a : args) {
        argp.push_back(a.data());
    }
    argp.push_back(nullptr);

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    sigset_t defaults;  // this process ignores SIGXFSZ (main.cpp); its children need not
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGXFSZ);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    if (quiet) {
        posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    }
    pid_t pid = 0;
    const int err = searchPath ? posix_spawnp(&pid, path.c_str(), &files, &attr, argp.data(), envp.data())
                               : posix_spawn(&pid, path.c_str(), &files, &attr, argp.data(), envp.data());
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attr);
    if (err != 0) {
        return Error::fromErrno("cannot start " + path, err);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return Error::fromErrno("waiting for " + path);
        }
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

}  // namespace

std::string selfExecutable()
{
    char buffer[PATH_MAX + 1] = {};
    const ssize_t n = ::readlink("/proc/self/exe", buffer, PATH_MAX);
    return n > 0 && n < PATH_MAX ? std::string(buffer, static_cast<std::size_t>(n)) : std::string("noisefloor");
}

Result<int> runNoisefloor(const std::vector<std::string>& args, const ChildEnvironment& env, bool quiet)
{
    // /proc/self/exe rather than its path: the binary may have been replaced since this one started.
    std::vector<std::string> argv{"noisefloor"};
    argv.insert(argv.end(), args.begin(), args.end());
    return spawnAndWait("/proc/self/exe", argv, env, false, quiet);
}

Result<int> runProgram(const std::vector<std::string>& argv, const ChildEnvironment& env)
{
    return spawnAndWait(argv.front(), argv, env, true);
}

}  // namespace nf::cli
