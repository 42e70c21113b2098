#pragma once
// An AF_XDP receive port on one queue of one interface, through libxdp's xsk API: the tool's own
// XDP program (nf_xsk_redirect, net/bpf/xdp_xsk.bpf.c) attached to the interface, a umem with its
// fill and completion rings, and the socket with its RX (and for forwarding, TX) ring.
//
// Teardown order is structural: an XskPort owns the attachment, the umem and the socket as members
// declared in that order, so they are destroyed socket first, then umem, then program, on every
// path out, an error half-way through setting up included.

#include <xdp/xsk.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"

namespace nf::engine::net {

enum class XdpMode { Skb, Native };
enum class XskBind { Copy, ZeroCopy, Auto };

const char* xdpModeName(XdpMode mode);

struct XskOptions {
    int nsFd = -1;  // namespace of the interface; -1: the calling thread's
    std::string ifname;
    int ifindex = 0;
    int queue = 0;
    XdpMode mode = XdpMode::Skb;
    XskBind bind = XskBind::Auto;
    std::uint32_t frameSize = 4096;
    std::uint32_t ringSize = 2048;   // RX ring (and TX and completion rings)
    std::uint32_t deviceRing = 256;  // the device's own receive ring (veth: 256)
    bool txRing = false;             // l2fwd sends frames back
    bool needWakeup = true;          // XDP_USE_NEED_WAKEUP
    // Preferred busy polling (the kernel's napi.rst): SO_PREFER_BUSY_POLL, SO_BUSY_POLL busyPollUs,
    // SO_BUSY_POLL_BUDGET busyPollBudget, and the device's napi_defer_hard_irqs and
    // gro_flush_timeout (kBusyPollNapi, engine/net/napi_defer.h) for the port's life.
    bool busyPoll = false;
    int busyPollUs = 20;
    int busyPollBudget = 64;
    bool force = false;  // replace an XDP program already on the interface
    // Hold the owner locks xdp/IFNAME (engine/net/xdp_owner.h) around the attach and, with busyPoll,
    // napi/IFNAME (engine/net/napi_defer.h) around the device settings.
    bool ownerRecord = false;
};

// XDP_STATISTICS of the socket, cumulative.
struct XskStats {
    std::uint64_t rxDropped = 0;
    std::uint64_t rxInvalidDescs = 0;
    std::uint64_t rxRingFull = 0;
    std::uint64_t rxFillRingEmptyDescs = 0;
    std::uint64_t txInvalidDescs = 0;
};

// nf_xsk_redirect attached to an interface in one mode; detached (only if it is still ours) on
// destruction, and its owner lock released after that.
class XdpAttachment;

// The umem: its memory, the xsk_umem and the fill and completion rings.
class XskUmem;

class NapiDefer;

struct XskSocketDeleter {
    void operator()(xsk_socket* s) const { xsk_socket__delete(s); }
};

class XskPort {
public:
    static Result<std::unique_ptr<XskPort>> open(const XskOptions& options);
    XskPort(const XskPort&) = delete;
    XskPort& operator=(const XskPort&) = delete;
    ~XskPort();

    int fd() const;
    xsk_ring_cons& rx() { return m_rx; }
    xsk_ring_prod& tx() { return m_tx; }
    xsk_ring_prod& fill();
    xsk_ring_cons& completion();
    std::uint8_t* frames() const;
    std::uint32_t frameSize() const { return m_options.frameSize; }
    std::uint32_t fillSize() const { return m_fillSize; }
    bool zeroCopy() const { return m_zeroCopy; }
    bool needWakeup() const { return m_options.needWakeup; }
    bool busyPoll() const { return m_options.busyPoll; }
    unsigned progId() const;
    const XskOptions& options() const { return m_options; }

    Result<XskStats> stats() const;
    std::vector<std::pair<std::string, std::string>> facts() const;

private:
    explicit XskPort(const XskOptions& options);
    Result<void> createSocket(bool zeroCopy);
    Result<void> primeFillRing();

    XskOptions m_options;
    std::uint32_t m_fillSize = 0;
    bool m_zeroCopy = false;
    std::string m_bindNote;
    // Destroyed in reverse: socket, then umem, then program, then the device's busy-poll settings.
    std::unique_ptr<NapiDefer> m_napi;
    std::unique_ptr<XdpAttachment> m_program;
    std::unique_ptr<XskUmem> m_umem;
    std::unique_ptr<xsk_socket, XskSocketDeleter> m_socket;
    xsk_ring_cons m_rx{};
    xsk_ring_prod m_tx{};
};

// The last messages libxdp printed (its print callback is silenced so stderr stays clean).
std::string lastLibxdpMessage();

}  // namespace nf::engine::net
