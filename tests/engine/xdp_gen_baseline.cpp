// A benchmark, not a test: the xdp-live generator against the minimal one (min_xdp_gen.h), each
// alone, on the same testbed, into the same sink (XDP_DROP on the receiving end), for
// bench/live_speed.sh. Usage: xdp_gen_baseline min|tool TX_CPU SECONDS [FRAMES_PER_CALL]
// Prints one line: "offered_pps <frames offered per second>".

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "engine/net/generator.h"
#include "engine/net/testbed.h"
#include "tests/engine/min_xdp_gen.h"

using namespace nf::engine::net;

int main(int argc, char** argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: xdp_gen_baseline min|tool TX_CPU SECONDS [FRAMES_PER_CALL]\n");
        return 2;
    }
    const std::string kind = argv[1];
    const int txCpu = std::stoi(argv[2]);
    const double seconds = std::stod(argv[3]);
    const auto framesPerCall = argc > 4 ? static_cast<std::uint32_t>(std::stoul(argv[4])) : 1U << 20;
    auto bed = Testbed::create({TestbedPath::Veth, true});
    if (!bed) {
        std::fprintf(stderr, "xdp_gen_baseline: %s\n", bed.error().message.c_str());
        return 1;
    }
    const GeneratorOptions options{txCpu, 64, 64, 0, 5001};
    // The sink (and, for `min`, the generator): XDP_DROP on the receiving end in native mode.
    nf::test::MinXdpGenerator minimal(**bed, udpFrame(**bed, options), true);
    if (!minimal.loaded()) {
        std::fprintf(stderr, "xdp_gen_baseline: cannot load the minimal generator's programs\n");
        return 1;
    }
    std::unique_ptr<Generator> tool;
    if (kind == "tool") {
        auto gen = makeXdpLiveGenerator(**bed, options);
        if (!gen) {
            std::fprintf(stderr, "xdp_gen_baseline: %s\n", gen.error().message.c_str());
            return 1;
        }
        tool = std::move(*gen);
        if (auto r = tool->start(); !r) {
            std::fprintf(stderr, "xdp_gen_baseline: %s\n", r.error().message.c_str());
            return 1;
        }
    } else {
        minimal.start(txCpu, framesPerCall);
    }
    const auto sent = [&] { return tool ? tool->sent() : minimal.sent(); };
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto s0 = sent();
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const auto s1 = sent();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto stopStart = std::chrono::steady_clock::now();
    if (tool) {
        tool->stop();
    } else {
        minimal.stop();
    }
    const double stopMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - stopStart).count();
    if (minimal.error() != 0) {
        std::fprintf(stderr, "xdp_gen_baseline: BPF_PROG_RUN: %s\n", std::strerror(minimal.error()));
        return 1;
    }
    const auto t1 =
        t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(elapsed));
    const double pps = tool ? static_cast<double>(s1 - s0) / elapsed : minimal.rate(t0, t1);
    std::printf("offered_pps %.0f stop_ms %.1f\n", pps, stopMs);
    return 0;
}
