#pragma once
// Names of what perf sampled, as run --profile names them (probes/symbolizer.h), for the perf
// script and perf report importers: a kernel module's symbol with its module ("veth_xdp_rcv
// [veth]"), an address no symbol covers by its object ("[unknown libc.so.6]", "[unknown kernel]")
// or as "[unknown]".

#include <string>
#include <string_view>

namespace nf::engine {

// perf's object ("[kernel.kallsyms]", "[veth]", "/usr/lib/libc.so.6") as a name: "kernel", "veth",
// "libc.so.6".
std::string perfObjectName(std::string_view dso);

// A frame or row: `symbol` without perf's "+0x1f" offset ("" or "[unknown]" when perf named none)
// in `dso`.
std::string perfSymbolName(std::string_view symbol, std::string_view dso);

}  // namespace nf::engine
