#pragma once
// Traffic generators for live receive tests: each sends UDP from the testbed's sending side to the
// receiving side, from a thread pinned to one CPU, and counts what it handed to the kernel.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/net/testbed.h"

namespace nf::engine::net {

struct GeneratorOptions {
    int cpu = 0;
    int batch = 64;          // packets per system call (sendmmsg) or per BPF_PROG_RUN
    int payload = 64;        // UDP payload bytes
    double rate = 0;         // packets per second; 0 = as fast as it goes
    std::uint16_t port = 0;  // destination UDP port on the receiving side
};

class Generator {
public:
    virtual ~Generator() = default;
    virtual Result<void> start() = 0;        // starts the sending thread
    virtual void stop() = 0;                 // stops and joins it; safe to call twice
    virtual std::uint64_t sent() const = 0;  // cumulative, since construction
    // Packets it tried to hand on (sent plus those the kernel refused), cumulative.
    virtual std::uint64_t offered() const { return sent(); }
    // "" while it works; else why it stopped working (a remote generator whose ssh dropped).
    virtual std::string failure() const { return ""; }
    virtual std::string describe() const = 0;
    // "" when its thread was pinned to its CPU, else why not (it then ran unpinned).
    virtual std::string warning() const = 0;
    // Sends to `port` from now on, without stopping (variants side by side on their own ports);
    // frames already handed to the kernel still go to the previous one. False: it cannot.
    virtual bool setPort(std::uint16_t port)
    {
        (void)port;
        return false;
    }
    // Sends out of testbed `bed` (its index among the testbeds it was made with) from now on,
    // without stopping; frames already handed on still go to the previous one. False: it cannot.
    virtual bool setTarget(std::size_t bed)
    {
        (void)bed;
        return false;
    }
};

// `sendmmsg`: a connected UDP socket in the sending namespace, `batch` datagrams per call.
Result<std::unique_ptr<Generator>> makeSendmmsgGenerator(const Testbed& bed, const GeneratorOptions& options);

// The frame xdp-live sends: Ethernet + IPv4 + UDP from the sending to the receiving end, to
// `options.port`, `options.payload` bytes of 0x5a.
std::vector<std::uint8_t> udpFrame(const Testbed& bed, const GeneratorOptions& options);
// The same frame between any two endpoints (their MACs and IPv4 addresses).
std::vector<std::uint8_t> udpFrame(const Endpoint& from, const Endpoint& to, const GeneratorOptions& options);

// `xdp-live`: BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES into an XDP_TX program on the sending
// veth end, `batch` frames per kernel batch (at most 256), a million frames per call (a rate limit
// makes calls of 50 ms at the target rate); the program counts what it sends, and a stop
// interrupts the call in flight with SIGUSR1. With GRO off on the receiving end, an
// XDP_PASS program is attached there for the NAPI that XDP-sent frames need, and detached on
// destruction. `bed` must outlive the generator.
Result<std::unique_ptr<Generator>> makeXdpLiveGenerator(const Testbed& bed, const GeneratorOptions& options);
// `xdp-live` across testbeds side by side (every receiving end with GRO): frames are injected on the
// first one's sending end and redirected through a DEVMAP of all their sending ends out of the one
// setTarget names (the first until then), so each frame reaches that testbed's receiving end.
Result<std::unique_ptr<Generator>> makeXdpLiveGenerator(const std::vector<const Testbed*>& beds,
                                                        const GeneratorOptions& options);

}  // namespace nf::engine::net
