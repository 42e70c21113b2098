// The `xdp-live` generator: frames injected with BPF_PROG_RUN in live-frames mode
// (BPF_F_TEST_XDP_LIVE_FRAMES) into an XDP_TX program on the sending veth end, which sends them to
// the receiving end. No socket and no per-packet system call: the kernel loops over the frames.
// Across testbeds side by side, the program redirects every frame through a DEVMAP of their
// sending ends instead, to the one the engine names (setTarget).

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/net/generator.h"
#include "engine/net/libbpf_opts.h"
#include "engine/net/pacer.h"
#include "engine/run/pinned_thread.h"
#include "xdp_gen.skel.h"

namespace nf::engine::net {

namespace {

// Frames per BPF_PROG_RUN call without a rate limit: more than a run offers (minutes at this
// machine's few Mpps), so one call feeds every chunk of a setup. Each live-frames call has a fixed
// set-up cost of tens of milliseconds here in which nothing is offered; calls of 2^20 frames ended
// every 0.55-0.6 s and left 8% of udp-rx's chunks with an idle receiver (docs/benchmarks.md). A
// stop interrupts a call with a signal, so a long one costs no promptness.
constexpr std::uint32_t kFramesPerCall = 1U << 30;
// With a rate limit, a call sends this long's worth of frames at the target rate, then waits for
// the schedule: longer calls would send in bursts, shorter ones pay the set-up cost too often.
constexpr double kPacedCallSeconds = 0.05;
// The signal that interrupts a call in flight: the kernel's test-run loop returns -EINTR when one
// is pending. Its handler does nothing; the generator thread alone has it unblocked.
constexpr int kInterruptSignal = SIGUSR1;

void installInterruptHandler()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction action {};
        action.sa_handler = [](int) {};
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0;  // no SA_RESTART: the call returns -EINTR
        sigaction(kInterruptSignal, &action, nullptr);
    });
}
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

}  // namespace

std::vector<std::uint8_t> udpFrame(const Testbed& bed, const GeneratorOptions& o)
{
    return udpFrame(bed.tx(), bed.rx(), o);
}

