#include "engine/net/xdp_check.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <mutex>

#include "base/system_facts.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/libbpf_opts.h"
#include "engine/net/testbed.h"
#include "xdp_gen.skel.h"

namespace nf::engine::net {

namespace {

using Level = MachineCheck::Level;

// include/uapi/linux/netdev.h (Linux 6.3+), which Debian 12's headers predate. UAPI: stable.
constexpr std::uint8_t kNetdevCmdDevGet = 1;
constexpr int kAttrIfindex = 1;
constexpr int kAttrXdpFeatures = 3;
constexpr int kAttrXdpZcMaxSegs = 4;
constexpr int kAttrMax = kAttrXdpZcMaxSegs;
constexpr std::uint64_t kActBasic = 1U << 0U;
constexpr std::uint64_t kActRedirect = 1U << 1U;
constexpr std::uint64_t kActNdoXmit = 1U << 2U;
constexpr std::uint64_t kActXskZeroCopy = 1U << 3U;
constexpr std::uint64_t kActRxSg = 1U << 5U;

constexpr long kBpfFsMagic = 0xcafe4a11;

struct FeatureReply {
    XdpFeatures features;
    bool received = false;
};

int onFeatureReply(nl_msg* msg, void* arg)
{
    auto* reply = static_cast<FeatureReply*>(arg);
    nlattr* attrs[kAttrMax + 1] = {};
    if (genlmsg_parse(nlmsg_hdr(msg), 0, attrs, kAttrMax, nullptr) < 0) {
        return NL_SKIP;
    }
    if (attrs[kAttrXdpFeatures] != nullptr) {
        const std::uint64_t bits = nla_get_u64(attrs[kAttrXdpFeatures]);
        reply->features.basic = (bits & kActBasic) != 0;
        reply->features.redirect = (bits & kActRedirect) != 0;
        reply->features.ndoXmit = (bits & kActNdoXmit) != 0;
        reply->features.zeroCopy = (bits & kActXskZeroCopy) != 0;
        reply->features.rxSg = (bits & kActRxSg) != 0;
    }
    if (attrs[kAttrXdpZcMaxSegs] != nullptr) {
        reply->features.zcMaxSegs = nla_get_u32(attrs[kAttrXdpZcMaxSegs]);
    }
    reply->received = true;
    return NL_OK;
}

std::string netlinkError(const std::string& what, int err)
{
    return what + ": " + nl_geterror(err);
}

// Collects what libxdp and libbpf print while a probe runs, instead of letting it reach stderr.
class CapturedLibraryOutput {
public:
    CapturedLibraryOutput()
    {
        const std::lock_guard lock(mutex());
        text().clear();
        m_oldXdp = libxdp_set_print(&CapturedLibraryOutput::capture);
        m_oldBpf = libbpf_set_print(&CapturedLibraryOutput::captureBpf);
    }
    CapturedLibraryOutput(const CapturedLibraryOutput&) = delete;
    CapturedLibraryOutput& operator=(const CapturedLibraryOutput&) = delete;
    ~CapturedLibraryOutput()
    {
        libxdp_set_print(m_oldXdp);
        libbpf_set_print(m_oldBpf);
    }

    // libxdp's first warning or notice, without its prefix: why it did what it did.
    static std::string reason()
    {
        const std::lock_guard lock(mutex());
        const std::string& all = text();
        std::string line = all.substr(0, all.find('\n'));
        const std::string prefix = "libxdp: ";
        return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
    }

private:
    static std::mutex& mutex()
    {
        static std::mutex m;
        return m;
    }
    static std::string& text()
    {
        static std::string t;
        return t;
    }
    // Keeps libxdp's warnings and notices (not its debug chatter, nor "Falling back ...", which
    // follows the reason); libbpf's own lines only repeat what libxdp sums up.
    static int capture(enum libxdp_print_level level, const char* format, va_list args)
    {
        char buf[512];
        const int n = std::vsnprintf(buf, sizeof buf, format, args);
        const std::string line = buf;
        if (level <= LIBXDP_INFO && line.find("Falling back") == std::string::npos) {
            const std::lock_guard lock(mutex());
            text() += line;
        }
        return n;
    }
    static int captureBpf(enum libbpf_print_level /*level*/, const char* /*format*/, va_list /*args*/) { return 0; }

