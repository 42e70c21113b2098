#include "engine/net/cleanup.h"

#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <net/if.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>

#include "engine/net/libbpf_opts.h"
#include "engine/net/rtnl.h"

namespace nf::engine::net {

namespace {

constexpr const char* kNetnsDir = "/run/netns";

bool running(int pid)
{
    return ::kill(pid, 0) == 0 || errno != ESRCH;
}

// An owner record: "key=value" lines (pid, ifname, ifindex, prog_id, mode).
std::optional<Leftover> readOwnerRecord(const std::filesystem::path& path)
{
    std::ifstream in(path);
    std::map<std::string, std::string> fields;
    std::string line;
    while (std::getline(in, line)) {
        if (const auto eq = line.find('='); eq != std::string::npos) {
            fields[line.substr(0, eq)] = line.substr(eq + 1);
        }
    }
    Leftover l;
    l.kind = "xdp";
    l.record = path.string();
    l.ifname = fields["ifname"];
    l.mode = fields["mode"];
    try {
        l.pid = std::stoi(fields.at("pid"));
        l.ifindex = std::stoi(fields.at("ifindex"));
        l.progId = static_cast<std::uint32_t>(std::stoul(fields.at("prog_id")));
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (l.pid <= 0 || l.ifindex <= 0 || l.progId == 0 || (l.mode != "skb" && l.mode != "native")) {
        return std::nullopt;
    }
    l.name = "program " + std::to_string(l.progId) + " (" + l.mode + ") on " + l.ifname;
    return l;
}

std::uint32_t modeFlag(const std::string& mode)
{
    return mode == "native" ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE;
}

// Detaches the recorded program if it is still the one attached; returns a note when there was
// nothing to do, or the error.
Result<std::string> detachRecorded(const Leftover& l)
{
    char name[IF_NAMESIZE] = {};
    if (::if_indextoname(static_cast<unsigned>(l.ifindex), name) == nullptr || l.ifname != name) {
        return std::string("interface gone or renamed");
    }
    bpf_xdp_query_opts query;
    initOpts(query);
    if (int err = bpf_xdp_query(l.ifindex, static_cast<int>(modeFlag(l.mode)), &query); err != 0) {
        return Error::fromErrno("cannot query XDP on " + l.ifname, -err);
    }
    const std::uint32_t attached = l.mode == "native" ? query.drv_prog_id : query.skb_prog_id;
    if (attached != l.progId) {
        return std::string("already detached");
    }
    const int fd = bpf_prog_get_fd_by_id(l.progId);
    if (fd < 0) {
        return Error::fromErrno("cannot open program " + std::to_string(l.progId), errno);
    }
    bpf_xdp_attach_opts opts;
    initOpts(opts);
    opts.old_prog_fd = fd;
    const int err = bpf_xdp_detach(l.ifindex, static_cast<int>(modeFlag(l.mode) | XDP_FLAGS_REPLACE), &opts);
    ::close(fd);
    if (err != 0) {
        return Error::fromErrno("cannot detach it", -err);
    }
    return std::string();
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

std::vector<Leftover> findLeftovers(const std::string& xdpOwnerDir)
{
    std::vector<Leftover> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(xdpOwnerDir, ec)) {
        if (auto record = readOwnerRecord(entry.path()); record && !running(record->pid)) {
            out.push_back(std::move(*record));
        }
    }
    for (const auto& entry : std::filesystem::directory_iterator(kNetnsDir, ec)) {
        const auto name = entry.path().filename().string();
        if (const int pid = ownerPid(name); pid > 0 && !running(pid)) {
            out.push_back({.kind = "namespace", .name = name, .pid = pid});
        }
    }
    if (auto sock = RtnlSocket::open()) {
        for (const auto& name : sock->linkNames()) {
            if (const int pid = ownerPid(name); pid > 0 && !running(pid)) {
                out.push_back({.kind = "link", .name = name, .pid = pid});
            }
        }
    }
    return out;
}

CleanupReport removeLeftovers(const std::string& xdpOwnerDir)
{
    CleanupReport report;
    std::error_code ec;
    auto sock = RtnlSocket::open();
    for (auto& leftover : findLeftovers(xdpOwnerDir)) {
        if (leftover.kind == "xdp") {
            auto detached = detachRecorded(leftover);
            if (!detached) {
                report.failures.push_back("xdp " + leftover.name + ": " + detached.error().message);
                continue;
            }
            std::filesystem::remove(leftover.record, ec);
            if (!detached->empty()) {
                report.notes.push_back("xdp " + leftover.name + ": " + *detached);
                continue;
            }
        } else if (leftover.kind == "namespace") {
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
