#pragma once
// The minimal live-frames generator the speed benchmarks hold the tool's xdp-live generator
// against (docs/benchmarks.md): one thread pinned to a CPU, BPF_PROG_RUN with
// BPF_F_TEST_XDP_LIVE_FRAMES of an XDP_TX program on the sending veth end, `framesPerCall` frames
// per call, 64 frames per kernel batch, and nothing else (no pacing, no counting in the program, no
// prompt stop: it stops after its current call). The frame is the tool's, so both send the same.

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/net/libbpf_opts.h"
#include "engine/net/netns.h"
#include "engine/net/testbed.h"
#include "min_xdp_gen.skel.h"

namespace nf::test {

class MinXdpGenerator {
public:
    // Loads the programs; with `dropSink`, attaches XDP_DROP to the receiving end (native mode).
    MinXdpGenerator(const engine::net::Testbed& bed, std::vector<std::uint8_t> frame, bool dropSink)
        : m_bed(bed), m_frame(std::move(frame)), m_skel(min_xdp_gen__open_and_load())
    {
        if (m_skel != nullptr && dropSink) {
            auto guard = engine::net::NetnsGuard::enter(bed.rx().nsFd);
            m_sink = guard && bpf_xdp_attach(bed.rx().ifindex, bpf_program__fd(m_skel->progs.min_xdp_drop),
                                             XDP_FLAGS_DRV_MODE, nullptr) == 0;
        }
    }
    ~MinXdpGenerator()
    {
        stop();
        if (m_sink) {
            if (auto guard = engine::net::NetnsGuard::enter(m_bed.rx().nsFd)) {
                bpf_xdp_detach(m_bed.rx().ifindex, XDP_FLAGS_DRV_MODE, nullptr);
            }
        }
        min_xdp_gen__destroy(m_skel);
    }
    bool loaded() const { return m_skel != nullptr; }

    void start(int cpu, std::uint32_t framesPerCall)
    {
        m_stop = false;
        m_thread = std::thread([this, cpu, framesPerCall] { loop(cpu, framesPerCall); });
    }
    void stop()
    {
        m_stop = true;
        if (m_thread.joinable()) {
            m_thread.join();
        }
    }
    // Frames sent by finished calls.
    std::uint64_t sent() const { return m_sent.load(std::memory_order_relaxed); }
    // Frames per second between the first and the last call that finished in [from, to]: a call is
    // a million frames, so counting at call ends is exact only there.
    double rate(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) const
    {
        std::lock_guard lock(m_mutex);
        const Completion* first = nullptr;
        const Completion* last = nullptr;
        for (const auto& c : m_completions) {
            if (c.at >= from && c.at <= to) {
                first = first == nullptr ? &c : first;
                last = &c;
            }
        }
        if (first == nullptr || first == last) {
            return 0;
        }
        return static_cast<double>(last->sent - first->sent) /
               std::chrono::duration<double>(last->at - first->at).count();
    }
    int error() const { return m_error.load(); }

private:
    void loop(int cpu, std::uint32_t framesPerCall)
    {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
        auto guard = engine::net::NetnsGuard::enter(m_bed.tx().nsFd);
        if (!guard) {
            m_error = EINVAL;
            return;
        }
        xdp_md ctx{};
        ctx.data_end = static_cast<std::uint32_t>(m_frame.size());
        ctx.ingress_ifindex = static_cast<std::uint32_t>(m_bed.tx().ifindex);
        const int fd = bpf_program__fd(m_skel->progs.min_xdp_tx);
        while (!m_stop.load(std::memory_order_relaxed)) {
            bpf_test_run_opts opts;
            nf::engine::net::initOpts(opts);
            opts.data_in = m_frame.data();
            opts.data_size_in = static_cast<std::uint32_t>(m_frame.size());
            opts.ctx_in = &ctx;
            opts.ctx_size_in = sizeof ctx;
            opts.repeat = framesPerCall;
            opts.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
            opts.batch_size = 64;
            if (int err = bpf_prog_test_run_opts(fd, &opts); err < 0) {
                m_error = -err;
                return;
            }
            const auto total = m_sent.fetch_add(framesPerCall, std::memory_order_relaxed) + framesPerCall;
            std::lock_guard lock(m_mutex);
            m_completions.push_back({std::chrono::steady_clock::now(), total});
        }
    }

    const engine::net::Testbed& m_bed;
    std::vector<std::uint8_t> m_frame;
    min_xdp_gen* m_skel = nullptr;
    bool m_sink = false;
    std::atomic<bool> m_stop{false};
    std::atomic<std::uint64_t> m_sent{0};
    std::atomic<int> m_error{0};
    struct Completion {
        std::chrono::steady_clock::time_point at;
        std::uint64_t sent = 0;
    };
    mutable std::mutex m_mutex;
    std::vector<Completion> m_completions;
    std::thread m_thread;
};

}  // namespace nf::test
