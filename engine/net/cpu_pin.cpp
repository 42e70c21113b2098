#include "engine/net/cpu_pin.h"

#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "base/system_facts.h"

namespace nf::engine::net {

std::vector<int> allowedCpus()
{
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c) {
            if (CPU_ISSET(c, &set)) {
                cpus.push_back(c);
            }
        }
    }
    return cpus;
}

Result<void> pinThread(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (int err = pthread_setaffinity_np(pthread_self(), sizeof set, &set); err != 0) {
        return Error::fromErrno("cannot pin a thread to CPU " + std::to_string(cpu), err);
    }
    return {};
}

bool hasCapability(int cap)
{
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
    if (::syscall(SYS_capget, &header, data) != 0) {
        return false;
    }
    return (data[cap / 32].effective & (1U << (cap % 32))) != 0;
}

Result<void> requireNetworkCapabilities(const std::string& workload)
{
    std::string missing;
    if (!hasCapability(CAP_NET_ADMIN)) {
        missing = "CAP_NET_ADMIN";
    }
    if (!hasCapability(CAP_SYS_ADMIN)) {
        missing += std::string(missing.empty() ? "" : " and ") + "CAP_SYS_ADMIN";
    }
    if (!missing.empty()) {
        return Error{workload + " needs " + missing +
                     " to make its network namespaces and devices: run it as root (nothing was started)"};
    }
    return {};
}

}  // namespace nf::engine::net
