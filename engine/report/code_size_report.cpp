#include "engine/report/code_size_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace nf::engine {

namespace {

// Python's "%-40s": padded to 40 characters, which for a UTF-8 name are its code points.
std::string leftPadded(const std::string& text, std::size_t width)
{
    const auto points = static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
    return text + std::string(points < width ? width - points : 0, ' ');
}

std::string sizeOrDash(const std::optional<std::int64_t>& bytes)
{
    return bytes ? std::to_string(*bytes) : "-";
}

// print_result(): the summary line, the header, the rows, the total.
void writeSection(const CodeSizeSection& s, const std::vector<std::string>& functions, std::string& out)
{
    out += fmt::format("add/remove: {}/{} grow/shrink: {}/{} up/down: {}/{} ({})\n", s.added, s.removed, s.grown,
                       s.shrunk, s.up, -s.down, s.net());
    out += fmt::format("{} {:>7} {:>7} {:>7}\n", leftPadded(s.title, 40), "old", "new", "delta");
    for (const auto& r : s.rows) {
        if (functions.empty() || namedBy(r.name, functions)) {
            out += fmt::format("{} {:>7} {:>7} {:+7}\n", leftPadded(r.name, 40), sizeOrDash(r.oldBytes),
                               sizeOrDash(r.newBytes), r.delta());
        }
    }
    if (s.before && s.after) {
        // `percent = (ntot - otot) * 100.0 / otot` when otot, else 0; "%+.2f%%".
        const double percent =
            *s.before != 0 ? static_cast<double>(*s.after - *s.before) * 100.0 / static_cast<double>(*s.before) : 0.0;
        out += fmt::format("Total: Before={}, After={}, chg {:+.2f}%\n", *s.before, *s.after, percent);
    }
}

std::string fileName(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

nlohmann::json optionalBytes(const std::optional<std::int64_t>& bytes)
{
    return bytes ? nlohmann::json(*bytes) : nlohmann::json(nullptr);
}

// The figures of a section (or of the sections summed) as JSON.
nlohmann::json figures(const CodeSizeSection& s)
{
    nlohmann::json change = nullptr;
    if (s.before && s.after && *s.before != 0) {
        change = static_cast<double>(*s.after - *s.before) * 100.0 / static_cast<double>(*s.before);
    }
    return {{"add", s.added},
            {"remove", s.removed},
            {"grow", s.grown},
            {"shrink", s.shrunk},
            {"up", s.up},
            {"down", s.down},
            {"net", s.net()},
            {"before", optionalBytes(s.before)},
            {"after", optionalBytes(s.after)},
            {"change_pct", change}};
}

}  // namespace

bool namedBy(const std::string& name, const std::vector<std::string>& functions)
{
    return std::any_of(functions.begin(), functions.end(), [&](const std::string& f) {
        return name == f || (name.size() > f.size() && name.compare(0, f.size(), f) == 0 && name[f.size()] == '.');
    });
}

std::string bloatOMeterText(const CodeSizeDiff& diff, const std::vector<std::string>& functions)
{
    std::string out;
    for (const auto& s : diff.sections) {
        writeSection(s, functions, out);
    }
    return out;
}

std::string codeSizeSummary(const CodeSizeDiff& diff)
{
    const auto all = combined(diff);
    std::string text = fmt::format("add/remove {}/{} grow/shrink {}/{} up/down +{}/-{} ({:+} bytes)", all.added,
                                   all.removed, all.grown, all.shrunk, all.up, all.down, all.net());
    const auto largest = std::max_element(all.rows.begin(), all.rows.end(), [](const auto& a, const auto& b) {
        return std::llabs(a.delta()) < std::llabs(b.delta());  // the first of equals, in the script's order
    });
    if (largest != all.rows.end()) {
        text += fmt::format("; largest: {} {:+}", largest->name, largest->delta());
    }
    return text;
}

std::string codeSizeOrigin(const CodeSizeRecord& record)
{
    if (!record.imported.empty()) {
        return "bloat-o-meter output " + fileName(record.imported);
    }
    return fileName(record.newFile) + " against " + fileName(record.oldFile);
}

std::string codeSizeLine(const CodeSizeRecord& record, const std::string& name)
{
    return "code size (" + name + ", " + codeSizeOrigin(record) + "): " + codeSizeSummary(record.diff);
}

namespace {

// Text as JSON can hold it: a symbol's name is whatever bytes the ELF file or the pasted output
// held, and a byte that is not UTF-8 becomes U+FFFD rather than an error when the JSON is written.
std::string utf8(const std::string& text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        const std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        bool valid =
            length != 0 && i + length <= text.size() && !(length == 2 && c < 0xc2) && !(length == 4 && c > 0xf4);
        for (std::size_t k = 1; valid && k < length; ++k) {
            valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
        }
        if (valid && length == 3) {  // no overlong forms, no surrogates
            const auto c1 = static_cast<unsigned char>(text[i + 1]);
            valid = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);
        }
        if (valid && length == 4) {
            const auto c1 = static_cast<unsigned char>(text[i + 1]);
            valid = !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
        }
        if (valid) {
            out.append(text, i, length);
            i += length;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

}  // namespace

nlohmann::json codeSizeJson(const CodeSizeRecord& record, const std::vector<std::string>& functions)
{
    nlohmann::json sections = nlohmann::json::array();
    for (const auto& s : record.diff.sections) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& r : s.rows) {
            if (functions.empty() || namedBy(r.name, functions)) {
                rows.push_back({{"name", utf8(r.name)},
                                {"old", optionalBytes(r.oldBytes)},
                                {"new", optionalBytes(r.newBytes)},
                                {"delta", r.delta()}});
            }
        }
        auto j = figures(s);
        j["title"] = utf8(s.title);
        j["rows"] = std::move(rows);
        sections.push_back(std::move(j));
    }
    auto j = figures(combined(record.diff));
    j["label"] = utf8(record.label);
    j["created_at"] = record.createdAt;
    j["old_file"] = utf8(record.oldFile);
    j["new_file"] = utf8(record.newFile);
    j["imported"] = utf8(record.imported);
    j["sections"] = std::move(sections);
    return j;
}

void addCodeSizes(ComparisonReport& report, std::vector<CodeSizeRecord> records)
{
    // The header opens with the same lines in both (simulated counters, the models), then the
    // kernels line; the compact header has the kernels line only when the kernels differ.
    auto& ctx = report.context;
    const auto kernels = std::find_if(ctx.header.begin(), ctx.header.end(),
                                      [](const std::string& h) { return h.rfind("kernels:", 0) == 0; });
    const auto at = static_cast<std::size_t>(kernels - ctx.header.begin());
    const std::size_t under = kernels == ctx.header.end() ? ctx.header.size() : at + 1;
    std::size_t briefUnder = std::min(at, ctx.briefHeader.size());
    if (briefUnder < ctx.briefHeader.size() && ctx.briefHeader[briefUnder].rfind("kernels:", 0) == 0) {
        ++briefUnder;
    }
    std::vector<std::string> lines;
    lines.reserve(records.size());
    for (const auto& r : records) {
        lines.push_back(codeSizeLine(r, r.label));
    }
    ctx.header.insert(ctx.header.begin() + static_cast<std::ptrdiff_t>(under), lines.begin(), lines.end());
    if (!ctx.briefHeader.empty()) {
        ctx.briefHeader.insert(ctx.briefHeader.begin() + static_cast<std::ptrdiff_t>(briefUnder), lines.begin(),
                               lines.end());
    }
    report.codeSizes = std::move(records);
}

}  // namespace nf::engine
