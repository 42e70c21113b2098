#pragma once
// Code size between two builds as the kernel's scripts/bloat-o-meter counts it: every sized symbol
// of each file's symbol table, by name, and the names whose size changed. `noisefloor size` makes
// one from two ELF files (the symbols from probes/elf_symbols.h), `noisefloor import bloat-o-meter`
// reads one from the script's output (engine/import/bloat_o_meter.h), and compare and series print
// it beside the performance step of the same label.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nf::engine {

// One symbol as `nm --size-sort` lists it: its name, nm's type letter and its size in bytes.
struct SizedSymbol {
    std::string name;
    char type = '?';
    std::uint64_t bytes = 0;
};

// Bytes per name, as bloat-o-meter's getsizes() gathers them.
using SymbolSizes = std::map<std::string, std::int64_t>;

// The symbols the script's default mode (no -c, -d or -t) counts, by the name it gives them: nm's
// types t, T, d, D, b, B, r and R (code, data, bss and read-only data, local or global; weak
// symbols, W and V, are not counted); none whose name starts with __mod_, __se_sys,
// __se_compat_sys or __addressable_, nor linux_banner or vermagic; every ".NUMBER" cut out of the
// name (page_order.isra.0 is page_order.isra, counter.1 is counter, a .cold or .isra stays); none
// whose name has a ':' (the script skips such lines of nm's output); the sizes of the names that
// are then equal summed.
SymbolSizes bloatSizes(const std::vector<SizedSymbol>& symbols);

// A name as the script keeps it: every "." followed by digits cut out ("foo.constprop.0" is
// "foo.constprop", "weird.5x" is "weirdx").
std::string bloatName(const std::string& name);

struct CodeSizeRow {
    std::string name;
    std::optional<std::int64_t> oldBytes;  // nullopt: added
    std::optional<std::int64_t> newBytes;  // nullopt: removed
    std::int64_t delta() const { return newBytes.value_or(0) - oldBytes.value_or(0); }
};

// One table of the script: its summary line, its rows and its total.
struct CodeSizeSection {
    std::string title = "Function";  // "Function", "Data" or "RO Data" (-c); "function" before 2017
    int added = 0;
    int removed = 0;
    int grown = 0;
    int shrunk = 0;
    std::int64_t up = 0;    // bytes added and grown
    std::int64_t down = 0;  // bytes removed and shrunk, a positive count
    // The total line: every counted symbol's size in each file; nullopt where the output has none
    // (bloat-o-meter before 2016).
    std::optional<std::int64_t> before;
    std::optional<std::int64_t> after;
    // The names whose size changed, as the script sorts them: by delta, largest first, then by name,
    // last first. An imported table may list fewer than the summary counts (cut in a mail).
    std::vector<CodeSizeRow> rows;
    std::int64_t net() const { return up - down; }
};

// What one comparison of two builds gives: one section in the default mode, three with -c.
struct CodeSizeDiff {
    std::vector<CodeSizeSection> sections;
};

// bloat-o-meter's calc() in the default mode: one section titled "Function" (the script's title
// for its default mode, which counts data too), its counts over every name, rows for the names
// whose size changed.
CodeSizeDiff bloatDiff(const SymbolSizes& oldSizes, const SymbolSizes& newSizes);

// The sections summed into one: counts, bytes, and the totals where every section has them; rows
// from every section in the script's order.
CodeSizeSection combined(const CodeSizeDiff& diff);

// A diff as stored under the label of the new build: what it compares and how it was made.
struct CodeSizeRecord {
    std::string label;
    std::string createdAt;  // ISO 8601 UTC
    std::string oldFile;    // noisefloor size: OLD, the baseline build; "" when imported
    std::string newFile;    // noisefloor size: NEW; "" when imported
    std::string imported;   // noisefloor import bloat-o-meter: the file read; "" when measured
    CodeSizeDiff diff;
};

}  // namespace nf::engine
