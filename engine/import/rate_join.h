#pragma once
// A packet rate joined with a perf stat block (`noisefloor import perf-stat FILE --rate RATE`): the
// rate a mail gives beside its counters ("xdpsock rxdrop: 22.8 Mpps"), or the output of the tool
// that measured it in the same run (xdpsock, xdp-bench, sar -n DEV, pktgen). The packets of the
// block's elapsed time (rate x elapsed) become a quantity, and its cycles, instructions, branches
// and branch misses per packet become metrics, named as the live workloads name theirs. The rate
// was measured apart from the counters, and the run says so.

#include <string>
#include <string_view>

#include "base/result.h"
#include "engine/import/import_format.h"

namespace nf::engine {

struct PacketRate {
    double pps = 0;
    double seconds = 0;     // how long the rate was measured; 0 when not said (a figure, xdp-bench)
    double period = 0;      // the longest of the intervals a rate file adds up (0 for one): how closely it can match
    std::string what;       // for notes: "22.8 Mpps (given as 22.8Mpps)", "rx_pps of xdpsock output in r.txt"
    nlohmann::json origin;  // stored with the run: {"figure": ...} or {"file", "tool", "metric", ...}
};

// The forms of a rate figure --rate accepts, for messages: "22.8Mpps, 22.8 Mpps, 850Kpps, ...".
extern const char* const kPacketRateForms;

// A rate as written in a mail: a number (1,234,567 grouping and 1.2e6 exponents allowed), an optional
// k/K, M or G, and an optional pps (any case), packets/s or pkt/s: "22.8Mpps", "22.8 Mpps", "850Kpps",
// "1.2e6pps", "22800000". Anything else (another unit, a negative or zero rate, more than 10 Gpps)
// is an error saying so.
Result<PacketRate> packetRateFigure(std::string_view text);

// The packet rate in a file of another importer's tool: its format detected as `import` detects it,
// then the first of rx_pps, pps, tx_pps and xmit_pps that counted packets, over the whole file.
// Refused: output of a tool that gives no packet rate, and files of several runs.
Result<PacketRate> packetRateOfFile(const ImportSource& src, const ImportOptions& options);

// `counters` (one perf stat run with its elapsed time) with the packets of `rate` in it. Refused: no
// elapsed time, several runs or -r summaries, none of the per-packet counters, and a rate file whose
// length differs from the block's elapsed time by more than 10% or one of its intervals, whichever is
// more (a file of 1 s intervals cannot cover 10.0006 s more closely than to a second).
Result<ImportTable> joinPacketRate(ImportTable counters, const PacketRate& rate);

}  // namespace nf::engine
