#pragma once
// Every workload, once: X(function, "name", Kind), in the order `noisefloor workloads` lists them.
// Both halves of a workload are expanded from this list, by name of their function:
// - its description, `WorkloadDescriptor catalog::function()` in engine/catalog/FILE.cpp (what the
//   GUI and the spec check read without measuring), expanded by workload_catalog.cpp;
// - for a measured kind (InProcess, Live), its measuring implementation,
//   `WorkloadImplementation workloads::implementation::function()` in engine/workloads/FILE.cpp,
//   expanded by engine/workloads/registry.cpp. An External workload (command) is run by
//   engine/run/command_experiment and has none.
// FILE is the function's name in snake_case (indirectCall: indirect_call.cpp). CMake reads this list
// for the sources of nf_catalog and nf_workloads (workload_list.cmake), so a workload listed here
// with a half missing does not build (no such source, or an undefined function), and a file not
// listed here is not compiled. The name and the kind are the list's: the descriptor and the
// implementation are given them here.

// clang-format off
#define NF_WORKLOADS(X)                          \
    X(spin,         "spin",          InProcess)  \
    X(indirectCall, "indirect-call", InProcess)  \
    X(pagePool,     "page-pool",     InProcess)  \
    X(pageFrag,     "page-frag",     InProcess)  \
    X(udpRx,        "udp-rx",        Live)       \
    X(xdpRx,        "xdp-rx",        Live)       \
    X(ifaceRx,      "iface-rx",      Live)       \
    X(command,      "command",       External)
// clang-format on
