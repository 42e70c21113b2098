#include "engine/report/text_table.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace nf::engine {

TextTable::TextTable(std::vector<std::string> headers)
{
    for (auto& h : headers) {
        const bool right = !h.empty() && h.front() == '>';
        m_right.push_back(right);
        m_headers.push_back(right ? h.substr(1) : std::move(h));
    }
}

void TextTable::addRow(std::vector<std::string> cells)
{
    cells.resize(m_headers.size());
    m_rows.push_back(std::move(cells));
}

void TextTable::setGaps(std::vector<std::size_t> gaps)
{
    m_gaps = std::move(gaps);
}

void TextTable::write(std::ostream& out, const std::string& indent) const
{
    for (const auto& line : lines(indent)) {
        out << line << '\n';
    }
}

std::vector<std::string> TextTable::lines(const std::string& indent) const
{
    std::vector<std::string> out;
    std::vector<std::size_t> width(m_headers.size());
    for (std::size_t c = 0; c < m_headers.size(); ++c) {
        width[c] = columns(m_headers[c]);
        for (const auto& row : m_rows) {
            width[c] = std::max(width[c], columns(row[c]));
        }
    }
    auto line = [&](const std::vector<std::string>& cells) {
        std::string text = indent;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(width[c] - columns(cells[c]), ' ');
            text += m_right[c] ? pad + cells[c] : cells[c] + (c + 1 < cells.size() ? pad : "");
            if (c + 1 < cells.size()) {
                text += std::string(c < m_gaps.size() ? m_gaps[c] : 2, ' ');
            }
        }
        while (!text.empty() && text.back() == ' ') {
            text.pop_back();
        }
        out.push_back(std::move(text));
    };
    line(m_headers);
    for (const auto& row : m_rows) {
        line(row);
    }
    return out;
}

std::size_t columns(std::string_view text)
{
    // Every byte but a UTF-8 continuation byte (10xxxxxx) starts a code point.
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string formatValue(double v)
{
    if (!std::isfinite(v)) {
        return "-";
    }
    const double a = std::fabs(v);
    if (a == 0) {
        return "0";
    }
    if (a >= 1e9 || a < 1e-4) {
        return fmt::format("{:.4e}", v);
    }
    const int digits = static_cast<int>(std::floor(std::log10(a))) + 1;
    const int decimals = std::clamp(5 - digits, 0, 8);
    return fmt::format("{:.{}f}", v, decimals);
}

std::string formatPercent(double fraction)
{
    return fmt::format("{:.2f}%", fraction * 100);
}

}  // namespace nf::engine
