// The AF_XDP port. Why the tool attaches its own program instead of libxdp's default one: libxdp
// loads its XSK program through the multi-program dispatcher, which needs BPF trampolines
// (freplace) and, for pinning, a mounted bpffs. Under kernel lockdown (this project's test VM) the
// dispatcher cannot load and libxdp falls back to a single legacy program after printing warnings;
// without bpffs it warns again. nf_xsk_redirect (net/bpf/xdp_xsk.bpf.c) is a plain XSKMAP redirect
// attached with bpf_xdp_attach, the socket is created with XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD and
// registered in the map with xsk_socket__update_xskmap: one code path on every kernel, a program
// named nf_* like every program the tool loads, and a detach that checks it removes its own program.

#include "engine/net/xsk.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include <bit>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/net/libbpf_opts.h"
#include "engine/net/napi_defer.h"
#include "engine/net/netns.h"
#include "engine/net/xdp_owner.h"
#include "xdp_xsk.skel.h"

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif

namespace nf::engine::net {

namespace {

std::mutex g_printMutex;
std::string g_lastMessage;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

int keepLibxdpMessage(libxdp_print_level /*level*/, const char* format, va_list args)
{
    char text[512];
    const int n = std::vsnprintf(text, sizeof text, format, args);  // NOLINT(clang-analyzer-valist.Uninitialized)
    std::string line(n > 0 ? text : "");
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) {
        line.pop_back();
    }
    std::lock_guard lock(g_printMutex);
    g_lastMessage = line;
    return 0;
}

void clearLibxdpMessage()
{
    std::lock_guard lock(g_printMutex);
    g_lastMessage.clear();
}

int keepLibbpfMessage(libbpf_print_level level, const char* format, va_list args)
{
    return keepLibxdpMessage(level == LIBBPF_WARN ? LIBXDP_WARN : LIBXDP_DEBUG, format, args);
}

// libxdp and libbpf print warnings to stderr by default ("Kernel error message: ..."); the tool
// says what failed in its own error line, so their messages are kept instead of printed.
void silenceLibxdp()
{
    static std::once_flag once;
    std::call_once(once, [] {
        libxdp_set_print(keepLibxdpMessage);
        libbpf_set_print(keepLibbpfMessage);
    });
}

std::optional<NetnsGuard> enterIf(int nsFd, Error& error)
{
    if (nsFd < 0) {
        return std::nullopt;
    }
    auto g = NetnsGuard::enter(nsFd);
    if (!g) {
        error = g.error();
        return std::nullopt;
    }
    return std::move(*g);
}

std::uint32_t modeFlags(XdpMode mode)
{
    return mode == XdpMode::Native ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE;
}

struct SkeletonDestroy {
    void operator()(nf_xdp_xsk* s) const { nf_xdp_xsk__destroy(s); }
};

}  // namespace

std::string lastLibxdpMessage()
{
    std::lock_guard lock(g_printMutex);
    return g_lastMessage;
}

const char* xdpModeName(XdpMode mode)
{
    return mode == XdpMode::Native ? "native" : "skb";
}

class XdpAttachment {
public:
    static Result<std::unique_ptr<XdpAttachment>> attach(const XskOptions& o)
    {
        std::unique_ptr<XdpAttachment> a(new XdpAttachment(o));
        NF_TRY(a->load());
        return a;
    }
    XdpAttachment(const XdpAttachment&) = delete;
    XdpAttachment& operator=(const XdpAttachment&) = delete;

    ~XdpAttachment()
    {
        if (m_attached) {
            Error error;
            auto guard = enterIf(m_o.nsFd, error);
            if (m_o.nsFd < 0 || guard) {
                bpf_xdp_attach_opts opts;
                initOpts(opts);
                opts.old_prog_fd = bpf_program__fd(m_skel->progs.nf_xsk_redirect);  // only if still ours
                bpf_xdp_detach(m_o.ifindex, modeFlags(m_o.mode), &opts);
            }
        }
        m_owner.reset();  // after the detach: released only once nothing is left
    }

    int mapFd() const { return bpf_map__fd(m_skel->maps.nf_xsks); }
    unsigned progId() const { return m_progId; }
    const std::string& replaced() const { return m_replaced; }

private:
    explicit XdpAttachment(const XskOptions& o) : m_o(o) {}

