#pragma once
// `noisefloor run --events jsonl`: the run as a stream of JSON objects, one a line on stdout, for
// front ends such as noisefloor-gui. The schema is in docs/events.md.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/run_data.h"
#include "engine/run/run_watch.h"

namespace nf::cli {

inline constexpr int kEventsSchemaVersion = 1;

// Where the event lines go (stdout), written so that a reader that stops reading can never hold the
// run: a pipe, FIFO or terminal is reopened through /proc/self/fd with O_NONBLOCK (a description of
// its own, so the flags of the one the shell shares are left alone), a socket is written with
// MSG_DONTWAIT; a regular file is written as usual (it never waits for a reader). What the reader
// has not taken yet is queued up to `capacity` bytes; past that a write waits for the reader, but
// at most `stall` without progress and never once `stop` is requested: then the stream is lost
// (every later write is dropped) and write() says so. Safe to call from several threads.
class EventSink {
public:
    static constexpr std::size_t kDefaultCapacity = std::size_t{4} << 20U;
    static constexpr std::chrono::milliseconds kDefaultStall{5000};

    // `stop` is the command's: once it is requested a reader that does not read is not waited for.
    EventSink(int fd, std::stop_token stop, std::size_t capacity = kDefaultCapacity,
              std::chrono::milliseconds stall = kDefaultStall);
    ~EventSink();
    EventSink(const EventSink&) = delete;
    EventSink& operator=(const EventSink&) = delete;

    // Queues `line` and a newline and writes what the reader takes now. False when the stream is
    // lost (now or before): the line was dropped.
    bool write(std::string_view line);
    // At the end of the command: gives the reader what is queued, waiting at most `stall` without
    // progress, or about a second once stop is requested (a signal must end the command soon).
    void drain();
    bool lost() const;
    // Why the stream was lost ("" while it is not).
    std::string lostReason() const;
    // Lost because the reader closed its end (a closed pipe, a dropped ssh), not because it stalled.
    bool readerGone() const;

private:
    // Writes what the descriptor takes without waiting; false when the reader is gone.
    bool writeSome();
    // Waits until at most `target` bytes are queued; false (the stream lost) when it cannot.
    bool waitUntilQueued(std::size_t target, bool heedStop, std::chrono::milliseconds stall);
    void loseStream(std::string reason);

    mutable std::mutex m_mutex;
    int m_fd = -1;
    std::stop_token m_stop;
    bool m_ownFd = false;
    bool m_socket = false;
    std::size_t m_capacity;
    std::chrono::milliseconds m_stall;
    std::string m_queue;
    std::size_t m_sent = 0;  // bytes of m_queue already written
    std::string m_lost;
    bool m_readerGone = false;
};

// Forwards every call to `inner` (which records the run) and writes the matching event after it,
// flushing each line so a reader sees it at once.
class EventStream : public engine::RunObserver, public engine::WatchObserver {
public:
    EventStream(engine::RunObserver& inner, EventSink& out, std::string dbPath);

    // Where the id the recorder gave the run comes from (0 before it started).
    void setRunId(std::function<std::int64_t()> runId) { m_runId = std::move(runId); }
    // Called once, from the thread that wrote, when a line cannot be written: the reader went
    // away (a closed pipe, a dropped ssh) or stopped reading (the queue stayed full). The run must
    // stop; nobody watches it any more. The argument says why.
    void setOnBroken(std::function<void(const std::string&)> onBroken) { m_onBroken = std::move(onBroken); }
    // Whether `finished` was written: nothing of this run follows it (an error is on stderr only).
    bool finishedSent() const { return m_finishedSent; }

    Result<void> runStarted(const engine::RunStart& start) override;
    Result<void> repetitionFinished(const engine::RepetitionResult& rep) override;
    void warning(std::string_view text) override;
    void progress(int done, int total, double secondsLeft) override;
    void runFinished(engine::RunStatus status, std::string_view reason) override;
    // Until decided: forwarded (no event of their own; the finished event's reason says why it stopped).
    Result<void> decisionLook(const engine::DecisionLook& look) override { return m_inner.decisionLook(look); }
    Result<void> decisionMade(const engine::DecisionRecord& record) override { return m_inner.decisionMade(record); }
    Result<void> profileMeasured(const engine::ProfileSummary& soFar, const engine::RepetitionProfile& profile) override
    {
        return m_inner.profileMeasured(soFar, profile);
    }
    Result<void> profileFinished(const engine::ProfileSummary& summary) override
    {
        return m_inner.profileFinished(summary);
    }

    // While a repetition runs: "partial_samples" and "look" a few times a second.
    void samplesMeasured(int repetition, const std::vector<engine::Sample>& samples) override;  // not forwarded
    void watchLook(const engine::WatchLook& look) override;

    // An error that ends the command (also written when the run never started); not written after
    // `finished`, which is the run's last event and already says how it ended.
    void error(const std::string& message, int exitStatus);

private:
    void emit(const nlohmann::json& event);
    std::int64_t runId() const { return m_runId ? m_runId() : 0; }

    engine::RunObserver& m_inner;
    EventSink& m_out;
    std::string m_dbPath;
    std::function<std::int64_t()> m_runId;
    std::function<void(const std::string&)> m_onBroken;
    std::atomic<bool> m_broken{false};
    bool m_finishedSent = false;
    engine::RunLayout m_layout;
};

}  // namespace nf::cli
