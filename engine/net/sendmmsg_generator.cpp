// The `sendmmsg` generator: one pinned thread, one connected UDP socket, `batch` datagrams a call.

#include <arpa/inet.h>
#include <sys/socket.h>
#include <time.h>

#include <atomic>
#include <thread>
#include <vector>

#include "engine/net/cpu_pin.h"
#include "engine/net/generator.h"

namespace nf::engine::net {

namespace {

std::uint64_t monotonicNs()
{
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

class SendmmsgGenerator : public Generator {
public:
    SendmmsgGenerator(Fd sock, const GeneratorOptions& options)
        : m_sock(std::move(sock)), m_options(options), m_payload(static_cast<std::size_t>(options.payload), 0x5a)
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
        m_stopping.store(false);
        m_thread = std::jthread([this] { loop(); });
        return {};
    }

    void stop() override
    {
        if (m_thread.joinable()) {
            m_stopping.store(true);
            m_thread.join();
        }
    }

    std::uint64_t sent() const override { return m_sent.load(std::memory_order_relaxed); }

    std::string describe() const override
    {
        return "sendmmsg, batch " + std::to_string(m_options.batch) + ", " + std::to_string(m_options.payload) +
               "-byte payload, CPU " + std::to_string(m_options.cpu) +
               (m_options.rate > 0 ? ", limited to " + std::to_string(m_options.rate) + " pps" : "");
    }

private:
    void loop()
    {
        static_cast<void>(pinThread(m_options.cpu));
        std::uint64_t sent = m_sent.load(std::memory_order_relaxed);
        const std::uint64_t t0 = monotonicNs();
        const std::uint64_t base = sent;
        const double nsPerPacket = m_options.rate > 0 ? 1e9 / m_options.rate : 0;
        while (!m_stopping.load(std::memory_order_relaxed)) {
            if (nsPerPacket > 0) {
                const auto due = t0 + static_cast<std::uint64_t>(static_cast<double>(sent - base) * nsPerPacket);
                const auto now = monotonicNs();
                if (now < due) {
                    if (due - now > 200000) {
                        timespec pause{0, 100000};
                        ::nanosleep(&pause, nullptr);
                    }
                    continue;
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
    std::atomic<bool> m_stopping{false};
    std::atomic<std::uint64_t> m_sent{0};
    std::jthread m_thread;
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
    return std::unique_ptr<Generator>(std::make_unique<SendmmsgGenerator>(std::move(sock), options));
}

}  // namespace nf::engine::net
