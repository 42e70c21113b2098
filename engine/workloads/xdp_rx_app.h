#pragma once
// The AF_XDP application of xdp-rx on its own thread pinned to rx_cpu: `rxdrop` counts every frame
// and returns it to the fill ring; `l2fwd` swaps its MAC addresses and sends it back on the TX ring,
// returning frames to the fill ring as they complete. Counts are published with relaxed stores.
// Side by side (xdp_rx_group.cpp) the application of a variant not offered is parked: when its RX
// ring is empty it sleeps in poll() instead of spinning, so it leaves the shared CPU to the variant
// offered, as a blocking receive would; the variant offered runs exactly as alone.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "engine/net/xsk.h"
#include "engine/run/pinned_thread.h"

namespace nf::engine::workloads {

enum class XskAppKind { RxDrop, L2Fwd };

struct XskAppCounts {
    std::uint64_t packets = 0;  // frames taken from the RX ring
    std::uint64_t bytes = 0;
    std::uint64_t emptyPolls = 0;    // RX ring found empty
    std::uint64_t fillFailures = 0;  // fill ring (l2fwd: TX ring) without room for the frames to return
    std::uint64_t txPackets = 0;     // l2fwd: frames the kernel completed sending
    std::uint64_t polls = 0;         // passes over the RX ring, empty or not
};

class XskApp {
public:
    XskApp(net::XskPort& port, XskAppKind kind, int cpu, int batch);
    ~XskApp() { stop(); }
    XskApp(const XskApp&) = delete;
    XskApp& operator=(const XskApp&) = delete;

    // Drains what arrived while stopped (uncounted), then starts the thread; returns its tid.
    pid_t start();
    void stop();
    // "" when the thread was pinned to its CPU, else why not.
    const std::string& warning() const { return m_thread.warning(); }
    XskAppCounts counts() const;
    // Parked: sleep in poll() whenever the RX ring is empty (woken by the next frame, or after 10 ms).
    void park(bool parked) { m_parked.store(parked, std::memory_order_relaxed); }
    // Frames on the RX ring not yet taken by the application (readable from any thread).
    std::uint32_t queued() const;

private:
    void loop();
    void drain();
    void kick();
    void rxDrop(XskAppCounts& c);
    void l2Fwd(XskAppCounts& c);
    void complete(XskAppCounts& c);
    void publish(const XskAppCounts& c);
    void sleepUntilReadable();

    net::XskPort& m_port;
    XskAppKind m_kind;
    int m_cpu;
    std::uint32_t m_batch;
    std::uint32_t m_outstanding = 0;  // l2fwd: frames on the TX ring not yet completed
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_parked{false};
    std::atomic<pid_t> m_tid{0};
    std::atomic<std::uint64_t> m_packets{0};
    std::atomic<std::uint64_t> m_bytes{0};
    std::atomic<std::uint64_t> m_emptyPolls{0};
    std::atomic<std::uint64_t> m_fillFailures{0};
    std::atomic<std::uint64_t> m_polls{0};
    std::atomic<std::uint64_t> m_txPackets{0};
    PinnedThread m_thread;
};

}  // namespace nf::engine::workloads
