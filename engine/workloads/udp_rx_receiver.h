#pragma once
// The pieces of udp-rx shared by its one-variant session (udp_rx.cpp) and its variants side by
// side (udp_rx_group.cpp): the settings, the receiving socket and the receiver thread.

#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "engine/model/parameter.h"
#include "engine/net/netns.h"
#include "engine/net/testbed.h"
#include "engine/run/pinned_thread.h"

namespace nf::engine::workloads::udp_rx {

using net::Fd;

inline constexpr std::uint16_t kPort = 5001;  // variant v side by side: kPort + v

struct Config {
    net::TestbedPath path = net::TestbedPath::Veth;
    std::string generator;
    int txCpu = 0;
    int rxCpu = 1;
    bool shareCpu = false;
    std::vector<int> counterCpus;
    int payload = 64;
    int txBatch = 64;
    double rate = 0;
    int batch = 64;
    int busyPoll = 0;
    bool gro = true;
    int rcvbuf = 0;
    // Two hosts (engine/net/remote_generator.h): the generator on tx_host, over ssh.
    std::string txHost;
    std::string iface;
    std::string txIface;
    std::string sshConfig;
};

Result<Config> readConfig(const ParamSet& p);

// The receiving socket, in the receiving namespace (`rx.nsFd` -1: this one), bound to its address and
// `port` (0: one the kernel picks; two hosts: each variant's socket has its own).
Result<Fd> openReceiver(const net::Endpoint& rx, const Config& c, std::uint16_t port);

// The receiver: recvmmsg with `batch` buffers (recvmsg when batch is 1) on a thread pinned to rx_cpu.
class Receiver {
public:
    Receiver(Fd sock, int cpu, int batch)
        : m_sock(std::move(sock)), m_cpu(cpu), m_buffers(static_cast<std::size_t>(batch))
    {
        m_iovs.resize(m_buffers.size());
        m_msgs.resize(m_buffers.size());
        for (std::size_t i = 0; i < m_buffers.size(); ++i) {
            m_iovs[i] = {m_buffers[i].data(), m_buffers[i].size()};
            m_msgs[i].msg_hdr.msg_iov = &m_iovs[i];
            m_msgs[i].msg_hdr.msg_iovlen = 1;
        }
    }
    ~Receiver() { stop(); }
    Receiver(const Receiver&) = delete;
    Receiver& operator=(const Receiver&) = delete;

    pid_t start()
    {
        drain();
        m_stopping.store(false);
        m_tid.store(0);
        m_thread = PinnedThread::start("receiver thread", m_cpu, [this](const std::stop_token&) { loop(); });
        while (m_tid.load() == 0) {
            std::this_thread::yield();
        }
        return m_tid.load();
    }

    void stop()
    {
        if (m_thread.joinable()) {
            m_stopping.store(true);
            m_thread.join();
        }
    }

    const std::string& warning() const { return m_thread.warning(); }

    std::uint64_t packets() const { return m_packets.load(std::memory_order_relaxed); }
    std::uint64_t bytes() const { return m_bytes.load(std::memory_order_relaxed); }

    // Packets the socket dropped (full receive buffer), cumulative: SK_MEMINFO_DROPS.
    std::uint64_t drops() const { return memInfo(SK_MEMINFO_DROPS); }

    // Bytes queued on the socket, not yet received.
    std::uint64_t queued() const { return memInfo(SK_MEMINFO_RMEM_ALLOC); }

private:
    std::uint64_t memInfo(int which) const
    {
        std::uint32_t info[SK_MEMINFO_VARS] = {};
        socklen_t len = sizeof info;
        if (::getsockopt(m_sock.get(), SOL_SOCKET, SO_MEMINFO, info, &len) != 0) {
            return 0;
        }
        return info[which];
    }

    // Discards what queued while stopped, so a repetition starts with an empty socket.
    void drain()
    {
        while (::recvmmsg(m_sock.get(), m_msgs.data(), static_cast<unsigned>(m_msgs.size()), MSG_DONTWAIT, nullptr) >
               0) {
        }
    }

    void loop()
    {
        m_tid.store(static_cast<pid_t>(::syscall(SYS_gettid)));
        std::uint64_t packets = m_packets.load(std::memory_order_relaxed);
        std::uint64_t bytes = m_bytes.load(std::memory_order_relaxed);
        const auto vlen = static_cast<unsigned>(m_msgs.size());
        while (!m_stopping.load(std::memory_order_relaxed)) {
            if (vlen == 1) {
                const ssize_t n = ::recvmsg(m_sock.get(), &m_msgs[0].msg_hdr, 0);
                if (n >= 0) {
                    ++packets;
                    bytes += static_cast<std::uint64_t>(n);
                }
            } else {
                const int n = ::recvmmsg(m_sock.get(), m_msgs.data(), vlen, MSG_WAITFORONE, nullptr);
                for (int i = 0; i < n; ++i) {
                    bytes += m_msgs[static_cast<std::size_t>(i)].msg_len;
                }
                packets += static_cast<std::uint64_t>(std::max(n, 0));
            }
            m_packets.store(packets, std::memory_order_relaxed);
            m_bytes.store(bytes, std::memory_order_relaxed);
        }
    }

    Fd m_sock;
    int m_cpu;
    std::vector<std::array<char, 2048>> m_buffers;
    std::vector<iovec> m_iovs;
    std::vector<mmsghdr> m_msgs;
    std::atomic<bool> m_stopping{false};
    std::atomic<pid_t> m_tid{0};
    std::atomic<std::uint64_t> m_packets{0};
    std::atomic<std::uint64_t> m_bytes{0};
    PinnedThread m_thread;
};

}  // namespace nf::engine::workloads::udp_rx
