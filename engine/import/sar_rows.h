// The rows the sar importer reads, whichever of sar's layouts they came from (internal to
// engine/import: sar_import.cpp reads sar's text, sar_sadf.cpp reads sadf -d and sadf -j).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "engine/import/import_format.h"

namespace nf::engine::sar {

struct SarRow {
    std::string iface;
    std::string when;    // as printed: "13:20:29", "Average", "2019-04-18 13:20:29 UTC"
    double seconds = 0;  // the interval it covers; 0 for Average rows
    bool average = false;
    int averageBlock = 0;  // 1 for the first Average block of the section kind, 2 for the second...
    bool afterRestart = false;
    std::map<std::string, std::string> raw;  // by column name, as printed
    std::map<std::string, double> values;
    std::size_t line = 0;
};

struct SarFile {
    std::vector<SarRow> dev;    // rxpck/s, txpck/s, ...
    std::vector<SarRow> edev;   // rxerr/s, rxdrop/s, ...
    std::size_t otherRows = 0;  // other activities (-d, -u ...): counted, not read
    std::size_t restarts = 0;
    std::string kernel;
    std::string host;
    std::string layout;  // "sar", "sar (Average only)", "sadf -d", "sadf -j"
};

// sadf -d: the rows with their raw (unconverted) values; convert() then reads them.
Result<SarFile> parseSadfD(const ImportSource& src);
// sadf -j: the rows with their values; every value read is also entered in `table`.
Result<SarFile> parseSadfJ(const ImportSource& src, ImportTable& table);
// Converts every raw value in the style the file shows (sar prints two decimals, no grouping).
Result<void> convert(const ImportSource& src, SarFile& file);

}  // namespace nf::engine::sar
