#include "engine/workloads/xdp_rx_app.h"

#include <linux/if_ether.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "engine/net/cpu_pin.h"

namespace nf::engine::workloads {

XskApp::XskApp(net::XskPort& port, XskAppKind kind, int cpu, int batch)
    : m_port(port), m_kind(kind), m_cpu(cpu), m_batch(static_cast<std::uint32_t>(std::max(batch, 1)))
{
}

pid_t XskApp::start()
{
    drain();
    m_stopping.store(false);
    m_tid.store(0);
    m_thread = PinnedThread::start("AF_XDP application thread", m_cpu, [this](const std::stop_token&) { loop(); });
    while (m_tid.load() == 0) {
        std::this_thread::yield();
    }
    return m_tid.load();
}

void XskApp::stop()
{
    if (m_thread.joinable()) {
        m_stopping.store(true);
        m_thread.join();
    }
}

XskAppCounts XskApp::counts() const
{
    return {m_packets.load(std::memory_order_relaxed),    m_bytes.load(std::memory_order_relaxed),
            m_emptyPolls.load(std::memory_order_relaxed), m_fillFailures.load(std::memory_order_relaxed),
            m_txPackets.load(std::memory_order_relaxed),  m_polls.load(std::memory_order_relaxed)};
}

// Returns every frame waiting on the RX (and completion) ring to the fill ring, uncounted, so a
// repetition starts with empty rings.
void XskApp::drain()
{
    XskAppCounts ignored;
    for (int i = 0; i < 64; ++i) {
        if (m_kind == XskAppKind::L2Fwd) {
            complete(ignored);
        }
        std::uint32_t idx = 0;
        const std::uint32_t n = xsk_ring_cons__peek(&m_port.rx(), m_port.fillSize(), &idx);
        if (n == 0) {
            break;
        }
        std::uint32_t fidx = 0;
        if (xsk_ring_prod__reserve(&m_port.fill(), n, &fidx) != n) {
            break;
        }
        for (std::uint32_t k = 0; k < n; ++k) {
            *xsk_ring_prod__fill_addr(&m_port.fill(), fidx++) =
                xsk_umem__extract_addr(xsk_ring_cons__rx_desc(&m_port.rx(), idx++)->addr);
        }
        xsk_ring_prod__submit(&m_port.fill(), n);
        xsk_ring_cons__release(&m_port.rx(), n);
    }
}

// Wakes the kernel side: with need_wakeup when it asks for it, and always with busy polling (the
// system call is where the busy poll runs).
void XskApp::kick()
{
    ::recvfrom(m_port.fd(), nullptr, 0, MSG_DONTWAIT, nullptr, nullptr);
}

void XskApp::publish(const XskAppCounts& c)
{
    m_packets.store(c.packets, std::memory_order_relaxed);
    m_bytes.store(c.bytes, std::memory_order_relaxed);
    m_emptyPolls.store(c.emptyPolls, std::memory_order_relaxed);
    m_fillFailures.store(c.fillFailures, std::memory_order_relaxed);
    m_txPackets.store(c.txPackets, std::memory_order_relaxed);
    m_polls.store(c.polls, std::memory_order_relaxed);
}

std::uint32_t XskApp::queued() const
{
    const auto& rx = m_port.rx();
    if (rx.producer == nullptr || rx.consumer == nullptr) {
        return 0;
    }
    return __atomic_load_n(rx.producer, __ATOMIC_ACQUIRE) - __atomic_load_n(rx.consumer, __ATOMIC_ACQUIRE);
}

// The kernel wakes a poller of an AF_XDP socket whenever it adds frames to the RX ring.
void XskApp::sleepUntilReadable()
{
    constexpr int kParkedPollMs = 10;  // bounds how long a stop waits for a parked application
    pollfd p{m_port.fd(), POLLIN, 0};
    ::poll(&p, 1, kParkedPollMs);
}

void XskApp::loop()
{
    m_tid.store(static_cast<pid_t>(::syscall(SYS_gettid)));
    XskAppCounts c = counts();
    while (!m_stopping.load(std::memory_order_relaxed)) {
        const auto before = c.packets;
        if (m_kind == XskAppKind::RxDrop) {
            rxDrop(c);
        } else {
            l2Fwd(c);
        }
        publish(c);
        if (c.packets == before && m_parked.load(std::memory_order_relaxed)) {
            sleepUntilReadable();
        }
    }
}

void XskApp::rxDrop(XskAppCounts& c)
{
    auto& rx = m_port.rx();
    auto& fq = m_port.fill();
    std::uint32_t idx = 0;
    const std::uint32_t n = xsk_ring_cons__peek(&rx, m_batch, &idx);
    ++c.polls;
    if (n == 0) {
        ++c.emptyPolls;
        if (m_port.busyPoll() || xsk_ring_prod__needs_wakeup(&fq)) {
            kick();
        }
        return;
    }
    std::uint32_t fidx = 0;
    while (xsk_ring_prod__reserve(&fq, n, &fidx) != n) {
        ++c.fillFailures;
        if (m_port.busyPoll() || xsk_ring_prod__needs_wakeup(&fq)) {
            kick();
        }
        if (m_stopping.load(std::memory_order_relaxed)) {
            return;
        }
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        const xdp_desc* d = xsk_ring_cons__rx_desc(&rx, idx++);
        c.bytes += d->len;
        *xsk_ring_prod__fill_addr(&fq, fidx++) = xsk_umem__extract_addr(d->addr);
    }
    xsk_ring_prod__submit(&fq, n);
    xsk_ring_cons__release(&rx, n);
    c.packets += n;
}

// Moves completed TX frames back to the fill ring. In copy mode the kernel sends only inside a
// system call, so every pass with frames outstanding kicks it.
void XskApp::complete(XskAppCounts& c)
{
    if (m_outstanding == 0) {
        return;
    }
    if (!m_port.zeroCopy() || xsk_ring_prod__needs_wakeup(&m_port.tx())) {
        ::sendto(m_port.fd(), nullptr, 0, MSG_DONTWAIT, nullptr, 0);
    }
    auto& cq = m_port.completion();
    auto& fq = m_port.fill();
    std::uint32_t cidx = 0;
    const std::uint32_t n = xsk_ring_cons__peek(&cq, m_port.fillSize(), &cidx);
    if (n == 0) {
        return;
    }
    std::uint32_t fidx = 0;
    while (xsk_ring_prod__reserve(&fq, n, &fidx) != n) {
        ++c.fillFailures;
        if (m_stopping.load(std::memory_order_relaxed)) {
            return;
        }
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        *xsk_ring_prod__fill_addr(&fq, fidx++) = *xsk_ring_cons__comp_addr(&cq, cidx++);
    }
    xsk_ring_prod__submit(&fq, n);
    xsk_ring_cons__release(&cq, n);
    m_outstanding -= n;
    c.txPackets += n;
}

void XskApp::l2Fwd(XskAppCounts& c)
{
    complete(c);
    auto& rx = m_port.rx();
    auto& tx = m_port.tx();
    std::uint32_t idx = 0;
    const std::uint32_t n = xsk_ring_cons__peek(&rx, m_batch, &idx);
    ++c.polls;
    if (n == 0) {
        ++c.emptyPolls;
        if (m_port.busyPoll() || xsk_ring_prod__needs_wakeup(&m_port.fill())) {
            kick();
        }
        return;
    }
    std::uint32_t tidx = 0;
    while (xsk_ring_prod__reserve(&tx, n, &tidx) != n) {
        ++c.fillFailures;
        complete(c);
        if (m_stopping.load(std::memory_order_relaxed)) {
            return;
        }
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        const xdp_desc* in = xsk_ring_cons__rx_desc(&rx, idx++);
        std::uint8_t* frame = m_port.frames() + xsk_umem__add_offset_to_addr(in->addr);
        std::uint8_t mac[ETH_ALEN];
        std::memcpy(mac, frame, ETH_ALEN);
        std::memcpy(frame, frame + ETH_ALEN, ETH_ALEN);
        std::memcpy(frame + ETH_ALEN, mac, ETH_ALEN);
        xdp_desc* out = xsk_ring_prod__tx_desc(&tx, tidx++);
        out->addr = in->addr;
        out->len = in->len;
        c.bytes += in->len;
    }
    xsk_ring_prod__submit(&tx, n);
    xsk_ring_cons__release(&rx, n);
    m_outstanding += n;
    c.packets += n;
}

}  // namespace nf::engine::workloads
