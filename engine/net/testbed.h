#pragma once
// The tool's own network for live receive tests: two namespaces joined by a veth pair (path=veth),
// or one namespace and its loopback (path=loopback), made through netlink (libnl-route-3).
// Device names carry the owning pid (nf<pid>t<n> sends, nf<pid>r<n> receives). Addresses are from
// 192.0.2.0/24 (TEST-NET-1) and exist only inside these namespaces; neighbours are static, so no
// ARP is ever sent. Destruction deletes the devices and closes the namespaces: nothing is left.
// A veth testbed holds an owner lock ("testbed", its sending device; engine/run/owner_lock.h)
// naming its namespaces and devices, the proof `noisefloor cleanup` needs to remove them.

#include <netinet/in.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "engine/net/netns.h"
#include "engine/run/owner_lock.h"

namespace nf::engine::net {

enum class TestbedPath { Veth, Loopback };

struct TestbedOptions {
    TestbedPath path = TestbedPath::Veth;
    bool rxGro = true;  // GRO on the receiving veth (also gives it NAPI, which BPF-injected frames need)
};

struct Endpoint {
    int nsFd = -1;  // owned by the Testbed
    std::string ifname;
    int ifindex = 0;
    in_addr addr{};
    std::array<std::uint8_t, 6> mac{};
};

class Testbed {
public:
    static Result<std::unique_ptr<Testbed>> create(const TestbedOptions& options);
    Testbed(const Testbed&) = delete;
    Testbed& operator=(const Testbed&) = delete;
    ~Testbed();

    const TestbedOptions& options() const { return m_options; }
    const Endpoint& tx() const { return m_tx; }
    const Endpoint& rx() const { return m_rx; }

    // Prefix of every name this process gives a device or namespace: "nf<pid>".
    static std::string namePrefix();

private:
    Testbed() = default;
    Result<void> setUpVeth();
    Result<void> setUpLoopback();

    TestbedOptions m_options;
    std::optional<OwnerLock> m_owner;  // destroyed last: after the devices and namespaces
    Fd m_txNs;
    Fd m_rxNs;
    Endpoint m_tx;
    Endpoint m_rx;
    bool m_vethMade = false;
};

// The inode of a network namespace descriptor: what names a namespace (ip netns identify).
std::uint64_t netnsInode(int nsFd);

// Sets a device's generic-receive-offload feature (ETHTOOL_SGRO) in namespace `nsFd`.
Result<void> setGro(int nsFd, const std::string& ifname, bool on);

}  // namespace nf::engine::net
