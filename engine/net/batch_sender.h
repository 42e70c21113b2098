#pragma once
// What the sendmmsg and packet generators share: `batch` messages that all point at one buffer,
// handed to the kernel by one sendmmsg call at a time from a thread pinned to `options.cpu`.

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/net/generator.h"
#include "engine/net/netns.h"
#include "engine/run/pinned_thread.h"

namespace nf::engine::net {

// A generator whose sending loop (loop(), in the derived class) calls sendBatch(). A derived class
// whose loop reads its own members stops the thread in its own destructor (BatchSender::stop()),
// before those members go.
class BatchSender : public Generator {
public:
    BatchSender(Fd sock, const GeneratorOptions& options, std::vector<std::uint8_t> buffer);
    ~BatchSender() override { BatchSender::stop(); }
    BatchSender(const BatchSender&) = delete;
    BatchSender& operator=(const BatchSender&) = delete;

    // Starts loop() on the pinned "generator thread" (stopping a thread already running first).
    Result<void> start() final;
    void stop() final;
    std::string warning() const final { return m_thread.warning(); }
    std::uint64_t sent() const override { return m_sent.load(std::memory_order_relaxed); }

protected:
    virtual void loop(const std::stop_token& stop) = 0;

    // One sendmmsg of the whole batch: what it returned (messages sent, or -1).
    int sendBatch() { return ::sendmmsg(m_sock.get(), m_msgs.data(), static_cast<unsigned>(m_msgs.size()), 0); }
    std::size_t batch() const { return m_msgs.size(); }
    const GeneratorOptions& options() const { return m_options; }
    int sock() const { return m_sock.get(); }
    void storeSent(std::uint64_t sent) { m_sent.store(sent, std::memory_order_relaxed); }
    // "NAME, batch B, P-byte payload, CPU C[, limited to R pps]".
    std::string describeAs(const std::string& name) const;

private:
    Fd m_sock;
    GeneratorOptions m_options;
    std::vector<std::uint8_t> m_buffer;
    iovec m_iov{};
    std::vector<mmsghdr> m_msgs;
    std::atomic<std::uint64_t> m_sent{0};
    PinnedThread m_thread;
};

}  // namespace nf::engine::net
