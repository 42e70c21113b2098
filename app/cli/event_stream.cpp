#include "app/cli/event_stream.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include "engine/report/run_text.h"

namespace nf::cli {

namespace {

// NaN and infinities are not JSON: they travel as null.
nlohmann::json number(double value)
{
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

nlohmann::json sampleJson(const engine::Sample& s, const engine::RunLayout& layout)
{
    nlohmann::json values = nlohmann::json::array();
    for (double v : s.values) {
        values.push_back(number(v));
    }
    std::optional<double> primary;
    if (!layout.metrics.empty()) {
        primary = engine::metricValue(layout.metrics.front(), layout.quantities, {&s.values});
    }
    return {{"variant", s.variant},
            {"repetition", s.repetition},
            {"index", s.index},
            {"pair", s.pair},
            {"start", s.start},
            {"duration", s.duration},
            {"values", std::move(values)},
            {"primary", primary ? number(*primary) : nlohmann::json(nullptr)}};
}

}  // namespace

EventSink::EventSink(int fd, std::stop_token stop, std::size_t capacity, std::chrono::milliseconds stall)
    : m_fd(fd), m_stop(std::move(stop)), m_capacity(capacity), m_stall(stall)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        return;  // the first write says what is wrong
    }
    if (S_ISSOCK(st.st_mode)) {
        m_socket = true;  // send(MSG_DONTWAIT) leaves the shared description's flags alone
        return;
    }
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
        // A description of its own: O_NONBLOCK on the shared one would reach the shell and every
        // other process that writes to the same pipe or terminal.
        const std::string self = "/proc/self/fd/" + std::to_string(fd);
        const int own = ::open(self.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (own >= 0) {
            m_fd = own;
            m_ownFd = true;
        } else if (errno == ENXIO) {
            m_lost = "its reader is gone";  // a FIFO without a reader
            m_readerGone = true;
        }
    }
}

EventSink::~EventSink()
{
    if (m_ownFd) {
        ::close(m_fd);
    }
}

bool EventSink::lost() const
{
    const std::lock_guard lock(m_mutex);
    return !m_lost.empty();
}

std::string EventSink::lostReason() const
{
    const std::lock_guard lock(m_mutex);
    return m_lost;
}

bool EventSink::readerGone() const
{
    const std::lock_guard lock(m_mutex);
    return m_readerGone;
}

void EventSink::loseStream(std::string reason)
{
    m_lost = std::move(reason);
    m_queue.clear();
    m_sent = 0;
}

bool EventSink::writeSome()
{
    while (m_sent < m_queue.size()) {
        const char* data = m_queue.data() + m_sent;
        const std::size_t size = m_queue.size() - m_sent;
        const ssize_t n = m_socket ? ::send(m_fd, data, size, MSG_DONTWAIT | MSG_NOSIGNAL) : ::write(m_fd, data, size);
        if (n > 0) {
            m_sent += static_cast<std::size_t>(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        } else {
            m_readerGone = n < 0 && errno == EPIPE;
            loseStream(m_readerGone ? std::string("its reader is gone")
                       : n < 0      ? "it cannot be written: " + errnoText(errno)
                                    : std::string("it cannot be written"));
            return false;
        }
    }
    if (m_sent == m_queue.size()) {
        m_queue.clear();
        m_sent = 0;
    } else if (m_sent > (std::size_t{1} << 20U)) {
        m_queue.erase(0, m_sent);
        m_sent = 0;
    }
    return true;
}

bool EventSink::waitUntilQueued(std::size_t target, bool heedStop, std::chrono::milliseconds stall)
{
    using Clock = std::chrono::steady_clock;
    auto lastProgress = Clock::now();
    while (m_queue.size() - m_sent > target) {
        if (heedStop && m_stop.stop_requested()) {
            loseStream("the run was stopped while its reader was not reading");
            return false;
        }
        if (Clock::now() - lastProgress > stall) {
            loseStream("its reader took nothing for " +
                       std::to_string(std::chrono::duration_cast<std::chrono::seconds>(stall).count()) + " s");
            return false;
        }
        pollfd p{m_fd, POLLOUT, 0};
        (void)::poll(&p, 1, 50);
        const std::size_t before = m_queue.size() - m_sent;
        if (!writeSome()) {
            return false;
        }
        if (m_queue.size() - m_sent < before) {
            lastProgress = Clock::now();
        }
    }
    return true;
}

bool EventSink::write(std::string_view line)
{
    const std::lock_guard lock(m_mutex);
    if (!m_lost.empty()) {
        return false;
    }
    m_queue.append(line);
    m_queue.push_back('\n');
    return writeSome() && waitUntilQueued(m_capacity, true, m_stall);
}

void EventSink::drain()
{
    const std::lock_guard lock(m_mutex);
    if (!m_lost.empty() || !writeSome()) {
        return;
    }
    // Once stopped, a second is enough for a reader that reads; one that does not is not waited for.
    const auto stall = m_stop.stop_requested() ? std::min(m_stall, std::chrono::milliseconds(1000)) : m_stall;
    (void)waitUntilQueued(0, false, stall);
}

EventStream::EventStream(engine::RunObserver& inner, EventSink& out, std::string dbPath)
    : m_inner(inner), m_out(out), m_dbPath(std::move(dbPath))
{
}

void EventStream::emit(const nlohmann::json& event)
{
    if (m_broken.load()) {
        return;
    }
    if (!m_out.write(event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))) {
        if (!m_broken.exchange(true) && m_onBroken) {
            m_onBroken(m_out.lostReason());
        }
    }
}

