// The numbers of xdpsock and xdp-bench output (internal to engine/import: xdpsock_import.cpp and
// xdp_bench_import.cpp): tokens are read first and converted once the file's number style is known.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/import/import_format.h"

namespace nf::engine::xdp {

struct Raw {
    std::string text;
    std::size_t line = 0;
    NumberKind kind = NumberKind::Integer;
};

// Raw tokens read first, converted once the file's number style is known.
class RawNumbers {
public:
    std::size_t add(std::string_view text, std::size_t line, NumberKind kind)
    {
        m_raw.push_back({std::string(text), line, kind});
        m_vote.see(text, line, kind);
        return m_raw.size() - 1;
    }
    Result<NumberStyle> convert(const ImportSource& src)
    {
        auto style = m_vote.decide(src);
        if (!style) {
            return style.error();
        }
        for (const auto& r : m_raw) {
            NumberStyle s = *style;
            if (r.kind == NumberKind::Decimal) {
                s.group = 0;
            }
            auto v = parseStyled(r.text, s);
            if (!v) {
                return importError(src, r.line, "'" + r.text + "' is not a number in the file's " + style->name());
            }
            m_values.push_back(*v);
        }
        return *style;
    }
    double operator[](std::size_t i) const { return m_values.at(i); }

private:
    std::vector<Raw> m_raw;
    std::vector<double> m_values;
    NumberStyleVote m_vote;
};

inline bool numeric(std::string_view w)
{
    return !w.empty() && std::isdigit(static_cast<unsigned char>(w.front())) != 0 &&
           w.find_first_not_of("0123456789.,'") == std::string_view::npos;
}

}  // namespace nf::engine::xdp
