#pragma once
// Two hosts: the generator on one machine, the device under test on another, over OpenSSH.
// `noisefloor generate` (app/cli/generate_command.cpp) runs the packet generator on the generator
// host; the engine on the device under test starts it through the real `ssh` client and drives it
// over its stdin/stdout, one JSON line per answer. Frames go only out of the generator's named
// interface, only to the MAC and address the engine learned from its own receiving interface.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "engine/net/generator.h"
#include "engine/net/testbed.h"

namespace nf::engine::net {

// A device of the calling thread's namespace: its ifindex, MAC and first IPv4 address.
Result<Endpoint> localEndpoint(const std::string& ifname);
// The device the kernel would route `dst` out of (from the calling thread's namespace).
Result<std::string> routeDevice(const in_addr& dst);

std::string formatMac(const std::array<std::uint8_t, 6>& mac);
std::optional<std::array<std::uint8_t, 6>> parseMac(const std::string& text);
std::string formatAddr(const in_addr& addr);

// `packet`: sendmmsg of `batch` copies of udpFrame(from, to) on an AF_PACKET socket bound to
// `from.ifindex`, from a thread pinned to `options.cpu`; nothing is sent anywhere else.
Result<std::unique_ptr<Generator>> makePacketGenerator(const Endpoint& from, const Endpoint& to,
                                                       const GeneratorOptions& options);

// What the generator host said about itself in its first line.
struct RemoteFacts {
    std::string host;  // as the user named it (user@host or an ssh Host alias)
    std::string version;
    std::string iface;
    std::string mac;
    std::string addr;
};

struct SshGeneratorOptions {
    std::string host;            // tx_host: what ssh accepts
    std::string iface;           // tx_iface on the generator host; "" = the device its route to `to` uses
    std::string sshConfig;       // ssh -F; "" = the user's own configuration
    std::string command;         // the remote noisefloor ("noisefloor": found on its PATH)
    int connectTimeout = 10;     // seconds (ssh -o ConnectTimeout)
    Endpoint to;                 // the receiving interface, learned here
    GeneratorOptions generator;  // cpu, batch, payload, rate, port (on the generator host)
};

// The remote generator: `ssh -T -o BatchMode=yes ... HOST noisefloor generate --control ...`,
// started in its own process group (a terminal's SIGINT reaches the engine, which stops both
// sides) and killed with the engine if it dies (PR_SET_PDEATHSIG). Construction waits for the
// remote's first line and refuses a version other than `NF_VERSION`; start/stop/sent are one
// request each. When ssh drops, failure() says so and every count stays at its last value.
class SshGenerator : public Generator {
public:
    virtual const RemoteFacts& remote() const = 0;
};
Result<std::unique_ptr<SshGenerator>> makeSshGenerator(const SshGeneratorOptions& options, const std::string& version);

// The generator host a two-host workload names: its tx_host, tx_iface and ssh_config parameters.
struct GeneratorHost {
    std::string host;
    std::string iface;      // "" = the device its route to the receiver uses
    std::string sshConfig;  // "" = the user's own configuration
};

// The generator of a two-host workload (udp-rx, xdp-rx): makeSshGenerator with the `noisefloor`
// on the generator host's PATH, a 10-second connect timeout and this build's version (NF_VERSION)
// required of it, sending to `to` as `generator` says.
Result<std::unique_ptr<SshGenerator>> makeTwoHostGenerator(const GeneratorHost& host, const Endpoint& to,
                                                           const GeneratorOptions& generator);

// What a two-host run stores about its path: path=two-host, generator_host, generator_version,
// the sender's device, MAC and address, and the receiver's.
std::vector<std::pair<std::string, std::string>> twoHostFacts(const Endpoint& rx, const RemoteFacts& remote);

// The remote command line `noisefloor generate ...` for these options (shell-quoted words).
std::vector<std::string> generateCommand(const SshGeneratorOptions& options, const std::string& version);

}  // namespace nf::engine::net
