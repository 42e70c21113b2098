#pragma once
// The rate limit of both traffic generators: packet n is due at start + n / rate. A generator
// asks before each send whether it is ahead of that schedule and waits if it is; it sends as fast
// as it can when the rate is 0.

#include <cstdint>
#include <ctime>

namespace nf::engine::net {

class Pacer {
public:
    // `rate` packets per second from now on, counting from `sent` already sent; 0 = no limit.
    Pacer(double rate, std::uint64_t sent);

    // Blocks while the generator, having sent `sent` in all, is ahead of the schedule: sleeps when
    // far ahead (at most 1 ms at a time, so a stop is seen promptly), spins the last 100 us.
    // Returns at once without a limit. `stopping` is polled between sleeps.
    template <typename Stop>
    void wait(std::uint64_t sent, const Stop& stopping) const
    {
        if (m_nsPerPacket <= 0) {
            return;
        }
        const std::uint64_t due = dueNs(sent);
        for (std::uint64_t now = nowNs(); now < due && !stopping(); now = nowNs()) {
            const std::uint64_t ahead = due - now;
            if (ahead > kSpinNs) {
                sleepNs(ahead - kSpinNs < kMaxSleepNs ? ahead - kSpinNs : kMaxSleepNs);
            }
        }
    }

    // When the `sent`-th packet is due, in CLOCK_MONOTONIC nanoseconds.
    std::uint64_t dueNs(std::uint64_t sent) const;
    bool limited() const { return m_nsPerPacket > 0; }

    static std::uint64_t nowNs();

private:
    static constexpr std::uint64_t kSpinNs = 100000;
    static constexpr std::uint64_t kMaxSleepNs = 1000000;
    static void sleepNs(std::uint64_t ns);

    double m_nsPerPacket = 0;
    std::uint64_t m_startNs = 0;
    std::uint64_t m_base = 0;
};

}  // namespace nf::engine::net
