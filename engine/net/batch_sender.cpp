// The pinned batch sender of the sendmmsg and packet generators (engine/net/batch_sender.h).

#include "engine/net/batch_sender.h"

#include <utility>

namespace nf::engine::net {

BatchSender::BatchSender(Fd sock, const GeneratorOptions& options, std::vector<std::uint8_t> buffer)
    : m_sock(std::move(sock)), m_options(options), m_buffer(std::move(buffer))
{
    m_iov = {m_buffer.data(), m_buffer.size()};
    m_msgs.resize(static_cast<std::size_t>(options.batch));
    for (auto& m : m_msgs) {
        m.msg_hdr.msg_iov = &m_iov;
        m.msg_hdr.msg_iovlen = 1;
    }
}

Result<void> BatchSender::start()
{
    stop();
    m_thread =
        PinnedThread::start("generator thread", m_options.cpu, [this](const std::stop_token& stop) { loop(stop); });
    return {};
}

void BatchSender::stop()
{
    m_thread.requestStop();
    m_thread.join();
}

std::string BatchSender::describeAs(const std::string& name) const
{
    return name + ", batch " + std::to_string(m_options.batch) + ", " + std::to_string(m_options.payload) +
           "-byte payload, CPU " + std::to_string(m_options.cpu) +
           (m_options.rate > 0 ? ", limited to " + std::to_string(m_options.rate) + " pps" : "");
}

}  // namespace nf::engine::net
