#include "engine/net/cleanup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>

#include "engine/net/napi_defer.h"
#include "engine/net/netns.h"
#include "engine/net/rtnl.h"
#include "engine/net/testbed.h"
#include "engine/net/xdp_owner.h"

namespace nf::engine::net {

namespace {

constexpr const char* kNetnsDir = "/run/netns";

std::string gone(const OwnerRecord& r)
{
    return describeOwner(r) + " is gone";
}

std::uint64_t fieldNumber(const OwnerRecord& r, const char* key)
{
    const auto it = r.owns.find(key);
    return it == r.owns.end() ? 0 : std::strtoull(it->second.c_str(), nullptr, 10);
}

std::string field(const OwnerRecord& r, const char* key)
{
    const auto it = r.owns.find(key);
    return it == r.owns.end() ? std::string() : it->second;
}

// A reachable network namespace: the caller's own, or one held by a file under /run/netns.
struct Netns {
    std::string where;  // "this namespace" or the /run/netns path
    Fd fd;
    std::uint64_t inode = 0;
};

std::vector<Netns> reachableNamespaces()
{
    std::vector<Netns> out;
    if (auto self = currentNetns()) {
        const auto inode = netnsInode(self->get());
        out.push_back({"this namespace", std::move(*self), inode});
    }
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(kNetnsDir, ec)) {
        Fd fd(::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC));
        if (fd.valid()) {
            const auto inode = netnsInode(fd.get());
            out.push_back({entry.path().string(), std::move(fd), inode});
        }
    }
    return out;
}

class Cleaner {
public:
    Cleaner(const std::string& lockDir, bool act) : m_dir(lockDir), m_act(act) {}

    CleanupReport run()
    {
        xdp();
        napi();
        testbeds();
        namedObjects();
        return std::move(m_report);
    }

private:
    void add(std::string kind, std::string name, LeftoverState state, std::string why)
    {
        m_report.found.push_back({std::move(kind), std::move(name), state, std::move(why)});
    }

    void unproven(const OwnerProbe& p)
    {
        add("record", p.path, LeftoverState::NotOurs, p.why.empty() ? "no owner record" : p.why);
    }

    // What a killed run left that an owner record describes (kind "xdp": a program attached to a
    // real interface; "napi": busy-poll settings changed on one), undone by `undo` while the device
    // still holds what the run left. `markOf` reads the record (nullopt: the run died before it
    // named anything, so nothing was changed), `nameOf` says what it describes, `undone` is the
    // verb of the removed line ("detached").
    template <class Mark, class MarkOf, class NameOf, class Undo>
    void replay(const std::string& kind, MarkOf markOf, NameOf nameOf, Undo undo, const std::string& undone)
    {
        for (auto& p : probeOwners(kind, m_dir)) {
            if (p.state == OwnerState::NotOurs) {
                unproven(p);
                continue;
            }
            std::string why;
            const std::optional<Mark> mark = markOf(p.record, why);
            const std::string name = nameOf(mark ? &*mark : nullptr, p.record);
            if (p.state == OwnerState::Held) {
                add(kind, name, LeftoverState::InUse, "in use by " + describeOwner(p.record));
                continue;
            }
            add(kind, name, LeftoverState::Remove, gone(p.record));
            if (!m_act) {
                continue;
            }
            if (!mark) {
                p.claim->release();
                m_report.notes.push_back(kind + " " + name + ": " + why + "; nothing was changed");
                continue;
            }
            auto result = undo(*mark);
            if (!result) {
                m_report.failures.push_back(kind + " " + name + ": " + result.error().message);
                continue;  // the claim is dropped, the record kept: a later cleanup tries again
            }
            p.claim->release();
            if (result->empty()) {
                m_report.removed.push_back(undone + " " + name + " (" + gone(p.record) + ")");
            } else {
                m_report.notes.push_back(kind + " " + name + ": " + *result);
            }
        }
    }

