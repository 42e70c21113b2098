#include "engine/catalog/descriptors.h"

#include <algorithm>
#include <bit>

#include "engine/catalog/traffic_params.h"
#include "engine/model/metric.h"

namespace nf::engine::catalog {

namespace {

constexpr std::int64_t kBusyPollUs = 20;  // busy_poll_us's default

bool powerOfTwo(std::int64_t v)
{
    return v > 0 && std::has_single_bit(static_cast<std::uint64_t>(v));
}

Result<void> checkXdpRx(const ParamSet& p, const CheckContext& ctx)
{
    const auto frameSize = p.integer("frame_size");
    const auto ringSize = p.integer("ring_size");
    const auto batch = p.integer("batch");
    if (!powerOfTwo(frameSize)) {
        return Error{"frame_size=" + std::to_string(frameSize) + ": must be a power of two (2048 or 4096)"};
    }
    if (!powerOfTwo(ringSize)) {
        return Error{"ring_size=" + std::to_string(ringSize) + ": must be a power of two"};
    }
    if (batch > ringSize) {
        return Error{"batch=" + std::to_string(batch) + ": larger than ring_size=" + std::to_string(ringSize)};
    }
    // Without busy polling they would set nothing: a setting given there is a mistake, said so.
    if (p.integer("busy_poll") == 0 &&
        (p.integer("busy_poll_us") != kBusyPollUs || p.integer("busy_poll_budget") != 0)) {
        const char* name = p.integer("busy_poll_us") != kBusyPollUs ? "busy_poll_us" : "busy_poll_budget";
        return Error{std::string(name) + "=" + p.text(name) + ": only with busy_poll=1"};
    }
    const auto& iface = p.text("iface");
    if (!iface.empty() && p.text("app") == "l2fwd") {
        return Error{"app=l2fwd with iface=" + iface +
                     ": refused, it would send frames out of an interface outside the tool's testbed"};
    }
    if (auto r = checkTwoHost(p, false); !r) {
        return r;
    }
    NF_TRY(trafficCpus(p, iface.empty(), ctx.allowedCpus));
    return {};
}

// Variants side by side each have their own veth testbed, XDP program, AF_XDP socket and
// application thread, and share the generator, its CPU and rx_cpu: only the settings of the socket
// and the application may differ.
std::string xdpRxChunkBlocker(const std::vector<ParamSet>& variants)
{
    if (variants.size() < 2) {
        return "one variant";
    }
    const auto& first = variants.front();
    if (!first.text("tx_host").empty()) {
        return "two hosts: the generator host sends to one variant per repetition";
    }
    if (!first.text("iface").empty()) {
        return "iface: a real interface carries one variant's traffic at a time";
    }
    for (const auto& v : variants) {
        if (v.integer("busy_poll") > 0) {
            return "busy_poll polls the device from the application's system calls, and a waiting variant's "
                   "poll() would busy-poll too: the variant offered would not have rx_cpu to itself";
        }
        if (v.text("generator") != "xdp-live") {
            return "generator=" + v.text("generator") +
                   " sends to one testbed; side by side needs xdp-live, which redirects between testbeds";
        }
    }
    for (const auto& [name, value] : first.all()) {
        if (name == "batch" || name == "need_wakeup" || name == "ring_size" || name == "frame_size" || name == "app" ||
            name == "bind") {
            continue;
        }
        for (const auto& v : variants) {
            if (v.text(name) != value) {
                return name == "xdp_mode"
                           ? std::string(
                                 "xdp_mode is how the receiving device runs XDP, not a setting of the "
                                 "application: side by side each variant's device is set up alike")
                           : name +
                                 " differs (side by side only batch, need_wakeup, ring_size, frame_size, app "
                                 "and bind may)";
            }
        }
    }
    return "";
}

}  // namespace

WorkloadDescriptor xdpRx()
{
    WorkloadDescriptor info;
    info.summary =
        "AF_XDP receive (rxdrop, l2fwd) on the tool's own veth testbed: pps, XDP socket statistics, "
        "counters per packet";
    info.description =
        "Seed 001's test, run by the tool: `xdpsock rxdrop` as A/B variants. An XDP program (nf_xsk_redirect) "
        "on the receiving veth end of the testbed redirects queue `queue` to an AF_XDP socket made with libxdp's "
        "xsk API (umem, fill and completion rings, RX ring); an application thread pinned to rx_cpu counts the "
        "frames and returns them to the fill ring (app=rxdrop) or swaps their MAC addresses and sends them back "
        "(app=l2fwd). Traffic comes from the xdp-live generator (or sendmmsg) on tx_cpu. Samples every interval: "
        "packets, XDP_STATISTICS, the application's empty polls and fill-ring failures, the generator's count, "
        "counters on the application thread (rx_*) and on counter_cpus (cpu_*). iface=NAME attaches to a real "
        "interface instead (only when given; it says what it attaches first). Variants that differ only in "
        "AF_XDP socket and application settings (batch, need_wakeup, ring_size, frame_size, app, bind) run side "
        "by side, a testbed each with its own program, socket and application on rx_cpu, and the xdp-live "
        "generator's program redirects its frames to one testbed at a time, alternating in chunks (--chunk, "
        "default 50 ms) while the others' applications sleep in poll(), and trading testbeds between the phases "
        "of each repetition (--setups, default a phase per 20 chunk rounds), so what differs between the "
        "testbeds is no variant's, and the verdict rests on the phases (setups); "
        "others run in interleaved repetitions. Needs CAP_NET_ADMIN and CAP_SYS_ADMIN; never leaves a program "
        "attached; sends nothing outside its own "
        "namespaces.";
    info.primaryMetric = "pps";
    // Chunks of 50 ms (udp-rx has 25 ms): docs/benchmarks.md measures them for both.
    info.defaultChunk = 0.05;
    info.chunkBlocker = xdpRxChunkBlocker;
    info.params = {
        {.name = "xdp_mode",
         .type = ParamType::Choice,
         .defaultValue = "native",
         .description = "XDP attach mode: skb (generic) or native (driver)",
         .choices = {"skb", "native"}},
        {.name = "bind",
         .type = ParamType::Choice,
         .defaultValue = "auto",
         .description = "AF_XDP bind: copy, zerocopy, or auto (zero-copy, else copy; the result is recorded)",
         .choices = {"copy", "zerocopy", "auto"}},
        {.name = "queue",
         .type = ParamType::Int,
         .defaultValue = "0",
         .description = "receive queue the socket binds to",
         .max = 255},
        {.name = "frame_size",
         .type = ParamType::Int,
         .defaultValue = "4096",
         .description = "umem frame size (a power of two)",
         .min = 2048,
         .max = 4096,
         .unit = "bytes"},
        {.name = "ring_size",
         .type = ParamType::Int,
         .defaultValue = "2048",
         .description = "RX (and TX, completion) ring size; the fill ring holds RX ring + device ring",
         .min = 64,
         .max = 16384},
        {.name = "need_wakeup",
         .type = ParamType::Int,
         .defaultValue = "1",
         .description = "XDP_USE_NEED_WAKEUP",
         .max = 1},
        {.name = "busy_poll",
         .type = ParamType::Int,
         .defaultValue = "0",
         .description = "1: preferred busy polling (the kernel's napi.rst): SO_PREFER_BUSY_POLL, SO_BUSY_POLL "
                        "busy_poll_us, SO_BUSY_POLL_BUDGET busy_poll_budget, and on the receiving device "
                        "napi_defer_hard_irqs=2 and gro_flush_timeout=200000 ns for the run (put back after it; on "
                        "iface=NAME recorded first, so that 'noisefloor cleanup' puts them back after a kill)",
         .max = 1},
        {.name = "busy_poll_us",
         .type = ParamType::Int,
         .defaultValue = "20",
         .description = "with busy_poll=1: SO_BUSY_POLL, how long a system call busy-polls the device",
         .min = 1,
         .max = 1'000'000,
         .unit = "us"},
        {.name = "busy_poll_budget",
         .type = ParamType::Int,
         .defaultValue = "0",
         .description = "with busy_poll=1: SO_BUSY_POLL_BUDGET, frames per busy poll (0: batch; over 64 needs "
                        "CAP_NET_ADMIN)",
         .max = 65535},
        {.name = "batch",
         .type = ParamType::Int,
         .defaultValue = "64",
         .description = "frames taken from the RX ring per pass",
         .min = 1,
         .max = 1024},
        {.name = "app",
         .type = ParamType::Choice,
         .defaultValue = "rxdrop",
         .description = "rxdrop: count and recycle; l2fwd: swap MACs and send back",
         .choices = {"rxdrop", "l2fwd"}},
        {.name = "iface",
         .type = ParamType::Text,
         .defaultValue = "",
         .description = "a real interface to attach to instead of the testbed (traffic from outside; rxdrop only)"},
        {.name = "force",
         .type = ParamType::Int,
         .defaultValue = "0",
         .description = "1 replaces an XDP program already on the interface (it is not put back afterwards)",
         .max = 1},
    };
    const auto traffic = trafficParams("xdp-live", "AF_XDP application thread", "UDP payload per generated frame");
    const auto iface =
        std::find_if(info.params.begin(), info.params.end(), [](const ParamSpec& p) { return p.name == "iface"; });
    info.params.insert(iface, traffic.begin(), traffic.end());
    const auto twoHost = twoHostParams(false);
    info.params.insert(info.params.end(), twoHost.begin(), twoHost.end());
    info.liveQuantities = {quantity::kXskRxDropped,       quantity::kXskRxInvalidDescs, quantity::kXskRxRingFull,
                           quantity::kXskRxFillRingEmpty, quantity::kXskTxInvalidDescs, quantity::kAppEmptyPolls,
                           quantity::kAppFillFailures,    quantity::kAppTxPackets,      quantity::kReturnedPackets};
    info.check = checkXdpRx;
    return info;
}

}  // namespace nf::engine::catalog
