#include "engine/net/xdp_owner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace nf::engine::net {

namespace {

std::string recordPath(const std::string& dir, int pid, int ifindex)
{
    return dir + "/" + std::to_string(pid) + "-" + std::to_string(ifindex);
}

}  // namespace

std::string xdpOwnerDir()
{
    return "/run/noisefloor/xdp";
}

Result<std::string> writeOwnerRecord(const XdpOwnerRecord& record, const std::string& dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        return Error{"cannot create " + dir + ": " + ec.message(), ec.value()};
    }
    const auto path = recordPath(dir, record.pid, record.ifindex);
    const auto tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << "pid=" << record.pid << "\n"
            << "ifname=" << record.ifname << "\n"
            << "ifindex=" << record.ifindex << "\n"
            << "prog_id=" << record.progId << "\n"
            << "mode=" << record.mode << "\n";
        out.flush();
        if (!out) {
            std::filesystem::remove(tmp, ec);
            return Error{"cannot write " + tmp};
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        std::filesystem::remove(tmp, ec);
        return Error::fromErrno("cannot rename " + tmp + " to " + path, err);
    }
    return path;
}

Result<void> removeOwnerRecord(int pid, int ifindex, const std::string& dir)
{
    const auto path = recordPath(dir, pid, ifindex);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        return Error::fromErrno("cannot remove " + path);
    }
    return {};
}

}  // namespace nf::engine::net
