// The `sendmmsg` generator: one pinned thread, one connected UDP socket, `batch` datagrams a call.

#include <arpa/inet.h>
#include <sys/socket.h>

#include <atomic>
#include <vector>

#include "engine/net/batch_sender.h"
#include "engine/net/pacer.h"

namespace nf::engine::net {

namespace {

class SendmmsgGenerator : public BatchSender {
public:
    SendmmsgGenerator(Fd sock, const GeneratorOptions& options, sockaddr_in dst)
        : BatchSender(std::move(sock), options,
                      std::vector<std::uint8_t>(static_cast<std::size_t>(options.payload), 0x5a)),
          m_dst(dst),
          m_port(options.port)
    {
    }
    ~SendmmsgGenerator() override { BatchSender::stop(); }  // the loop reads m_dst and m_port
    SendmmsgGenerator(const SendmmsgGenerator&) = delete;
    SendmmsgGenerator& operator=(const SendmmsgGenerator&) = delete;

    // The sending thread connects its socket to the new port before its next call.
    bool setPort(std::uint16_t port) override
    {
        m_port.store(port, std::memory_order_release);
        return true;
    }

    std::string describe() const override { return describeAs("sendmmsg"); }

private:
    void loop(const std::stop_token& stop) override
    {
        std::uint64_t sent = BatchSender::sent();
        const Pacer pacer(options().rate, sent);
        std::uint16_t connected = options().port;
        while (!stop.stop_requested()) {
            pacer.wait(sent, [&] { return stop.stop_requested(); });
            if (const auto port = m_port.load(std::memory_order_acquire); port != connected) {
                m_dst.sin_port = htons(port);
                if (::connect(sock(), reinterpret_cast<const sockaddr*>(&m_dst), sizeof m_dst) == 0) {  // NOLINT
                    connected = port;
                }
            }
            const int n = sendBatch();
            if (n > 0) {
                sent += static_cast<std::uint64_t>(n);
                storeSent(sent);
            }
        }
    }

    sockaddr_in m_dst;
    std::atomic<std::uint16_t> m_port;
};

}  // namespace

Result<std::unique_ptr<Generator>> makeSendmmsgGenerator(const Testbed& bed, const GeneratorOptions& options)
{
    auto guard = NF_TRY(NetnsGuard::enter(bed.tx().nsFd));
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