    Result<void> load()
    {
        Error error;
        auto guard = enterIf(m_o.nsFd, error);
        if (m_o.nsFd >= 0 && !guard) {
            return error;
        }
        m_skel.reset(nf_xdp_xsk__open_and_load());
        if (!m_skel) {
            return Error::fromErrno("xdp-rx: cannot load the embedded XDP program nf_xsk_redirect");
        }
        const int fd = bpf_program__fd(m_skel->progs.nf_xsk_redirect);
        const auto mark =
            NF_TRY(programMark(fd, m_o.ifname, m_o.ifindex, xdpModeName(m_o.mode)).withContext("xdp-rx: "));
        m_progId = mark.progId;
        if (m_o.ownerRecord) {
            m_owner.emplace(NF_TRY(claimXdp(mark).withContext("xdp-rx: not attaching to " + m_o.ifname + ": ")));
        }
        NF_TRY(checkFree());
        std::uint32_t flags = modeFlags(m_o.mode);
        if (!m_o.force) {
            flags |= XDP_FLAGS_UPDATE_IF_NOEXIST;
        }
        clearLibxdpMessage();
        if (const int err = bpf_xdp_attach(m_o.ifindex, fd, flags, nullptr); err < 0) {
            return attachError(-err);
        }
        m_attached = true;
        return {};
    }

    // Refuses an interface that already runs an XDP program, unless force=1 (which removes it).
    Result<void> checkFree()
    {
        bpf_xdp_query_opts q;
        initOpts(q);
        if (const int err = bpf_xdp_query(m_o.ifindex, 0, &q); err < 0) {
            return Error::fromErrno("xdp-rx: cannot query the XDP programs of " + m_o.ifname, -err);
        }
        struct Existing {
            std::uint32_t id;
            std::uint32_t flags;
            const char* mode;
        };
        for (const Existing e :
             {Existing{q.skb_prog_id, XDP_FLAGS_SKB_MODE, "skb"}, Existing{q.drv_prog_id, XDP_FLAGS_DRV_MODE, "native"},
              Existing{q.hw_prog_id, XDP_FLAGS_HW_MODE, "offload"}}) {
            if (e.id == 0) {
                continue;
            }
            const std::string what =
                m_o.ifname + " already has an XDP program (id " + std::to_string(e.id) + ", " + e.mode + " mode)";
            if (!m_o.force) {
                return Error{"xdp-rx: " + what + ": refusing to replace it (force=1 replaces it for the run)"};
            }
            if (const int err = bpf_xdp_detach(m_o.ifindex, e.flags, nullptr); err < 0) {
                return Error::fromErrno("xdp-rx: force=1: cannot detach the XDP program of " + m_o.ifname, -err);
            }
            m_replaced = "program id " + std::to_string(e.id) + " (" + e.mode + " mode), detached by force=1";
        }
        return {};
    }

    Error attachError(int err) const
    {
        const std::string where =
            "xdp-rx: cannot attach nf_xsk_redirect to " + m_o.ifname + " in " + xdpModeName(m_o.mode) + " mode";
        if (err == EOPNOTSUPP && m_o.mode == XdpMode::Native) {
            return Error{where + ": the driver has no native XDP support (xdp_mode=skb works on any device)", err};
        }
        if (err == EEXIST || err == EBUSY) {
            return Error{where + ": another XDP program is attached (force=1 replaces it)", err};
        }
        const auto said = lastLibxdpMessage();
        return Error::fromErrno(where + (said.empty() ? "" : " (" + said + ")"), err);
    }

    XskOptions m_o;
    std::unique_ptr<nf_xdp_xsk, SkeletonDestroy> m_skel;
    unsigned m_progId = 0;
    bool m_attached = false;
    std::optional<OwnerLock> m_owner;  // before the attach, released after the detach
    std::string m_replaced;
};

