// A benchmark, not a test: the smallest AF_XDP rxdrop loop there is (peek the RX ring, hand the
// frames back to the fill ring, count), on the same testbed, generator, XDP program and socket setup
// as the xdp-rx workload, for bench/xdp_rx_overhead.sh and bench/live_speed.sh to hold xdp-rx's pps
// against. GENERATOR is the tool's (xdp-live, sendmmsg) or the minimal one (min, min_xdp_gen.h).
// Usage: xdp_rx_baseline GENERATOR TX_CPU RX_CPU SECONDS MODE BUSY_POLL
// Prints one line: "pps <received per second> offered_pps <sent per second>".

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "engine/net/cpu_pin.h"
#include "engine/net/generator.h"
#include "engine/net/testbed.h"
#include "engine/net/xsk.h"
#include "tests/engine/min_xdp_gen.h"

using namespace nf::engine::net;
using nf::Result;

int main(int argc, char** argv)
{
    if (argc < 7) {
        std::fprintf(stderr, "usage: xdp_rx_baseline xdp-live|sendmmsg TX_CPU RX_CPU SECONDS skb|native 0|1\n");
        return 2;
    }
    const std::string kind = argv[1];
    const int txCpu = std::stoi(argv[2]);
    const int rxCpu = std::stoi(argv[3]);
    const double seconds = std::stod(argv[4]);
    const bool native = std::string(argv[5]) == "native";
    const bool busyPoll = std::stoi(argv[6]) != 0;
    auto bed = Testbed::create({TestbedPath::Veth, true});
    if (!bed) {
        std::fprintf(stderr, "xdp_rx_baseline: %s\n", bed.error().message.c_str());
        return 1;
    }
    GeneratorOptions options{txCpu, 64, 64, 0, 5001};
    nf::test::MinXdpGenerator minimal(**bed, udpFrame(**bed, options), false);
    Result<std::unique_ptr<Generator>> gen = std::unique_ptr<Generator>();
    if (kind != "min") {
        gen = kind == "sendmmsg" ? makeSendmmsgGenerator(**bed, options) : makeXdpLiveGenerator(**bed, options);
        if (!gen) {
            std::fprintf(stderr, "xdp_rx_baseline: %s\n", gen.error().message.c_str());
            return 1;
        }
    }
    XskOptions x;  // xdp-rx's defaults
    x.nsFd = (*bed)->rx().nsFd;
    x.ifname = (*bed)->rx().ifname;
    x.ifindex = (*bed)->rx().ifindex;
    x.mode = native ? XdpMode::Native : XdpMode::Skb;
    x.busyPoll = busyPoll;
    auto port = XskPort::open(x);
    if (!port) {
        std::fprintf(stderr, "xdp_rx_baseline: %s\n", port.error().message.c_str());
        return 1;
    }
    XskPort& p = **port;
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> received{0};
    std::thread rx([&] {
        static_cast<void>(pinThread(rxCpu));
        std::uint64_t n = 0;
        while (!stop.load(std::memory_order_relaxed)) {
            std::uint32_t idx = 0;
            const std::uint32_t got = xsk_ring_cons__peek(&p.rx(), 64, &idx);
            if (got == 0) {
                if (busyPoll || xsk_ring_prod__needs_wakeup(&p.fill())) {
                    ::recvfrom(p.fd(), nullptr, 0, MSG_DONTWAIT, nullptr, nullptr);
                }
                continue;
            }
            std::uint32_t fidx = 0;
            while (xsk_ring_prod__reserve(&p.fill(), got, &fidx) != got) {
            }
            for (std::uint32_t i = 0; i < got; ++i) {
                *xsk_ring_prod__fill_addr(&p.fill(), fidx++) =
                    xsk_umem__extract_addr(xsk_ring_cons__rx_desc(&p.rx(), idx++)->addr);
            }
            xsk_ring_prod__submit(&p.fill(), got);
            xsk_ring_cons__release(&p.rx(), got);
            n += got;
            received.store(n, std::memory_order_relaxed);
        }
    });
    if (!*gen) {
        minimal.start(txCpu, 1U << 20);
    } else if (auto r = (*gen)->start(); !r) {
        std::fprintf(stderr, "xdp_rx_baseline: %s\n", r.error().message.c_str());
        stop = true;
        rx.join();
        return 1;
    }
    const auto sent = [&] { return *gen ? (*gen)->sent() : minimal.sent(); };
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the same warmup as the bench gives xdp-rx
    const auto r0 = received.load();
    const auto g0 = sent();
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const auto r1 = received.load();
    const auto g1 = sent();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (*gen) {
        (*gen)->stop();
    } else {
        minimal.stop();
    }
    stop = true;
    rx.join();
    const auto t1 =
        t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(elapsed));
    const double genPps = *gen ? static_cast<double>(g1 - g0) / elapsed : minimal.rate(t0, t1);
    std::printf("pps %.0f offered_pps %.0f\n", static_cast<double>(r1 - r0) / elapsed, genPps);
    return 0;
}
