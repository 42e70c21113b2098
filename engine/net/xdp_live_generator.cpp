// The `xdp-live` generator: frames injected with BPF_PROG_RUN in live-frames mode
// (BPF_F_TEST_XDP_LIVE_FRAMES) into an XDP_TX program on the sending veth end, which sends them to
// the receiving end. No socket and no per-packet system call: the kernel loops over the frames.

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "engine/net/generator.h"
#include "engine/net/pacer.h"
#include "engine/run/pinned_thread.h"
#include "xdp_gen.skel.h"

namespace nf::engine::net {

namespace {

constexpr std::uint32_t kMaxFramesPerRun = 16384;  // frames per BPF_PROG_RUN call: ~ms, so stop is prompt
constexpr std::uint16_t kSourcePort = 9;

std::uint16_t ipChecksum(const void* data, std::size_t len)
{
    const auto* p = static_cast<const std::uint8_t*>(data);
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i + 1 < len; i += 2) {
        sum += static_cast<std::uint32_t>(p[i] << 8 | p[i + 1]);
    }
    while ((sum >> 16) != 0) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return htons(static_cast<std::uint16_t>(~sum));
}

// Ethernet + IPv4 + UDP to the receiving end, `payload` bytes of 0x5a.
std::vector<std::uint8_t> buildFrame(const Testbed& bed, const GeneratorOptions& o)
{
    const std::size_t udpLen = sizeof(udphdr) + static_cast<std::size_t>(o.payload);
    std::vector<std::uint8_t> frame(sizeof(ethhdr) + sizeof(iphdr) + udpLen, 0x5a);
    ethhdr eth{};
    std::memcpy(eth.h_dest, bed.rx().mac.data(), ETH_ALEN);
    std::memcpy(eth.h_source, bed.tx().mac.data(), ETH_ALEN);
    eth.h_proto = htons(ETH_P_IP);
    iphdr ip{};
    ip.version = 4;
    ip.ihl = 5;
    ip.ttl = 64;
    ip.protocol = IPPROTO_UDP;
    ip.tot_len = htons(static_cast<std::uint16_t>(sizeof(iphdr) + udpLen));
    ip.saddr = bed.tx().addr.s_addr;
    ip.daddr = bed.rx().addr.s_addr;
    ip.check = ipChecksum(&ip, sizeof ip);
    udphdr udp{};
    udp.source = htons(kSourcePort);
    udp.dest = htons(o.port);
    udp.len = htons(static_cast<std::uint16_t>(udpLen));
    udp.check = 0;  // optional over IPv4
    std::memcpy(frame.data(), &eth, sizeof eth);
    std::memcpy(frame.data() + sizeof eth, &ip, sizeof ip);
    std::memcpy(frame.data() + sizeof eth + sizeof ip, &udp, sizeof udp);
    return frame;
}

struct SkeletonDestroy {
    void operator()(nf_xdp_gen* s) const { nf_xdp_gen__destroy(s); }
};

class XdpLiveGenerator : public Generator {
public:
    XdpLiveGenerator(const Testbed& bed, const GeneratorOptions& options,
                     std::unique_ptr<nf_xdp_gen, SkeletonDestroy> skel)
        : m_bed(bed), m_options(options), m_skel(std::move(skel)), m_frame(buildFrame(bed, options))
    {
    }
    ~XdpLiveGenerator() override
    {
        XdpLiveGenerator::stop();
        detachPass();
    }
    XdpLiveGenerator(const XdpLiveGenerator&) = delete;
    XdpLiveGenerator& operator=(const XdpLiveGenerator&) = delete;

    // Gives the receiving end NAPI when GRO does not: an XDP_PASS program in driver mode.
    Result<void> attachPass()
    {
        auto guard = NetnsGuard::enter(m_bed.rx().nsFd);
        if (!guard) {
            return guard.error();
        }
        const int fd = bpf_program__fd(m_skel->progs.nf_xdp_pass);
        if (int err = bpf_xdp_attach(m_bed.rx().ifindex, fd, XDP_FLAGS_DRV_MODE, nullptr); err < 0) {
            return Error::fromErrno("cannot attach the XDP_PASS program to " + m_bed.rx().ifname, -err);
        }
        m_passAttached = true;
        return {};
    }