class XskUmem {
public:
    static Result<std::unique_ptr<XskUmem>> create(std::uint32_t frames, std::uint32_t frameSize,
                                                   std::uint32_t fillSize, std::uint32_t compSize)
    {
        std::unique_ptr<XskUmem> u(new XskUmem());
        u->m_size = static_cast<std::size_t>(frames) * frameSize;
        void* area =
            ::mmap(nullptr, u->m_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (area == MAP_FAILED) {
            return Error::fromErrno("xdp-rx: cannot map " + std::to_string(u->m_size) + " bytes of umem");
        }
        u->m_area = static_cast<std::uint8_t*>(area);
        xsk_umem_config cfg{};
        cfg.fill_size = fillSize;
        cfg.comp_size = compSize;
        cfg.frame_size = frameSize;
        cfg.frame_headroom = 0;
        cfg.flags = 0;
        if (const int err = xsk_umem__create(&u->m_umem, u->m_area, u->m_size, &u->m_fill, &u->m_comp, &cfg); err < 0) {
            u->m_umem = nullptr;
            return Error::fromErrno("xdp-rx: cannot register the umem (frame_size=" + std::to_string(frameSize) + ", " +
                                        std::to_string(frames) + " frames)",
                                    -err);
        }
        return u;
    }
    XskUmem(const XskUmem&) = delete;
    XskUmem& operator=(const XskUmem&) = delete;
    ~XskUmem()
    {
        if (m_umem != nullptr) {
            xsk_umem__delete(m_umem);
        }
        if (m_area != nullptr) {
            ::munmap(m_area, m_size);
        }
    }

    xsk_umem* get() const { return m_umem; }
    std::uint8_t* area() const { return m_area; }
    xsk_ring_prod& fill() { return m_fill; }
    xsk_ring_cons& comp() { return m_comp; }

private:
    XskUmem() = default;
    std::uint8_t* m_area = nullptr;
    std::size_t m_size = 0;
    xsk_umem* m_umem = nullptr;
    xsk_ring_prod m_fill{};
    xsk_ring_cons m_comp{};
};

XskPort::XskPort(const XskOptions& options) : m_options(options) {}

XskPort::~XskPort() = default;

int XskPort::fd() const
{
    return xsk_socket__fd(m_socket.get());
}

xsk_ring_prod& XskPort::fill()
{
    return m_umem->fill();
}

xsk_ring_cons& XskPort::completion()
{
    return m_umem->comp();
}

std::uint8_t* XskPort::frames() const
{
    return m_umem->area();
}

unsigned XskPort::progId() const
{
    return m_program->progId();
}

Result<std::unique_ptr<XskPort>> XskPort::open(const XskOptions& options)
{
    silenceLibxdp();
    std::unique_ptr<XskPort> port(new XskPort(options));
    auto& o = port->m_options;
    // The fill ring holds the RX ring and the device's ring at once, so neither runs dry first.
    port->m_fillSize = std::bit_ceil(o.ringSize + o.deviceRing);
    port->m_program = NF_TRY(XdpAttachment::attach(o));
    if (o.busyPoll) {
        port->m_napi = NF_TRY(NapiDefer::apply(o.nsFd, o.ifname, o.ifindex, kBusyPollNapi, o.ownerRecord)
                                  .withContext("xdp-rx: busy_poll=1: "));
    }
    if (o.bind == XskBind::Copy) {
        NF_TRY(port->createSocket(false));
    } else {
        auto r = port->createSocket(true);
        if (!r && o.bind == XskBind::Auto && r.error().errnum == EOPNOTSUPP) {
            port->m_bindNote = "zero-copy refused by " + o.ifname + " (EOPNOTSUPP), fell back to copy";
            r = port->createSocket(false);
        }
        if (!r) {
            return r.error();
        }
    }
    NF_TRY(port->primeFillRing());
    return port;
}

Result<void> XskPort::createSocket(bool zeroCopy)
{
    m_socket.reset();  // a failed attempt's umem is not reused: its rings may be half set up
    m_umem.reset();
    xsk_socket_config cfg{};
    cfg.rx_size = m_options.ringSize;
    cfg.tx_size = m_options.ringSize;
    cfg.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
    cfg.xdp_flags = modeFlags(m_options.mode);
    cfg.bind_flags = static_cast<std::uint16_t>((zeroCopy ? XDP_ZEROCOPY : XDP_COPY) |
                                                (m_options.needWakeup ? XDP_USE_NEED_WAKEUP : 0));
    // The umem's descriptor is the first socket, and a socket binds to an ifindex of the namespace it
    // was created in: both are made inside the interface's namespace.
    Error error;
    auto guard = enterIf(m_options.nsFd, error);
    if (m_options.nsFd >= 0 && !guard) {
        return error;
    }
    m_umem = NF_TRY(XskUmem::create(m_fillSize, m_options.frameSize, m_fillSize, m_options.ringSize));
    xsk_socket* socket = nullptr;
    int err = 0;
    // A queue just released by a closed socket can refuse a new bind for a moment (EBUSY).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    do {
        err = xsk_socket__create(&socket, m_options.ifname.c_str(), static_cast<std::uint32_t>(m_options.queue),
                                 m_umem->get(), &m_rx, m_options.txRing ? &m_tx : nullptr, &cfg);
        if (err == -EBUSY) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    } while (err == -EBUSY && std::chrono::steady_clock::now() < deadline);
    if (err < 0) {
        const std::string where = "xdp-rx: cannot bind an AF_XDP socket to " + m_options.ifname + " queue " +
                                  std::to_string(m_options.queue) + " (" + (zeroCopy ? "zero-copy" : "copy") + ")";
        if (-err == EINVAL) {
            return Error{where + ": invalid argument (queue=" + std::to_string(m_options.queue) +
                             " may not exist, or frame_size/ring_size are not accepted)",
                         EINVAL};
        }
        if (-err == EOPNOTSUPP && zeroCopy) {
            return Error{where + ": the driver does not support zero-copy (bind=copy or bind=auto works)", EOPNOTSUPP};
        }
        return Error::fromErrno(where, -err);
    }
    m_socket.reset(socket);
    m_zeroCopy = zeroCopy;
    if (const int e = xsk_socket__update_xskmap(socket, m_program->mapFd()); e < 0) {
        return Error::fromErrno("xdp-rx: cannot register the socket in nf_xsks", -e);
    }
    if (m_options.busyPoll) {
        const int fd = xsk_socket__fd(socket);
        const int one = 1;
        const int usecs = m_options.busyPollUs;
        const int budget = m_options.busyPollBudget;
        if (::setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof one) != 0 ||
            ::setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &usecs, sizeof usecs) != 0 ||
            ::setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof budget) != 0) {
            return Error::fromErrno("xdp-rx: busy_poll=1: cannot set SO_PREFER_BUSY_POLL, SO_BUSY_POLL " +
                                    std::to_string(usecs) + " us and SO_BUSY_POLL_BUDGET " + std::to_string(budget) +
                                    (budget > 64 ? " (a budget over 64 needs CAP_NET_ADMIN)" : ""));
        }
    }
    return {};
}

