#pragma once
// A blocking queue from one producer thread to one consumer thread.

#include <condition_variable>
#include <deque>
#include <mutex>

namespace nf::engine {

template <typename T>
class Channel {
public:
    void push(T value)
    {
        {
            std::lock_guard lock(m_mutex);
            m_items.push_back(std::move(value));
        }
        m_ready.notify_one();
    }

    T pop()
    {
        std::unique_lock lock(m_mutex);
        m_ready.wait(lock, [this] { return !m_items.empty(); });
        T value = std::move(m_items.front());
        m_items.pop_front();
        return value;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_ready;
    std::deque<T> m_items;
};

}  // namespace nf::engine
