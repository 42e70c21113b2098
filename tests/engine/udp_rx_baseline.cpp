// A benchmark, not a test: the smallest UDP receiver there is (recvmmsg into 64 buffers, a count),
// on the same testbed and generator as the udp-rx workload, for bench/udp_rx_overhead.sh to hold
// udp-rx's pps against.
// Usage: udp_rx_baseline GENERATOR TX_CPU RX_CPU SECONDS [GRO]
// Prints one line: "pps <received per second> offered_pps <sent per second>".

#include <arpa/inet.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "engine/net/cpu_pin.h"
#include "engine/net/generator.h"
#include "engine/net/testbed.h"

using namespace nf::engine::net;

int main(int argc, char** argv)
{
    if (argc < 5) {
        std::fprintf(stderr, "usage: udp_rx_baseline sendmmsg|xdp-live TX_CPU RX_CPU SECONDS [GRO]\n");
        return 2;
    }
    const std::string kind = argv[1];
    const int txCpu = std::stoi(argv[2]);
    const int rxCpu = std::stoi(argv[3]);
    const double seconds = std::stod(argv[4]);
    const bool gro = argc < 6 || std::stoi(argv[5]) != 0;
    auto bed = Testbed::create({TestbedPath::Veth, gro});
    if (!bed) {
        std::fprintf(stderr, "udp_rx_baseline: %s\n", bed.error().message.c_str());
        return 1;
    }
    constexpr std::uint16_t kPort = 5001;
    Fd sock;
    {
        auto guard = NetnsGuard::enter((*bed)->rx().nsFd);
        sock = Fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        sockaddr_in a{AF_INET, htons(kPort), (*bed)->rx().addr, {}};
        timeval timeout{0, 50000};
        ::setsockopt(sock.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        if (::bind(sock.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {  // NOLINT
            std::perror("udp_rx_baseline: bind");
            return 1;
        }
    }
    GeneratorOptions options{txCpu, 64, 64, 0, kPort};
    auto gen = kind == "xdp-live" ? makeXdpLiveGenerator(**bed, options) : makeSendmmsgGenerator(**bed, options);
    if (!gen) {
        std::fprintf(stderr, "udp_rx_baseline: %s\n", gen.error().message.c_str());
        return 1;
    }
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> received{0};
    std::thread rx([&] {
        static_cast<void>(pinThread(rxCpu));
        std::vector<std::array<char, 2048>> bufs(64);
        std::vector<iovec> iovs(64);
        std::vector<mmsghdr> msgs(64);
        for (std::size_t i = 0; i < 64; ++i) {
            iovs[i] = {bufs[i].data(), bufs[i].size()};
            msgs[i].msg_hdr.msg_iov = &iovs[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
        std::uint64_t n = 0;
        while (!stop.load(std::memory_order_relaxed)) {
            const int got = ::recvmmsg(sock.get(), msgs.data(), 64, MSG_WAITFORONE, nullptr);
            if (got > 0) {
                n += static_cast<std::uint64_t>(got);
                received.store(n, std::memory_order_relaxed);
            }
        }
    });
    if (auto r = (*gen)->start(); !r) {
        std::fprintf(stderr, "udp_rx_baseline: %s\n", r.error().message.c_str());
        stop = true;
        rx.join();
        return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the same warmup as udp-rx's default
    const auto r0 = received.load();
    const auto g0 = (*gen)->sent();
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const auto r1 = received.load();
    const auto g1 = (*gen)->sent();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    (*gen)->stop();
    stop = true;
    rx.join();
    std::printf("pps %.0f offered_pps %.0f\n", static_cast<double>(r1 - r0) / elapsed,
                static_cast<double>(g1 - g0) / elapsed);
    return 0;
}