Result<void> XskPort::primeFillRing()
{
    auto& fq = m_umem->fill();
    std::uint32_t idx = 0;
    if (xsk_ring_prod__reserve(&fq, m_fillSize, &idx) != m_fillSize) {
        return Error{"xdp-rx: cannot prime the fill ring with " + std::to_string(m_fillSize) + " frames"};
    }
    for (std::uint32_t i = 0; i < m_fillSize; ++i) {
        *xsk_ring_prod__fill_addr(&fq, idx++) = static_cast<std::uint64_t>(i) * m_options.frameSize;
    }
    xsk_ring_prod__submit(&fq, m_fillSize);
    return {};
}

Result<XskStats> XskPort::stats() const
{
    xdp_statistics s{};
    socklen_t len = sizeof s;
    if (::getsockopt(fd(), SOL_XDP, XDP_STATISTICS, &s, &len) != 0) {
        return Error::fromErrno("xdp-rx: XDP_STATISTICS");
    }
    return XskStats{s.rx_dropped, s.rx_invalid_descs, s.rx_ring_full, s.rx_fill_ring_empty_descs, s.tx_invalid_descs};
}

std::vector<std::pair<std::string, std::string>> XskPort::facts() const
{
    std::vector<std::pair<std::string, std::string>> out = {
        {"xdp_program", "nf_xsk_redirect (id " + std::to_string(progId()) + ", " + xdpModeName(m_options.mode) +
                            " mode) on " + m_options.ifname +
                            ", attached as a single program: libxdp's dispatcher is not used"},
        {"xsk_bind", std::string(m_zeroCopy ? "zero-copy" : "copy") + (m_bindNote.empty() ? "" : ": " + m_bindNote)},
        {"xsk_queue", std::to_string(m_options.queue)},
        {"xsk_rings", "RX " + std::to_string(m_options.ringSize) + ", fill " + std::to_string(m_fillSize) +
                          " (primed full: RX ring + device ring " + std::to_string(m_options.deviceRing) +
                          " rounded up), frame " + std::to_string(m_options.frameSize) + " bytes"},
        {"xsk_need_wakeup", m_options.needWakeup ? "1" : "0"},
        {"xsk_busy_poll", m_options.busyPoll
                              ? "SO_PREFER_BUSY_POLL, SO_BUSY_POLL " + std::to_string(m_options.busyPollUs) +
                                    " us, SO_BUSY_POLL_BUDGET " + std::to_string(m_options.busyPollBudget)
                              : "off"},
    };
    if (m_napi) {
        for (auto& [name, value] : m_napi->facts()) {
            out.emplace_back(name, m_options.ifname + ": " + value);
        }
    }
    if (!m_program->replaced().empty()) {
        out.emplace_back("xdp_replaced", m_program->replaced());
    }
    return out;
}

}  // namespace nf::engine::net