    libxdp_print_fn_t m_oldXdp = nullptr;
    libbpf_print_fn_t m_oldBpf = nullptr;
};

MachineCheck featureCheck(const Result<XdpFeatures>& features)
{
    if (!features) {
        return {"XDP modes", Level::Info, "generic (skb) mode only is certain: " + features.error().message,
                "native mode works only if the driver implements XDP; xdp_mode=skb always works"};
    }
    const XdpFeatures& f = *features;
    std::string detail = "generic (skb): yes; native (driver): ";
    detail += f.basic ? std::string("yes") + (f.redirect ? ", with XDP_REDIRECT" : ", without XDP_REDIRECT") : "no";
    detail += f.ndoXmit ? "; redirect target: yes" : "; redirect target: no";
    detail += f.rxSg ? "; multi-buffer: yes" : "";
    const bool nativeXsk = f.basic && f.redirect;
    return {"XDP modes", nativeXsk ? Level::Ok : Level::Warn, detail,
            nativeXsk ? ""
                      : "the driver cannot feed AF_XDP in native mode: use xdp_mode=skb (generic), which copies every "
                        "frame into an skb first"};
}

MachineCheck zeroCopyCheck(const Result<XdpFeatures>& features)
{
    if (!features) {
        return {"AF_XDP zero-copy", Level::Info, "unknown (" + features.error().message + ")",
                "bind=auto tries zero-copy and falls back to copy mode"};
    }
    if (!features->zeroCopy) {
        return {"AF_XDP zero-copy", Level::Info, "not supported: bind=zerocopy is refused, bind=auto uses copy mode",
                ""};
    }
    return {"AF_XDP zero-copy", Level::Ok,
            "supported" + (features->zcMaxSegs > 1 ? " (up to " + std::to_string(features->zcMaxSegs) + " segments)"
                                                   : std::string()),
            ""};
}

MachineCheck attachedCheck(int ifindex)
{
    const auto programs = attachedXdpPrograms(ifindex);
    if (programs.empty()) {
        return {"XDP program", Level::Ok, "none attached", ""};
    }
    std::string detail;
    for (const auto& p : programs) {
        detail += (detail.empty() ? "" : "; ") + std::string("id ") + std::to_string(p.id) +
                  (p.name.empty() ? "" : " (" + p.name + ")") + " in " + p.mode + " mode";
    }
    return {"XDP program", Level::Warn, "attached: " + detail,
            "xdp-rx refuses to attach over it: detach it (ip link set dev IFACE xdp off), run noisefloor cleanup if a "
            "killed run left it, or pass force=1"};
}

MachineCheck bpffsCheck()
{
    struct statfs fs {};
    if (::statfs("/sys/fs/bpf", &fs) == 0 && fs.f_type == kBpfFsMagic) {
        return {"bpffs", Level::Ok, "mounted at /sys/fs/bpf", ""};
    }
    return {"bpffs", Level::Info,
            "not mounted: libxdp cannot pin a dispatcher, so it attaches one program per interface",
            "mount -t bpf bpf /sys/fs/bpf"};
}

MachineCheck dispatcherCheck()
{
    const std::string lockdown = base::readKernelLockdown();
    const std::string lockdownText = lockdown.empty() ? "lockdown unknown" : "lockdown=" + lockdown;
    if (!hasCapability(CAP_NET_ADMIN) || !hasCapability(CAP_SYS_ADMIN)) {
        return {"libxdp dispatcher", Level::Info, lockdownText + "; not probed (needs CAP_NET_ADMIN and CAP_SYS_ADMIN)",
                ""};
    }
    auto how = probeLibxdpDispatcher();
    if (!how) {
        return {"libxdp dispatcher", Level::Warn, lockdownText + "; probe failed: " + how.error().message, ""};
    }
    const bool multi = how->rfind("multi-program", 0) == 0;
    return {"libxdp dispatcher", Level::Info, lockdownText + "; " + *how,
            multi ? ""
                  : "fine for noisefloor, which attaches one program; other XDP users of the device must detach first"};
}

MachineCheck privilegeCheck()
{
    std::string missing;
    const std::pair<int, const char*> needed[] = {{CAP_NET_ADMIN, "CAP_NET_ADMIN"},
                                                  {CAP_SYS_ADMIN, "CAP_SYS_ADMIN"},
                                                  {CAP_BPF, "CAP_BPF"},
                                                  {CAP_PERFMON, "CAP_PERFMON"}};
    for (const auto& [cap, name] : needed) {
        if (!hasCapability(cap)) {
            missing += (missing.empty() ? "" : ", ") + std::string(name);
        }
    }
    if (missing.empty()) {
        return {"XDP privileges", Level::Ok, "CAP_NET_ADMIN, CAP_SYS_ADMIN, CAP_BPF and CAP_PERFMON held", ""};
    }
    return {"XDP privileges", Level::Warn, "missing " + missing,
            "run as root: attaching XDP needs CAP_NET_ADMIN, loading it CAP_BPF, the testbed's namespaces "
            "CAP_SYS_ADMIN, the counters CAP_PERFMON"};
}

}  // namespace

Result<XdpFeatures> queryXdpFeatures(int ifindex)
{
    std::unique_ptr<nl_sock, decltype(&nl_socket_free)> sock(nl_socket_alloc(), &nl_socket_free);
    if (!sock) {
        return Error{"generic netlink: out of memory"};
    }
    if (int err = genl_connect(sock.get()); err < 0) {
        return Error{netlinkError("generic netlink", err)};
    }
    const int family = genl_ctrl_resolve(sock.get(), "netdev");
    if (family < 0) {
        return Error{"the kernel has no netdev netlink family (Linux < 6.3)"};
    }
    std::unique_ptr<nl_msg, decltype(&nlmsg_free)> msg(nlmsg_alloc(), &nlmsg_free);
    if (!msg || genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, kNetdevCmdDevGet, 1) == nullptr ||
        nla_put_u32(msg.get(), kAttrIfindex, static_cast<std::uint32_t>(ifindex)) < 0) {
        return Error{"generic netlink: cannot build the netdev request"};
    }
    FeatureReply reply;
    nl_socket_disable_auto_ack(sock.get());
    nl_socket_modify_cb(sock.get(), NL_CB_VALID, NL_CB_CUSTOM, &onFeatureReply, &reply);
    if (int err = nl_send_auto(sock.get(), msg.get()); err < 0) {
        return Error{netlinkError("netdev dev-get", err)};
    }
    if (int err = nl_recvmsgs_default(sock.get()); err < 0) {
        return Error{netlinkError("netdev dev-get", err)};
    }
    if (!reply.received) {
        return Error{"netdev dev-get: no reply"};
    }
    return reply.features;
}

