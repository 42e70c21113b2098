#pragma once
// Per-CPU receive work of the kernel's network stack, from /proc/net/softnet_stat: packets the
// CPU's backlog processed, dropped (backlog full) and how often net_rx_action ran out of budget or
// time (time_squeeze). Live tests keep them per counted CPU, so the CPU that did the receive work
// (NAPI, softirq) is told apart from the application's.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nf::probes {

struct SoftnetCpu {
    int cpu = -1;
    std::uint64_t processed = 0;
    std::uint64_t dropped = 0;
    std::uint64_t squeezed = 0;
};

// Parses the file's text: one line per online CPU, hexadecimal columns; the CPU is column 13 where
// the kernel prints it (5.10 and later), else the line's position among `online`.
std::vector<SoftnetCpu> parseSoftnet(const std::string& text, const std::vector<int>& online);

// Reads /proc/net/softnet_stat (of the calling thread's network namespace; the counters are per
// CPU, not per namespace). Empty when it cannot be read.
std::vector<SoftnetCpu> readSoftnet(const std::vector<int>& online);

}  // namespace nf::probes
