#pragma once
// Network namespaces held by file descriptor: made with unshare, entered with setns on the calling
// thread only (never `ip netns exec`, which remounts /sys). A namespace lives while a descriptor
// or a device in it does, so a killed process leaves none behind.

#include <string>

#include "base/result.h"

namespace nf::engine::net {

// An owned file descriptor, closed on destruction.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : m_fd(fd) {}
    Fd(Fd&& other) noexcept : m_fd(other.release()) {}
    Fd& operator=(Fd&& other) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd();

    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    int release();

private:
    int m_fd = -1;
};

// A new, empty network namespace (only `lo`, down). The calling thread stays where it was.
Result<Fd> createNetns();

// The calling thread's network namespace.
Result<Fd> currentNetns();

// Moves the calling thread into a namespace and back on destruction.
class NetnsGuard {
public:
    static Result<NetnsGuard> enter(int nsFd);
    NetnsGuard(NetnsGuard&& other) noexcept = default;
    NetnsGuard& operator=(NetnsGuard&&) = delete;
    NetnsGuard(const NetnsGuard&) = delete;
    NetnsGuard& operator=(const NetnsGuard&) = delete;
    ~NetnsGuard();

private:
    explicit NetnsGuard(Fd original) : m_original(std::move(original)) {}
    Fd m_original;
};

}  // namespace nf::engine::net
