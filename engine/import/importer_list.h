#pragma once
// Every importer of `noisefloor import`, once: X(function, file), in the order --help lists them and
// detection names them. `ImportFormat importers::function()`, defined in engine/import/file.cpp, is
// the importer: its name, the tool as people call it, its detection, its parser and the tokens of
// its fuzz dictionary. importFormats() (import_format.cpp) expands this list; CMake reads it
// (importer_list.cmake) for nf_import's sources and for one fuzz target per importer, whose
// dictionary is written from the importer's tokens at build time (tests/fuzz/). The CLI's tool list
// and help, the command workload's extractor= and the GUI's start page all read importFormats().
// A new importer: a line here and its file (docs/architecture.md, "Adding an importer").

// clang-format off
#define NF_IMPORTERS(X)                   \
    X(perfStat,     perf_stat_import)     \
    X(sar,          sar_import)           \
    X(xdpsock,      xdpsock_import)       \
    X(xdpBench,     xdp_bench_import)     \
    X(timeBench,    kernel_log_import)    \
    X(pageFragTest, kernel_log_import)    \
    X(pktgen,       pktgen_import)        \
    X(netperf,      netperf_import)       \
    X(perfScript,   perf_script_import)   \
    X(perfReport,   perf_report_import)
// clang-format on
