#include "engine/net/xdp_owner.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "engine/net/libbpf_opts.h"

namespace nf::engine::net {

namespace {

std::uint32_t modeFlag(const std::string& mode)
{
    return mode == "native" ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE;
}

std::string hexTag(const unsigned char* tag, std::size_t size)
{
    std::string out;
    for (std::size_t i = 0; i < size; ++i) {
        char byte[3];
        (void)std::snprintf(byte, sizeof byte, "%02x", tag[i]);
        out += byte;
    }
    return out;
}

Result<bpf_prog_info> infoOf(int fd)
{
    bpf_prog_info info{};
    std::uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0) {
        return Error::fromErrno("cannot read the program's info");
    }
    return info;
}

}  // namespace

Result<XdpProgramMark> programMark(int progFd, const std::string& ifname, int ifindex, const std::string& mode)
{
    auto info = NF_TRY(infoOf(progFd));
    return XdpProgramMark{.ifname = ifname,
                          .ifindex = ifindex,
                          .progId = info.id,
                          .tag = hexTag(info.tag, sizeof info.tag),
                          .name = info.name,
                          .mode = mode};
}

std::optional<XdpProgramMark> markOf(const OwnerRecord& record, std::string& why)
{
    XdpProgramMark m;
    m.ifname = record.name;
    auto field = [&](const char* key) {
        const auto it = record.owns.find(key);
        return it == record.owns.end() ? std::string() : it->second;
    };
    m.ifindex = static_cast<int>(std::strtol(field("ifindex").c_str(), nullptr, 10));
    m.progId = static_cast<std::uint32_t>(std::strtoul(field("prog_id").c_str(), nullptr, 10));
    m.tag = field("prog_tag");
    m.name = field("prog_name");
    m.mode = field("mode");
    if (!record.complete || m.ifindex <= 0 || m.progId == 0 || m.tag.size() != 16 || m.name.empty() ||
        (m.mode != "skb" && m.mode != "native")) {
        why = "the record does not name a program (interface, id, tag, name and mode)";
        return std::nullopt;
    }
    return m;
}

Result<std::string> detachIfStillOurs(const XdpProgramMark& m)
{
    char name[IF_NAMESIZE] = {};
    if (::if_indextoname(static_cast<unsigned>(m.ifindex), name) == nullptr || m.ifname != name) {
        return std::string("interface gone or renamed");
    }
    bpf_xdp_query_opts query;
    initOpts(query);
    if (int err = bpf_xdp_query(m.ifindex, static_cast<int>(modeFlag(m.mode)), &query); err != 0) {
        return Error::fromErrno("cannot query XDP on " + m.ifname, -err);
    }
    const std::uint32_t attached = m.mode == "native" ? query.drv_prog_id : query.skb_prog_id;
    if (attached == 0) {
        return std::string("already detached");
    }
    if (attached != m.progId) {
        return "program " + std::to_string(attached) + " attached now is not the recorded one: left alone";
    }
    const int fd = bpf_prog_get_fd_by_id(m.progId);
    if (fd < 0) {
        return Error::fromErrno("cannot open program " + std::to_string(m.progId), errno);
    }
    auto info = infoOf(fd);
    if (!info || hexTag(info->tag, sizeof info->tag) != m.tag || m.name != info->name) {
        ::close(fd);
        return "program " + std::to_string(attached) + " has another tag or name than recorded: left alone";
    }
    bpf_xdp_attach_opts opts;
    initOpts(opts);
    opts.old_prog_fd = fd;
    const int err = bpf_xdp_detach(m.ifindex, static_cast<int>(modeFlag(m.mode) | XDP_FLAGS_REPLACE), &opts);
    ::close(fd);
    if (err != 0) {
        return Error::fromErrno("cannot detach it", -err);
    }
    return std::string();
}

Result<OwnerLock> claimXdp(const XdpProgramMark& m, const std::string& dir)
{
    auto attempt = NF_TRY(OwnerLock::acquire("xdp", m.ifname, "noisefloor xdp-rx",
                                             {{"ifindex", std::to_string(m.ifindex)},
                                              {"prog_id", std::to_string(m.progId)},
                                              {"prog_tag", m.tag},
                                              {"prog_name", m.name},
                                              {"mode", m.mode}},
                                             dir));
    if (attempt.holder) {
        return Error{m.ifname + " is in use by a live run: " + describeOwner(*attempt.holder)};
    }
    if (attempt.previous) {  // a killed run's program may still be attached: the one recorded only
        std::string why;
        if (auto old = markOf(*attempt.previous, why)) {
            NF_TRY(detachIfStillOurs(*old).withContext("cannot detach the program a killed run left on " + m.ifname +
                                                       ": "));
        }
    }
    return std::move(*attempt.lock);
}

}  // namespace nf::engine::net
