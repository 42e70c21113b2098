#include "net/cleanup.h"

#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <regex>

#include "net/rtnl.h"

namespace nf::engine::net {

namespace {

constexpr const char* kNetnsDir = "/run/netns";

bool running(int pid)
{
    return ::kill(pid, 0) == 0 || errno != ESRCH;
}

}  // namespace

int ownerPid(const std::string& name)
{
    static const std::regex pattern("^nf([0-9]{1,7})(t|r|tx|rx)[0-9]*$");
    std::smatch m;
    if (!std::regex_match(name, m, pattern)) {
        return 0;
    }
    return std::stoi(m[1].str());
}

std::vector<Leftover> findLeftovers()
{
    std::vector<Leftover> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(kNetnsDir, ec)) {
        const auto name = entry.path().filename().string();
        if (const int pid = ownerPid(name); pid > 0 && !running(pid)) {
            out.push_back({"namespace", name, pid});
        }
    }
    if (auto sock = RtnlSocket::open()) {
        for (const auto& name : sock->linkNames()) {
            if (const int pid = ownerPid(name); pid > 0 && !running(pid)) {
                out.push_back({"link", name, pid});
            }
        }
    }
    return out;
}

CleanupReport removeLeftovers()
{
    CleanupReport report;
    auto sock = RtnlSocket::open();
    for (auto& leftover : findLeftovers()) {
        if (leftover.kind == "namespace") {
            const std::string path = std::string(kNetnsDir) + "/" + leftover.name;
            ::umount2(path.c_str(), MNT_DETACH);  // not mounted is fine: the unlink says
            if (::unlink(path.c_str()) != 0) {
                report.failures.push_back("namespace " + leftover.name + ": " + errnoText(errno));
                continue;
            }
        } else {
            if (!sock) {
                report.failures.push_back("link " + leftover.name + ": " + sock.error().message);
                continue;
            }
            if (!sock->ifindex(leftover.name)) {
                report.removed.push_back(std::move(leftover));  // went with its veth peer
                continue;
            }
            if (auto r = sock->deleteLink(leftover.name); !r) {
                report.failures.push_back("link " + leftover.name + ": " + r.error().message);
                continue;
            }
        }
        report.removed.push_back(std::move(leftover));
    }
    return report;
}

}  // namespace nf::engine::net