Result<void> EventStream::runStarted(const engine::RunStart& start)
{
    auto r = m_inner.runStarted(start);
    if (!r) {
        return r;
    }
    m_layout = start.layout;
    nlohmann::json variants = nlohmann::json::array();
    for (std::size_t v = 0; v < start.spec.variants.size(); ++v) {
        variants.push_back({{"name", start.spec.variants[v].name},
                            {"params", v < start.variantParams.size() ? start.variantParams[v] : nlohmann::json()}});
    }
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& m : start.layout.metrics) {
        metrics.push_back(
            {{"name", m.name}, {"unit", m.unit}, {"higher_is_better", m.higherIsBetter}, {"alias_of", m.aliasOf}});
    }
    emit(
        {{"event", "run_started"},
         {"schema_version", kEventsSchemaVersion},
         {"run", runId()},
         {"db", m_dbPath},
         {"spec", engine::toJson(start.spec)},
         {"variants", std::move(variants)},
         {"quantities", start.layout.quantities},
         {"metrics", std::move(metrics)},
         {"not_measured", engine::RunEnvironment::fromJson(start.environment).notMeasuredLines()},
         {"simulated_counters", start.spec.pmu.simulated ? nlohmann::json(engine::simulatedCountersNote(start.spec.pmu))
                                                         : nlohmann::json(nullptr)}});
    return {};
}

Result<void> EventStream::repetitionFinished(const engine::RepetitionResult& rep)
{
    auto r = m_inner.repetitionFinished(rep);
    if (!r) {
        return r;
    }
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& s : rep.samples) {
        samples.push_back(sampleJson(s, m_layout));
    }
    emit({{"event", "samples"}, {"run", runId()}, {"repetition", rep.index}, {"samples", std::move(samples)}});
    emit({{"event", "repetition_done"},
          {"run", runId()},
          {"repetition", rep.index},
          {"variants", rep.variants},
          {"start", rep.start},
          {"end", rep.end}});
    return {};
}

void EventStream::samplesMeasured(int repetition, const std::vector<engine::Sample>& samples)
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& s : samples) {
        list.push_back(sampleJson(s, m_layout));
    }
    emit({{"event", "partial_samples"}, {"run", runId()}, {"repetition", repetition}, {"samples", std::move(list)}});
}

void EventStream::watchLook(const engine::WatchLook& look)
{
    emit({{"event", "look"},
          {"run", runId()},
          {"provisional", true},
          {"units", look.units},
          {"elapsed", number(look.elapsed)},
          {"estimate_pct", number(look.estimatePct)},
          {"low_pct", number(look.lowPct)},
          {"high_pct", number(look.highPct)},
          {"margin_pct", number(look.marginPct)},
          {"detectable_pct", number(look.detectablePct)},
          {"seconds_to_decision", number(look.secondsToDecision)},
          {"seconds_left", number(look.secondsLeft)},
          {"decision", look.decision}});
}

void EventStream::warning(std::string_view text)
{
    m_inner.warning(text);
    emit({{"event", "warning"}, {"run", runId()}, {"message", std::string(text)}});
}

void EventStream::progress(int done, int total, double secondsLeft)
{
    m_inner.progress(done, total, secondsLeft);
    emit({{"event", "progress"},
          {"run", runId()},
          {"done", done},
          {"total", total},
          {"seconds_left", number(secondsLeft)}});
}

void EventStream::runFinished(engine::RunStatus status, std::string_view reason)
{
    m_inner.runFinished(status, reason);
    m_finishedSent = true;
    emit({{"event", "finished"},
          {"run", runId()},
          {"status", std::string(engine::toString(status))},
          {"reason", std::string(reason)}});
}

void EventStream::error(const std::string& message, int exitStatus)
{
    if (m_finishedSent) {
        return;
    }
    emit({{"event", "error"}, {"run", runId()}, {"message", message}, {"exit_status", exitStatus}});
}

}  // namespace nf::cli