    Result<void> start() override
    {
        stop();
        m_error.store(0);
        m_thread = PinnedThread::start("generator thread", m_options.cpu, [this](std::stop_token stop) { loop(stop); });
        // The first injection says whether this kernel allows live frames at all.
        while (m_sent.load() == m_startSent && m_error.load() == 0 && !m_finished.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        if (const int err = m_error.load(); err != 0) {
            stop();
            return Error::fromErrno("xdp-live: BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES on " + m_bed.tx().ifname,
                                    err);
        }
        return {};
    }

    void stop() override
    {
        m_thread.requestStop();
        m_thread.join();
        m_startSent = m_sent.load();
        m_finished.store(false);
    }

    std::string warning() const override { return m_thread.warning(); }

    std::uint64_t sent() const override { return m_sent.load(std::memory_order_relaxed); }

    std::string describe() const override
    {
        return "xdp-live (BPF_PROG_RUN live frames, XDP_TX on " + m_bed.tx().ifname + "), kernel batch " +
               std::to_string(kernelBatch()) + ", " + std::to_string(m_frame.size()) + "-byte frames, CPU " +
               std::to_string(m_options.cpu) +
               (m_options.rate > 0 ? ", limited to " + std::to_string(m_options.rate) + " pps" : "") +
               (m_passAttached ? ", XDP_PASS on " + m_bed.rx().ifname + " for NAPI" : "");
    }

private:
    std::uint32_t kernelBatch() const { return static_cast<std::uint32_t>(std::clamp(m_options.batch, 1, 256)); }

    void detachPass()
    {
        if (!m_passAttached) {
            return;
        }
        if (auto guard = NetnsGuard::enter(m_bed.rx().nsFd)) {
            bpf_xdp_detach(m_bed.rx().ifindex, XDP_FLAGS_DRV_MODE, nullptr);
        }
        m_passAttached = false;
    }

    void loop(const std::stop_token& stop)
    {
        // The ingress ifindex is looked up in the calling thread's namespace: this thread lives in
        // the sending one.
        auto guard = NetnsGuard::enter(m_bed.tx().nsFd);
        if (!guard) {
            m_error.store(guard.error().errnum != 0 ? guard.error().errnum : EINVAL);
            m_finished.store(true);
            return;
        }
        const int fd = bpf_program__fd(m_skel->progs.nf_xdp_tx);
        xdp_md ctx{};
        ctx.data_end = static_cast<std::uint32_t>(m_frame.size());
        ctx.ingress_ifindex = static_cast<std::uint32_t>(m_bed.tx().ifindex);
        std::uint32_t perRun = kMaxFramesPerRun;
        if (m_options.rate > 0) {
            perRun = static_cast<std::uint32_t>(std::clamp(m_options.rate / 1000.0, 1.0, double(kMaxFramesPerRun)));
        }
        std::uint64_t sent = m_sent.load();
        const Pacer pacer(m_options.rate, sent);
        while (!stop.stop_requested()) {
            pacer.wait(sent, [&] { return stop.stop_requested(); });
            LIBBPF_OPTS(bpf_test_run_opts, opts);
            opts.data_in = m_frame.data();
            opts.data_size_in = static_cast<std::uint32_t>(m_frame.size());
            opts.ctx_in = &ctx;
            opts.ctx_size_in = sizeof ctx;
            opts.repeat = perRun;
            opts.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
            opts.batch_size = kernelBatch();
            if (int err = bpf_prog_test_run_opts(fd, &opts); err < 0) {
                m_error.store(-err);
                break;
            }
            sent += perRun;
            m_sent.store(sent, std::memory_order_relaxed);
        }
        m_finished.store(true);
    }

    const Testbed& m_bed;
    GeneratorOptions m_options;
    std::unique_ptr<nf_xdp_gen, SkeletonDestroy> m_skel;
    std::vector<std::uint8_t> m_frame;
    bool m_passAttached = false;
    std::atomic<bool> m_finished{false};
    std::atomic<int> m_error{0};
    std::atomic<std::uint64_t> m_sent{0};
    std::uint64_t m_startSent = 0;
    PinnedThread m_thread;
};

}  // namespace

Result<std::unique_ptr<Generator>> makeXdpLiveGenerator(const Testbed& bed, const GeneratorOptions& options)
{
    if (bed.options().path != TestbedPath::Veth) {
        return Error{"generator=xdp-live needs path=veth (it sends with XDP_TX on the sending veth end)"};
    }
    std::unique_ptr<nf_xdp_gen, SkeletonDestroy> skel(nf_xdp_gen__open_and_load());
    if (!skel) {
        return Error::fromErrno("generator=xdp-live: cannot load the embedded XDP programs");
    }
    auto gen = std::make_unique<XdpLiveGenerator>(bed, options, std::move(skel));
    if (!bed.options().rxGro) {
        if (auto r = gen->attachPass(); !r) {
            return r.error();
        }
    }
    return std::unique_ptr<Generator>(std::move(gen));
}

}  // namespace nf::engine::net
