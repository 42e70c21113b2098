#pragma once
// Plain-text tables for terminals and mail: columns padded to their widest cell, counted in code
// points so that a UTF-8 name lines up.

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace nf::engine {

class TextTable {
public:
    // Columns whose header starts with '>' are right-aligned (the '>' is not printed).
    explicit TextTable(std::vector<std::string> headers);
    void addRow(std::vector<std::string> cells);
    // Spaces after each column but the last (default 2 each).
    void setGaps(std::vector<std::size_t> gaps);
    void write(std::ostream& out, const std::string& indent = "") const;
    std::vector<std::string> lines(const std::string& indent = "") const;

private:
    std::vector<std::string> m_headers;
    std::vector<bool> m_right;
    std::vector<std::size_t> m_gaps;
    std::vector<std::vector<std::string>> m_rows;
};

// The columns `text` takes in a terminal or a mail: its code points (UTF-8), not its bytes.
std::size_t columns(std::string_view text);

// Five significant digits, no exponent for everyday magnitudes: 1234.5, 0.012346, 2.4453e+09.
std::string formatValue(double v);
// "12.3%"
std::string formatPercent(double fraction);

}  // namespace nf::engine