std::vector<std::uint8_t> udpFrame(const Endpoint& from, const Endpoint& to, const GeneratorOptions& o)
{
    const std::size_t udpLen = sizeof(udphdr) + static_cast<std::size_t>(o.payload);
    std::vector<std::uint8_t> frame(sizeof(ethhdr) + sizeof(iphdr) + udpLen, 0x5a);
    ethhdr eth{};
    std::memcpy(eth.h_dest, to.mac.data(), ETH_ALEN);
    std::memcpy(eth.h_source, from.mac.data(), ETH_ALEN);
    eth.h_proto = htons(ETH_P_IP);
    iphdr ip{};
    ip.version = 4;
    ip.ihl = 5;
    ip.ttl = 64;
    ip.protocol = IPPROTO_UDP;
    ip.tot_len = htons(static_cast<std::uint16_t>(sizeof(iphdr) + udpLen));
    ip.saddr = from.addr.s_addr;
    ip.daddr = to.addr.s_addr;
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

namespace {

struct SkeletonDestroy {
    void operator()(nf_xdp_gen* s) const { nf_xdp_gen__destroy(s); }
};

class XdpLiveGenerator : public Generator {
public:
    XdpLiveGenerator(std::vector<const Testbed*> beds, const GeneratorOptions& options,
                     std::unique_ptr<nf_xdp_gen, SkeletonDestroy> skel)
        : m_beds(std::move(beds)),
          m_bed(*m_beds.front()),
          m_options(options),
          m_skel(std::move(skel)),
          m_frame(udpFrame(m_bed, options))
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
        auto guard = NF_TRY(NetnsGuard::enter(m_bed.rx().nsFd));
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
        installInterruptHandler();
        const auto before = sent();
        m_thread =
            PinnedThread::start("generator thread", m_options.cpu, [this](const std::stop_token& stop) { loop(stop); });
        // The first frames say whether this kernel allows live frames at all.
        while (sent() == before && m_error.load() == 0 && !m_finished.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        if (const int err = m_error.load(); err != 0) {
            stop();
            return Error::fromErrno("xdp-live: BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES on " + m_bed.tx().ifname,
                                    err);
        }
        return {};
    }

    // Ends the call in flight with a signal (-EINTR) rather than waiting for its 2^30 frames.
    void stop() override
    {
        if (!m_thread.joinable()) {
            return;
        }
        m_thread.requestStop();
        while (!m_finished.load()) {
            pthread_kill(m_thread.nativeHandle(), kInterruptSignal);
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        m_thread.join();
        m_finished.store(false);
    }

    std::string warning() const override { return m_thread.warning(); }

    // Every testbed's sending end in the DEVMAP, each written from its own namespace (an entry's
    // ifindex is looked up in the writer's), and the program switched to redirecting through it.
    Result<void> fillDevmap()
    {
        const int fd = bpf_map__fd(m_skel->maps.nf_gen_devs);
        for (std::uint32_t i = 0; i < m_beds.size(); ++i) {
            const auto& tx = m_beds[i]->tx();
            auto guard = NF_TRY(NetnsGuard::enter(tx.nsFd));
            const auto ifindex = static_cast<std::uint32_t>(tx.ifindex);
            if (bpf_map_update_elem(fd, &i, &ifindex, BPF_ANY) != 0) {
                return Error::fromErrno("generator=xdp-live: cannot put " + tx.ifname + " into its DEVMAP");
            }
        }
        m_skel->bss->nf_redirect = 1;
        return {};
    }

    // The program reads its port from its .bss at every frame: the call in flight switches at once.
    bool setPort(std::uint16_t port) override
    {
        __atomic_store_n(&m_skel->bss->nf_dest_port, htons(port), __ATOMIC_RELEASE);
        return true;
    }

    // Likewise the DEVMAP slot it redirects to: frames of the kernel batch in flight may still go
    // out of the previous one (the batch is flushed at its end).
    bool setTarget(std::size_t bed) override
    {
        if (m_beds.size() < 2 || bed >= m_beds.size()) {
            return false;
        }
        __atomic_store_n(&m_skel->bss->nf_dest_dev, static_cast<std::uint32_t>(bed), __ATOMIC_RELEASE);
        return true;
    }

    // What the XDP program sent, summed over the CPUs it ran on.
    // Called by the sampling thread at interval boundaries and by the generator thread between
    // calls, each with its own buffer.
    std::uint64_t sent() const override
    {
        const std::uint32_t key = 0;
        std::vector<std::uint64_t> perCpu(m_possibleCpus);
        if (bpf_map_lookup_elem(bpf_map__fd(m_skel->maps.nf_gen_sent), &key, perCpu.data()) != 0) {
            return m_lastSent.load();
        }
        std::uint64_t total = 0;
        for (auto v : perCpu) {
            total += v;
        }
        m_lastSent.store(total);
        return total;
    }

    std::string describe() const override
    {
        const std::string how = m_beds.size() > 1
                                    ? "XDP_REDIRECT through a DEVMAP of the sending ends of " +
                                          std::to_string(m_beds.size()) + " testbeds, injected on " + m_bed.tx().ifname
                                    : "XDP_TX on " + m_bed.tx().ifname;
        return "xdp-live (BPF_PROG_RUN live frames, " + how + "), kernel batch " + std::to_string(kernelBatch()) +
               ", " + std::to_string(m_frame.size()) + "-byte frames, CPU " + std::to_string(m_options.cpu) +
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
        sigset_t interrupt;
        sigemptyset(&interrupt);
        sigaddset(&interrupt, kInterruptSignal);
        pthread_sigmask(SIG_UNBLOCK, &interrupt, nullptr);
        const std::uint32_t perCall = m_options.rate > 0
                                          ? static_cast<std::uint32_t>(std::clamp(m_options.rate * kPacedCallSeconds,
                                                                                  1.0, double(kFramesPerCall)))
                                          : kFramesPerCall;
        const Pacer pacer(m_options.rate, sent());
        while (!stop.stop_requested()) {
            pacer.wait(sent(), [&] { return stop.stop_requested(); });
            bpf_test_run_opts opts;
            initOpts(opts);
            opts.data_in = m_frame.data();
            opts.data_size_in = static_cast<std::uint32_t>(m_frame.size());
            opts.ctx_in = &ctx;
            opts.ctx_size_in = sizeof ctx;
            opts.repeat = perCall;
            opts.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
            opts.batch_size = kernelBatch();
            if (int err = bpf_prog_test_run_opts(fd, &opts); err < 0 && err != -EINTR) {
                m_error.store(-err);
                break;
            }
        }
        m_finished.store(true);
    }

    std::vector<const Testbed*> m_beds;
    const Testbed& m_bed;  // where frames are injected: the first testbed
    GeneratorOptions m_options;
    std::unique_ptr<nf_xdp_gen, SkeletonDestroy> m_skel;
    std::vector<std::uint8_t> m_frame;
    bool m_passAttached = false;
    std::atomic<bool> m_finished{false};
    std::atomic<int> m_error{0};
    std::size_t m_possibleCpus = static_cast<std::size_t>(std::max(libbpf_num_possible_cpus(), 1));
    mutable std::atomic<std::uint64_t> m_lastSent{0};
    PinnedThread m_thread;
};

}  // namespace

Result<std::unique_ptr<Generator>> makeXdpLiveGenerator(const Testbed& bed, const GeneratorOptions& options)
{
    return makeXdpLiveGenerator(std::vector<const Testbed*>{&bed}, options);
}

Result<std::unique_ptr<Generator>> makeXdpLiveGenerator(const std::vector<const Testbed*>& beds,
                                                        const GeneratorOptions& options)
{
    if (beds.empty()) {
        return Error{"generator=xdp-live: no testbed"};
    }
    for (const auto* bed : beds) {
        if (bed->options().path != TestbedPath::Veth) {
            return Error{"generator=xdp-live needs path=veth (it sends with XDP_TX on the sending veth end)"};
        }
        if (beds.size() > 1 && !bed->options().rxGro) {
            return Error{"generator=xdp-live across testbeds needs GRO on every receiving end (its NAPI)"};
        }
    }
    std::unique_ptr<nf_xdp_gen, SkeletonDestroy> skel(nf_xdp_gen__open());
    if (!skel || bpf_map__set_max_entries(skel->maps.nf_gen_devs, static_cast<std::uint32_t>(beds.size())) != 0 ||
        nf_xdp_gen__load(skel.get()) != 0) {
        return Error::fromErrno("generator=xdp-live: cannot load the embedded XDP programs");
    }
    auto gen = std::make_unique<XdpLiveGenerator>(beds, options, std::move(skel));
    if (beds.size() > 1) {
        NF_TRY(gen->fillDevmap());
    }
    const auto& bed = *beds.front();
    if (!bed.options().rxGro) {
        NF_TRY(gen->attachPass());
    }
    return std::unique_ptr<Generator>(std::move(gen));
}

}  // namespace nf::engine::net
