#pragma once
// Code size between two builds as a person reads it: bloat-o-meter's own table (`noisefloor
// size`), and one line beside the performance step of a label (compare, series, the campaign
// report), with its JSON.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/model/code_size.h"
#include "engine/report/comparison_report.h"

namespace nf::engine {

// The script's output, byte for byte: per section its summary line, the table's header, a row per
// name whose size changed, and the total line (where the diff has one). `functions` not empty
// keeps only their rows (a name, or the name with a suffix the compiler gave it: "page_order"
// keeps page_order.isra and page_order.cold); the summary and total lines are over every name.
std::string bloatOMeterText(const CodeSizeDiff& diff, const std::vector<std::string>& functions = {});

// Whether a row's name is one of `functions`, as bloatOMeterText() keeps rows.
bool namedBy(const std::string& name, const std::vector<std::string>& functions);

// "add/remove 1/0 grow/shrink 2/1 up/down +150/-20 (+130 bytes); largest: page_pool_alloc_pages +6":
// the sections summed, and the row whose size changed most (none when no row did).
std::string codeSizeSummary(const CodeSizeDiff& diff);

// What a record compares: "vmlinux.b against vmlinux.a" (the files' names), or "bloat-o-meter
// output bloat.txt" for an imported one.
std::string codeSizeOrigin(const CodeSizeRecord& record);

// "code size (B, vmlinux.b against vmlinux.a): add/remove ..." with `name` for the label (a step
// of a series names it its own way).
std::string codeSizeLine(const CodeSizeRecord& record, const std::string& name);

// The record as JSON: label, files, the sections' sum (add, remove, grow, shrink, up, down, net,
// before, after) and every section with its rows (old and new null where a side has none);
// `functions` as bloatOMeterText() keeps rows.
nlohmann::json codeSizeJson(const CodeSizeRecord& record, const std::vector<std::string>& functions = {});

// The compared labels' code sizes in a comparison (compare --label): a line each under the kernels
// line of its header (and of the compact header), and "code_size" in its JSON, by label.
void addCodeSizes(ComparisonReport& report, std::vector<CodeSizeRecord> records);

}  // namespace nf::engine
