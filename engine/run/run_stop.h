#pragma once
// The stop of the run the calling thread works for, for code that waits on the way into a run and
// is reached through a workload's factory, which takes no stop token: the ssh connect of a
// two-host generator waits for its remote's first line and must end at the run's Ctrl-C, not at
// ssh's own timeout. The live worker installs its token for as long as it works for the run
// (RunStop::Scope), as it installs the run's FailureSink; nothing is kept process-wide.

#include <stop_token>

namespace nf::engine {

class RunStop {
public:
    // The token a Scope installed on the calling thread; outside one, a token that never stops.
    static std::stop_token current();

    // Makes `stop` the calling thread's for as long as it lives, then restores the one before.
    class Scope {
    public:
        explicit Scope(std::stop_token stop);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        std::stop_token m_previous;
    };
};

}  // namespace nf::engine
