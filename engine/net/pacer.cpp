#include "engine/net/pacer.h"

namespace nf::engine::net {

Pacer::Pacer(double rate, std::uint64_t sent)
    : m_nsPerPacket(rate > 0 ? 1e9 / rate : 0), m_startNs(nowNs()), m_base(sent)
{
}

std::uint64_t Pacer::dueNs(std::uint64_t sent) const
{
    return m_startNs + static_cast<std::uint64_t>(static_cast<double>(sent - m_base) * m_nsPerPacket);
}

std::uint64_t Pacer::nowNs()
{
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

void Pacer::sleepNs(std::uint64_t ns)
{
    timespec pause{static_cast<time_t>(ns / 1000000000ULL), static_cast<long>(ns % 1000000000ULL)};
    ::nanosleep(&pause, nullptr);
}

}  // namespace nf::engine::net
