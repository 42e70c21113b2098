#include "engine/model/code_size.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace nf::engine {

namespace {

// The default mode's types: print_result("Function", "tTdDbBrR").
bool counted(char type)
{
    return std::string_view("tTdDbBrR").find(type) != std::string_view::npos;
}

// "strip generated symbols": what getsizes() skips by name, before it cuts the numbers.
bool generated(const std::string& name)
{
    constexpr std::array<std::string_view, 4> prefixes = {"__mod_", "__se_sys", "__se_compat_sys", "__addressable_"};
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&](std::string_view p) { return name.compare(0, p.size(), p) == 0; }) ||
           name == "linux_banner" || name == "vermagic";
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// delta.sort(reverse=True) on (delta, name): the largest delta first, equal deltas by name, last
// first. Python compares names by code point, which is the byte order of their UTF-8.
bool scriptOrder(const CodeSizeRow& a, const CodeSizeRow& b)
{
    if (a.delta() != b.delta()) {
        return a.delta() > b.delta();
    }
    return a.name > b.name;
}

}  // namespace

std::string bloatName(const std::string& name)
{
    // re.sub(r'\.[0-9]+', '', name): each match taken whole, left to right.
    std::string out;
    out.reserve(name.size());
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '.' && i + 1 < name.size() && isDigit(name[i + 1])) {
            ++i;
            while (i + 1 < name.size() && isDigit(name[i + 1])) {
                ++i;
            }
            continue;
        }
        out += name[i];
    }
    return out;
}

SymbolSizes bloatSizes(const std::vector<SizedSymbol>& symbols)
{
    SymbolSizes sizes;
    for (const auto& s : symbols) {
        // `if line.startswith("\n") or ":" in line: continue`, then the type, then the names.
        if (s.name.empty() || s.name.find(':') != std::string::npos || !counted(s.type) || generated(s.name)) {
            continue;
        }
        sizes[bloatName(s.name)] += static_cast<std::int64_t>(s.bytes);
    }
    return sizes;
}

CodeSizeDiff bloatDiff(const SymbolSizes& oldSizes, const SymbolSizes& newSizes)
{
    CodeSizeSection s;
    s.before = 0;
    s.after = 0;
    for (const auto& [name, bytes] : oldSizes) {
        *s.before += bytes;
        const auto now = newSizes.find(name);
        if (now == newSizes.end()) {
            ++s.removed;
            s.down += bytes;
            s.rows.push_back({name, bytes, std::nullopt});
            continue;
        }
        const std::int64_t d = now->second - bytes;
        s.grown += d > 0 ? 1 : 0;
        s.shrunk += d < 0 ? 1 : 0;
        s.up += std::max<std::int64_t>(d, 0);
        s.down += std::max<std::int64_t>(-d, 0);
        if (d != 0) {  // `if d: print(...)`
            s.rows.push_back({name, bytes, now->second});
        }
    }
    for (const auto& [name, bytes] : newSizes) {
        *s.after += bytes;
        if (!oldSizes.contains(name)) {
            ++s.added;
            s.up += bytes;
            s.rows.push_back({name, std::nullopt, bytes});
        }
    }
    std::sort(s.rows.begin(), s.rows.end(), scriptOrder);
    return {{std::move(s)}};
}

CodeSizeSection combined(const CodeSizeDiff& diff)
{
    CodeSizeSection all;
    bool totals = !diff.sections.empty();
    all.before = 0;
    all.after = 0;
    for (const auto& s : diff.sections) {
        all.added += s.added;
        all.removed += s.removed;
        all.grown += s.grown;
        all.shrunk += s.shrunk;
        all.up += s.up;
        all.down += s.down;
        totals = totals && s.before && s.after;
        *all.before += s.before.value_or(0);
        *all.after += s.after.value_or(0);
        all.rows.insert(all.rows.end(), s.rows.begin(), s.rows.end());
    }
    if (!totals) {
        all.before.reset();
        all.after.reset();
    }
    std::stable_sort(all.rows.begin(), all.rows.end(), scriptOrder);
    return all;
}

}  // namespace nf::engine
