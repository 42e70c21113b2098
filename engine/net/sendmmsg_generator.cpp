// The `sendmmsg` generator: one pinned thread, one connected UDP socket, `batch` datagrams a call.

#include <arpa/inet.h>
#include <sys/socket.h>

#include <atomic>
#include <vector>

#include "engine/net/generator.h"
#include "engine/net/pacer.h"
#include "engine/run/pinned_thread.h"

namespace nf::engine::net {

namespace {

class SendmmsgGenerator : public Generator {
public:
    SendmmsgGenerator(Fd sock, const GeneratorOptions& options, sockaddr_in dst)
        : m_sock(std::move(sock)),
          m_options(options),
          m_payload(static_cast<std::size_t>(options.payload), 0x5a),
          m_dst(dst),
          m_port(options.port)
    {
        m_iov = {m_payload.data(), m_payload.size()};
        m_msgs.resize(static_cast<std::size_t>(options.batch));
        for (auto& m : m_msgs) {
            m.msg_hdr.msg_iov = &m_iov;
            m.msg_hdr.msg_iovlen = 1;
        }
    }
    ~SendmmsgGenerator() override { SendmmsgGenerator::stop(); }
    SendmmsgGenerator(const SendmmsgGenerator&) = delete;
    SendmmsgGenerator& operator=(const SendmmsgGenerator&) = delete;

    Result<void> start() override
    {
        stop();
        m_thread =
            PinnedThread::start("generator thread", m_options.cpu, [this](const std::stop_token& stop) { loop(stop); });
        return {};
    }

    void stop() override
    {
        m_thread.requestStop();
        m_thread.join();
    }

    std::string warning() const override { return m_thread.warning(); }

    std::uint64_t sent() const override { return m_sent.load(std::memory_order_relaxed); }

    // The sending thread connects its socket to the new port before its next call.
    bool setPort(std::uint16_t port) override
    {
        m_port.store(port, std::memory_order_release);
        return true;
    }

    std::string describe() const override
    {
        return "sendmmsg, batch " + std::to_string(m_options.batch) + ", " + std::to_string(m_options.payload) +
               "-byte payload, CPU " + std::to_string(m_options.cpu) +
               (m_options.rate > 0 ? ", limited to " + std::to_string(m_options.rate) + " pps" : "");
    }

private:
    void loop(const std::stop_token& stop)
    {
        std::uint64_t sent = m_sent.load(std::memory_order_relaxed);
        const Pacer pacer(m_options.rate, sent);
        std::uint16_t connected = m_options.port;
        while (!stop.stop_requested()) {
            pacer.wait(sent, [&] { return stop.stop_requested(); });
            if (const auto port = m_port.load(std::memory_order_acquire); port != connected) {
                m_dst.sin_port = htons(port);
                if (::connect(m_sock.get(), reinterpret_cast<const sockaddr*>(&m_dst), sizeof m_dst) == 0) {  // NOLINT
                    connected = port;
                }
            }
            const int n = ::sendmmsg(m_sock.get(), m_msgs.data(), static_cast<unsigned>(m_msgs.size()), 0);
            if (n > 0) {
                sent += static_cast<std::uint64_t>(n);
                m_sent.store(sent, std::memory_order_relaxed);
            }
        }
    }

    Fd m_sock;
    GeneratorOptions m_options;
    std::vector<char> m_payload;
    iovec m_iov{};
    std::vector<mmsghdr> m_msgs;
    sockaddr_in m_dst;
    std::atomic<std::uint16_t> m_port;
    std::atomic<std::uint64_t> m_sent{0};
    PinnedThread m_thread;
};

}  // namespace

Result<std::unique_ptr<Generator>> makeSendmmsgGenerator(const Testbed& bed, const GeneratorOptions& options)
{
    auto guard = NetnsGuard::enter(bed.tx().nsFd);
    if (!guard) {
        return guard.error();
    }
    Fd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!sock.valid()) {
        return Error::fromErrno("cannot open the generator's socket");
    }
    sockaddr_in dst{};
    dst.sin_family = AF_INET;
    dst.sin_port = htons(options.port);
    dst.sin_addr = bed.rx().addr;
    if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&dst), sizeof dst) != 0) {  // NOLINT
        return Error::fromErrno("cannot connect the generator's socket");
    }
    return std::unique_ptr<Generator>(std::make_unique<SendmmsgGenerator>(std::move(sock), options, dst));
}

}  // namespace nf::engine::net
