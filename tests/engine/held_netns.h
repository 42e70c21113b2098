#pragma once
// The network namespaces a test process holds descriptors to: a testbed that is gone leaves none.

#include <filesystem>
#include <set>
#include <string>

namespace nf::test {

// One entry per descriptor ("net:[INODE]"), so a namespace held twice counts twice.
inline std::multiset<std::string> heldNetns()
{
    std::multiset<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const auto target = std::filesystem::read_symlink(e.path(), ec).string();
        if (target.rfind("net:[", 0) == 0) {
            out.insert(target);
        }
    }
    return out;
}

}  // namespace nf::test