std::vector<AttachedXdp> attachedXdpPrograms(int ifindex)
{
    std::vector<AttachedXdp> out;
    bpf_xdp_query_opts query;
    initOpts(query);
    if (bpf_xdp_query(ifindex, 0, &query) != 0) {
        return out;
    }
    const std::pair<std::uint32_t, const char*> slots[] = {
        {query.drv_prog_id, "native"}, {query.skb_prog_id, "generic"}, {query.hw_prog_id, "offload"}};
    for (const auto& [id, mode] : slots) {
        if (id == 0) {
            continue;
        }
        AttachedXdp program{id, "", mode};
        if (const int fd = bpf_prog_get_fd_by_id(id); fd >= 0) {
            bpf_prog_info info{};
            std::uint32_t len = sizeof info;
            if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0) {
                program.name = info.name;
            }
            ::close(fd);
        }
        out.push_back(std::move(program));
    }
    return out;
}

Result<std::string> probeLibxdpDispatcher()
{
    auto bed = NF_TRY(Testbed::create({TestbedPath::Veth, true}));
    const std::unique_ptr<nf_xdp_gen, decltype(&nf_xdp_gen__destroy)> skel(nf_xdp_gen__open(), &nf_xdp_gen__destroy);
    if (!skel) {
        return Error::fromErrno("cannot open the embedded XDP programs", errno);
    }
    bpf_program__set_autoload(skel->progs.nf_xdp_tx, false);
    const CapturedLibraryOutput captured;
    xdp_program_opts opts;
    initOpts(opts);
    opts.obj = skel->obj;
    opts.prog_name = "nf_xdp_pass";
    xdp_program* program = xdp_program__create(&opts);
    if (const long err = libxdp_get_error(program); err != 0) {
        return Error::fromErrno("libxdp cannot open a program", static_cast<int>(-err));
    }
    const std::unique_ptr<xdp_program, decltype(&xdp_program__close)> owned(program, &xdp_program__close);
    auto inNs = NF_TRY(NetnsGuard::enter(bed->rx().nsFd));
    const int ifindex = bed->rx().ifindex;
    if (const int err = xdp_program__attach(program, ifindex, XDP_MODE_NATIVE, 0); err != 0) {
        return Error::fromErrno("libxdp cannot attach even one program (" + CapturedLibraryOutput::reason() + ")",
                                -err);
    }
    std::string how = "multi-program dispatcher";
    xdp_multiprog* mp = xdp_multiprog__get_from_ifindex(ifindex);
    if (libxdp_get_error(mp) == 0 && xdp_multiprog__is_legacy(mp)) {
        const std::string why = CapturedLibraryOutput::reason();
        how = "single program per interface" + (why.empty() ? std::string() : " (libxdp: " + why + ")");
    }
    if (libxdp_get_error(mp) == 0) {
        xdp_multiprog__close(mp);
    }
    xdp_program__detach(program, ifindex, XDP_MODE_NATIVE, 0);
    return how;
}

std::vector<MachineCheck> checkXdp(int ifindex)
{
    const auto features = queryXdpFeatures(ifindex);
    std::vector<MachineCheck> out;
    out.push_back(featureCheck(features));
    out.push_back(zeroCopyCheck(features));
    out.push_back(attachedCheck(ifindex));
    out.push_back(bpffsCheck());
    out.push_back(dispatcherCheck());
    out.push_back(privilegeCheck());
    return out;
}

}  // namespace nf::engine::net
