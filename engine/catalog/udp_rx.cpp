#include "engine/catalog/descriptors.h"
#include "engine/catalog/traffic_params.h"

namespace nf::engine::catalog {

namespace {

// Variants side by side share one testbed, one generator and the receiving CPU; only the settings
// of each variant's own socket and receive call may differ. Busy polling spins on the device's NAPI
// context, which every socket side by side would share, so chunks could not separate the variants.
std::string udpRxChunkBlocker(const std::vector<ParamSet>& variants)
{
    if (variants.size() < 2) {
        return "one variant";
    }
    for (const auto& [name, value] : variants.front().all()) {
        if ((name == "tx_host" || name == "iface") && !value.empty()) {
            return "two hosts: the generator host sends to one variant per repetition";
        }
    }
    for (const auto& v : variants) {
        if (v.integer("busy_poll") > 0) {
            return "busy_poll polls the device's NAPI, shared side by side";
        }
    }
    for (const auto& [name, value] : variants.front().all()) {
        if (name == "batch" || name == "rcvbuf") {
            continue;
        }
        for (const auto& v : variants) {
            if (v.text(name) != value) {
                return name == "gro" ? std::string("gro is a setting of the receiving device, shared side by side")
                                     : name + " differs (side by side only batch and rcvbuf may)";
            }
        }
    }
    return "";
}

}  // namespace

WorkloadDescriptor udpRx()
{
    WorkloadDescriptor info;
    info.summary = "UDP receive on the tool's own veth testbed: pps, drops, generator rate, counters per packet";
    info.description =
        "Seed 000's test, run by the tool: two network namespaces joined by a veth pair (or one namespace's "
        "loopback), a generator thread pinned to tx_cpu sending `size`-byte UDP datagrams, and a receiver thread "
        "pinned to rx_cpu reading them with recvmmsg (`batch` buffers; recvmsg when batch=1). Samples every "
        "interval: packets, bytes and socket drops received, packets the generator sent, counters on the "
        "receiver thread (rx_*) and system-wide on counter_cpus (cpu_*; the softirq CPU is where the kernel's "
        "receive work runs). Variants compare receiver settings: batch, busy_poll, gro, rx_cpu. Variants that differ "
        "only in batch and rcvbuf run side by side (a socket per variant on its own port, on one testbed, the "
        "receivers on one CPU) and the generator's traffic alternates between them in chunks (--chunk, default 25 ms); "
        "the variants trade ports between the phases of each repetition (--setups, default a phase per 20 "
        "chunk rounds), so what differs between the ports is no variant's, and the verdict rests on the phases "
        "(setups); others run in interleaved repetitions. Needs "
        "CAP_NET_ADMIN and CAP_SYS_ADMIN; sends nothing outside its own namespaces. Two hosts: with "
        "tx_host=DEST and iface=NAME the receiver binds to NAME's address here and `noisefloor generate` on DEST "
        "(started over ssh in batch mode) sends to NAME's MAC and address only, out of tx_iface only; "
        "gen_offered is what it tried to send (docs/workflows.md); such runs use repetitions.";
    info.primaryMetric = "pps";
    // Chunks of 25 ms, each after a guard that lets the previous variant's socket drain: on a quiet
    // machine they detect 0.5-0.7% in 60 s where 50 ms detect 1.3% (docs/benchmarks.md,
    // bench/live_chunk.sh); at 10 ms the guards hold 10% of the packets.
    info.defaultChunk = 0.025;
    info.chunkBlocker = udpRxChunkBlocker;
    info.params = {
        {.name = "path",
         .type = ParamType::Choice,
         .defaultValue = "veth",
         .description = "veth pair between two namespaces, or loopback in one",
         .choices = {"veth", "loopback"}},
        {.name = "batch",
         .type = ParamType::Int,
         .defaultValue = "64",
         .description = "recvmmsg vector length; 1 = recvmsg",
         .min = 1,
         .max = 1024},
        {.name = "busy_poll",
         .type = ParamType::Int,
         .defaultValue = "0",
         .description = "SO_BUSY_POLL time with SO_PREFER_BUSY_POLL; 0 = off",
         .max = 100000,
         .unit = "us"},
        {.name = "gro",
         .type = ParamType::Int,
         .defaultValue = "1",
         .description = "GRO on the receiving veth (which also gives it NAPI)",
         .max = 1},
        {.name = "rcvbuf",
         .type = ParamType::Int,
         .defaultValue = "0",
         .description = "receive buffer (SO_RCVBUFFORCE); 0 = the system default",
         .max = 1 << 30,
         .unit = "bytes"},
    };
    const auto traffic = trafficParams("sendmmsg", "receiver thread", "UDP payload per datagram");
    info.params.insert(info.params.begin() + 1, traffic.begin(), traffic.end());
    const auto twoHost = twoHostParams();
    info.params.insert(info.params.end(), twoHost.begin(), twoHost.end());
    info.check = [](const ParamSet& p, const CheckContext& ctx) -> Result<void> {
        if (auto r = checkTwoHost(p); !r) {
            return r;
        }
        NF_TRY(trafficCpus(p, p.text("tx_host").empty(), ctx.allowedCpus));
        return {};
    };
    return info;
}

}  // namespace nf::engine::catalog