    void xdp()
    {
        replay<XdpProgramMark>(
            "xdp", markOf,
            [](const XdpProgramMark* mark, const OwnerRecord& record) {
                return mark ? "program " + std::to_string(mark->progId) + " (" + mark->mode + ") on " + mark->ifname
                            : "on " + record.name;
            },
            detachIfStillOurs, "detached xdp");
        // Records of earlier versions (<pid>-<ifindex>, no lock): the pid alone proves nothing.
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(m_dir + "/xdp", ec)) {
            if (entry.path().extension() != ".lock") {
                add("record", entry.path().string(), LeftoverState::NotOurs,
                    "a record without an owner lock (an earlier version's): nothing proves its owner is gone");
            }
        }
    }

    // Busy-poll settings a killed xdp-rx run left on a real interface: the recorded values go back
    // while the device is the recorded one and still holds what the run set.
    void napi()
    {
        replay<NapiMark>(
            "napi", napiMarkOf,
            [](const NapiMark* mark, const OwnerRecord& record) {
                return mark ? "busy-poll settings of " + mark->ifname + " (napi_defer_hard_irqs " +
                                  std::to_string(mark->set.deferHardIrqs) + ", gro_flush_timeout " +
                                  std::to_string(mark->set.groFlushTimeoutNs) + " ns; were " +
                                  std::to_string(mark->before.deferHardIrqs) + ", " +
                                  std::to_string(mark->before.groFlushTimeoutNs) + " ns)"
                            : "busy-poll settings of " + record.name;
            },
            restoreIfStillOurs, "put back");
    }

    // A testbed's namespaces are anonymous: one is reachable after its owner died only if someone
    // pinned it under /run/netns. The recorded inode alone does not name it, since the kernel
    // reuses a namespace's inode once it is gone: only a namespace with a recorded inode that
    // still holds one of the testbed's links is taken for the testbed's.
    void testbeds()
    {
        const auto namespaces = reachableNamespaces();
        for (auto& p : probeOwners("testbed", m_dir)) {
            if (p.state == OwnerState::NotOurs) {
                unproven(p);
                continue;
            }
            const std::set<std::uint64_t> inodes = {fieldNumber(p.record, "tx_netns"),
                                                    fieldNumber(p.record, "rx_netns")};
            const std::vector<std::string> links = {field(p.record, "tx_link"), field(p.record, "rx_link")};
            if (p.state == OwnerState::Held) {  // alive, so are its namespaces: the inodes are theirs
                m_covered.insert(links.begin(), links.end());
                m_coveredNs.insert(inodes.begin(), inodes.end());
                add("testbed", p.record.name, LeftoverState::InUse, "in use by " + describeOwner(p.record));
                continue;
            }
            add("testbed", p.record.name, LeftoverState::Remove, gone(p.record));
            bool failed = false;
            int deleted = 0;
            for (const auto& ns : namespaces) {
                if (ns.inode == 0 || inodes.count(ns.inode) == 0) {
                    continue;  // not a namespace the testbed made
                }
                auto sock = RtnlSocket::open(ns.fd.get());
                if (!sock) {
                    m_report.failures.push_back("testbed " + p.record.name + ": " + sock.error().message);
                    failed = true;
                    continue;
                }
                for (const auto& l : links) {
                    if (l.empty() || !sock->ifindex(l)) {
                        continue;
                    }
                    m_covered.insert(l);
                    m_coveredNs.insert(ns.inode);
                    if (!m_act) {
                        continue;
                    }
                    if (auto r = sock->deleteLink(l); !r) {
                        m_report.failures.push_back("link " + l + " in " + ns.where + ": " + r.error().message);
                        failed = true;
                    } else {
                        ++deleted;
                    }
                }
            }
            if (!m_act || failed) {
                continue;
            }
            p.claim->release();
            if (deleted > 0) {
                m_report.removed.push_back("removed testbed " + p.record.name + " (" + gone(p.record) + ")");
            } else {
                m_report.notes.push_back("testbed " + p.record.name + ": went with its namespaces");
            }
        }
    }

    // What only looks like the tool's: listed, never touched.
    void namedObjects()
    {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(kNetnsDir, ec)) {
            const auto name = entry.path().filename().string();
            if (name.rfind("nf", 0) != 0) {
                continue;
            }
            Fd fd(::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC));
            if (fd.valid() && m_coveredNs.count(netnsInode(fd.get())) != 0) {
                continue;  // a testbed's namespace someone pinned: its devices are handled above
            }
            add("namespace", entry.path().string(), LeftoverState::NotOurs,
                "the tool makes no named namespace; no owner lock names it");
        }
        if (auto sock = RtnlSocket::open()) {
            for (const auto& name : sock->linkNames()) {
                if (looksLikeToolName(name) && m_covered.count(name) == 0) {
                    add("link", name, LeftoverState::NotOurs, "no owner lock names it");
                }
            }
        }
    }

    std::string m_dir;
    bool m_act;
    CleanupReport m_report;
    std::set<std::string> m_covered;
    std::set<std::uint64_t> m_coveredNs;
};

}  // namespace

bool looksLikeToolName(const std::string& name)
{
    static const std::regex pattern("^nf[0-9]{1,7}(t|r|tx|rx|b)[0-9]*$");
    return std::regex_match(name, pattern);
}

std::vector<Leftover> findLeftovers(const std::string& lockDir)
{
    return Cleaner(lockDir, false).run().found;
}

CleanupReport removeLeftovers(const std::string& lockDir)
{
    return Cleaner(lockDir, true).run();
}

}  // namespace nf::engine::net
