#include "engine/net/netns.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <utility>

namespace nf::engine::net {

Fd& Fd::operator=(Fd&& other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = other.release();
    }
    return *this;
}

Fd::~Fd()
{
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

int Fd::release()
{
    return std::exchange(m_fd, -1);
}

Result<Fd> currentNetns()
{
    Fd fd(::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
        return Error::fromErrno("cannot open /proc/thread-self/ns/net");
    }
    return fd;
}

Result<Fd> createNetns()
{
    auto original = NF_TRY(currentNetns());
    if (::unshare(CLONE_NEWNET) != 0) {
        const int err = errno;
        return Error::fromErrno(err == EPERM ? "cannot create a network namespace (needs CAP_SYS_ADMIN)"
                                             : "cannot create a network namespace",
                                err);
    }
    auto made = currentNetns();
    if (::setns(original.get(), CLONE_NEWNET) != 0) {
        return Error::fromErrno("cannot return to the original network namespace");
    }
    return made;
}

Result<NetnsGuard> NetnsGuard::enter(int nsFd)
{
    auto original = NF_TRY(currentNetns());
    if (::setns(nsFd, CLONE_NEWNET) != 0) {
        return Error::fromErrno("cannot enter a network namespace");
    }
    return NetnsGuard(std::move(original));
}

NetnsGuard::~NetnsGuard()
{
    if (m_original.valid()) {
        // Cannot fail for a namespace this thread was in a moment ago and still holds open.
        static_cast<void>(::setns(m_original.get(), CLONE_NEWNET));
    }
}

}  // namespace nf::engine::net
