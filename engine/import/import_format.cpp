#include "engine/import/import_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace nf::engine {

const std::vector<ImportFormat>& importFormats()
{
#define NF_IMPORTER_ENTRY(function, file) importers::function(),
    static const std::vector<ImportFormat> formats = {NF_IMPORTERS(NF_IMPORTER_ENTRY)};
#undef NF_IMPORTER_ENTRY
    return formats;
}

const ImportFormat* findImportFormat(std::string_view name)
{
    const auto& formats = importFormats();
    auto it = std::find_if(formats.begin(), formats.end(), [&](const ImportFormat& f) { return f.name == name; });
    return it == formats.end() ? nullptr : &*it;
}

std::string importToolNames(std::string_view last)
{
    std::vector<std::string> tools;
    for (const auto& f : importFormats()) {
        tools.insert(tools.end(), f.tools.begin(), f.tools.end());
    }
    std::string out;
    for (std::size_t i = 0; i < tools.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == tools.size() ? std::string(last) : ", ") + tools[i];
    }
    return out;
}

namespace {

bool sameLayout(const RunLayout& a, const RunLayout& b)
{
    if (a.quantities != b.quantities || a.metrics.size() != b.metrics.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.metrics.size(); ++i) {
        if (a.metrics[i].name != b.metrics[i].name || a.metrics[i].unit != b.metrics[i].unit) {
            return false;
        }
    }
    return true;
}

std::string metricNames(const RunLayout& layout)
{
    std::string out;
    for (const auto& m : layout.metrics) {
        out += (out.empty() ? "" : ", ") + m.name;
    }
    return out;
}

// The profile of `next` (a later file) after `all`'s: its repetitions numbered on from all's.
Result<void> joinProfile(ImportTable& all, std::optional<ProfileRecording> next, const ImportSource& first,
                         const ImportSource& src)
{
    if (!all.profile || !next) {
        return {};
    }
    if (next->summary.event != all.profile->summary.event) {
        return importError(src, 0,
                           "its samples are of " + next->summary.event + ", " + first.path + "'s of " +
                               all.profile->summary.event + ": import each event separately");
    }
    const int offset = static_cast<int>(all.repetitions.size());
    for (auto& rep : next->repetitions) {
        rep.repetition += offset;
        for (auto& c : rep.chunks) {
            c.repetition += offset;
        }
        for (auto& c : rep.counts) {
            c.repetition += offset;
        }
        for (auto& s : rep.stacks) {
            s.repetition += offset;
        }
        all.profile->repetitions.push_back(std::move(rep));
    }
    auto& summary = all.profile->summary;
    summary.samples += next->summary.samples;
    summary.outside += next->summary.outside;
    summary.lost += next->summary.lost;
    return {};
}

}  // namespace

Result<ImportTable> parseImportFiles(const ImportFormat& format, const std::vector<ImportSource>& files,
                                     const ImportOptions& options)
{
    ImportTable all;
    for (std::size_t i = 0; i < files.size(); ++i) {
        auto table = NF_TRY(format.parse(files[i], options));
        if (all.repetitions.size() + table.repetitions.size() > kMaxImportRepetitions) {
            return importError(
                files[i], 0,
                "more than " + std::to_string(kMaxImportRepetitions) + " runs in one import: import them in parts");
        }
        if (i == 0) {
            all = std::move(table);
            all.fileRepetitions = {all.repetitions.size()};
            continue;
        }
        if (!sameLayout(all.layout, table.layout)) {
            return importError(files[i], 0,
                               "its metrics (" + metricNames(table.layout) + ") differ from those of " + files[0].path +
                                   " (" + metricNames(all.layout) + "): import them separately");
        }
        if ((!table.host.empty() && !all.host.empty() && table.host != all.host) ||
            (!table.kernel.empty() && !all.kernel.empty() && table.kernel != all.kernel)) {
            return importError(files[i], 0,
                               "it was recorded on " + table.host + " " + table.kernel + ", " + files[0].path + " on " +
                                   all.host + " " + all.kernel + ": import each machine or kernel separately");
        }
        if (all.summarised() != table.summarised()) {
            return importError(files[i], 0,
                               std::string(table.summarised() ? "it holds perf stat -r summaries, "
                                                              : "it holds single measurements, ") +
                                   files[0].path + (all.summarised() ? " summaries" : " single measurements") +
                                   ": import them separately");
        }
        if (table.tool != all.tool) {
            return importError(files[i], 0,
                               "it is output of " + (table.tool.empty() ? "an unnamed mode" : table.tool) + ", " +
                                   files[0].path + " of " + (all.tool.empty() ? "an unnamed mode" : all.tool) +
                                   ": import each mode separately");
        }
        NF_TRY(joinProfile(all, std::move(table.profile), files[0], files[i]));
        all.fileRepetitions.push_back(table.repetitions.size());
        for (auto& rep : table.repetitions) {
            all.repetitions.push_back(std::move(rep));
        }
        for (auto& s : table.summaries) {
            all.summaries.push_back(std::move(s));
        }
        for (auto& r : table.readings) {
            all.readings.push_back(std::move(r));
        }
        if (all.toolVersion.empty()) {
            all.toolVersion = table.toolVersion;
        }
        for (auto& note : table.notes) {
            if (std::find(all.notes.begin(), all.notes.end(), note) == all.notes.end()) {
                all.notes.push_back(std::move(note));
            }
        }
        all.host = all.host.empty() ? table.host : all.host;
        all.kernel = all.kernel.empty() ? table.kernel : all.kernel;
    }
    return all;
}

void ImportTable::read(std::string key, double value)
{
    if (readings.size() < kMaxReadings) {
        readings.push_back({std::move(key), value});
    }
}

Result<const ImportFormat*> detectImportFormat(const ImportSource& src)
{
    if (src.text.empty()) {
        return importError(src, 0, "the file is empty");
    }
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not the text output of a tool");
    }
    std::vector<const ImportFormat*> found;
    int best = detection::kNotIt;
    for (const auto& format : importFormats()) {
        const int score = format.detect(src.text);
        if (score > best) {
            found.clear();
            best = score;
        }
        if (score == best && score > detection::kNotIt) {
            found.push_back(&format);
        }
    }
    if (found.empty()) {
        return importError(src, 0,
                           "not output of " + importToolNames() +
                               " that noisefloor recognises (name the tool: noisefloor import TOOL FILE)");
    }
    if (found.size() > 1) {
        std::string names;
        for (const auto* f : found) {
            names += (names.empty() ? "" : " and ") + f->name;
        }
        return importError(src, 0,
                           "it looks like output of both " + names + ": name the tool (noisefloor import " +
                               found.front()->name + " FILE)");
    }
    return found.front();
}

std::string NumberStyle::name() const
{
    if (decimal == ',') {
        return "de_DE/da_DK style (1.234,5)";
    }
    return group == ',' ? "C/en_US style (1,234.5)" : "C style (1234.5)";
}

namespace {

// Digits per group before the decimal mark, grouped in thousands (1,234,567) or, as Indian English
// locales print them, by lakh and crore (1,88,28,546: the last group of three, those before it of two).
bool validGroups(const std::vector<std::size_t>& groups)
{
    if (groups.size() < 2) {
        return true;
    }
    const auto middle = [&](std::size_t width) {
        return std::all_of(groups.begin() + 1, groups.end() - 1, [&](std::size_t g) { return g == width; });
    };
    if (groups.back() != 3 || groups.front() == 0) {
        return false;
    }
    return (groups.front() <= 3 && middle(3)) || (groups.size() > 2 && groups.front() <= 2 && middle(2));
}

}  // namespace

std::optional<double> parseStyled(std::string_view text, NumberStyle style)
{
    std::string plain;
    plain.reserve(text.size());
    std::vector<std::size_t> groups{0};
    bool decimal = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == style.decimal && !decimal) {
            decimal = true;
            plain += '.';
        } else if (style.group != 0 && c == style.group && !decimal) {
            groups.push_back(0);
        } else if ((c >= '0' && c <= '9') || ((c == '-' || c == '+') && i == 0) || ((c == 'e' || c == 'E') && i > 0)) {
            plain += c;
            if (!decimal && c >= '0' && c <= '9') {
                ++groups.back();
            }
        } else {
            return std::nullopt;
        }
    }
    if (!validGroups(groups)) {
        return std::nullopt;
    }
    return parseNumber(plain);
}

void NumberStyleVote::see(std::string_view token, std::size_t line, NumberKind kind)
{
    const auto dots = std::count(token.begin(), token.end(), '.');
    const auto commas = std::count(token.begin(), token.end(), ',');
    if (dots + commas == 0) {
        return;
    }
    auto vote = [&](bool commaDecimal) {
        auto& at = commaDecimal ? m_commaDecimal : m_dotDecimal;
        if (at == 0) {
            at = line;
            (commaDecimal ? m_commaText : m_dotText) = std::string(token);
        }
    };
    if (dots > 0 && commas > 0) {
        vote(token.rfind(',') > token.rfind('.'));  // the last mark is the decimal one
        return;
    }
    const char mark = dots > 0 ? '.' : ',';
    const bool comma = mark == ',';
    if (dots > 1 || commas > 1) {
        vote(!comma);  // repeated: a thousands separator
        return;
    }
    const auto after = token.size() - token.rfind(mark) - 1;
    if (after != 3 || kind == NumberKind::Decimal) {
        vote(comma);  // not followed by a group of three, or in a field the tool never groups: decimal
        return;
    }
    if (kind == NumberKind::Integer) {
        vote(!comma);  // in a field the tool prints without decimals: a thousands separator
        return;
    }
    if (m_ambiguous == 0) {
        m_ambiguous = line;
        m_ambiguousText = std::string(token);
    }
}

Result<NumberStyle> NumberStyleVote::decide(const ImportSource& src) const
{
    if (m_dotDecimal != 0 && m_commaDecimal != 0) {
        const bool commaFirst = m_commaDecimal < m_dotDecimal;
        return importError(src, std::max(m_dotDecimal, m_commaDecimal),
                           "'" + (commaFirst ? m_dotText : m_commaText) +
                               "' is written in another number style than '" + (commaFirst ? m_commaText : m_dotText) +
                               "' (line " + std::to_string(std::min(m_dotDecimal, m_commaDecimal)) +
                               "): outputs of two locales mixed?");
    }
    if (m_commaDecimal != 0) {
        return NumberStyle{',', '.'};
    }
    if (m_dotDecimal != 0) {
        return NumberStyle{'.', ','};
    }
    if (m_ambiguous != 0) {
        return importError(src, m_ambiguous,
                           "'" + m_ambiguousText +
                               "' can be read two ways (a thousands separator or a decimal mark) and no other number "
                               "in the file shows its locale: rerun the tool with LC_ALL=C");
    }
    return NumberStyle{'.', 0};
}

Error importError(const ImportSource& src, std::size_t line, const std::string& what)
{
    return Error{src.path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what};
}

std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        auto line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

bool contains(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

bool containsAll(std::string_view text, std::initializer_list<std::string_view> parts)
{
    return std::all_of(parts.begin(), parts.end(), [&](std::string_view part) { return contains(text, part); });
}

bool containsAny(std::string_view text, std::initializer_list<std::string_view> parts)
{
    return std::any_of(parts.begin(), parts.end(), [&](std::string_view part) { return contains(text, part); });
}

std::vector<std::string_view> splitWords(std::string_view line)
{
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
            ++i;
        }
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
            ++i;
        }
        if (i > start) {
            words.push_back(line.substr(start, i - start));
        }
    }
    return words;
}

std::string_view trim(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return text;
}

std::optional<double> parseNumber(std::string_view text, bool grouped)
{
    std::string digits;
    digits.reserve(text.size());
    for (char c : text) {
        if (grouped && c == ',') {
            continue;
        }
        digits += c;
    }
    if (digits.empty()) {
        return std::nullopt;
    }
    double value = 0;
    const char* end = digits.data() + digits.size();
    auto [ptr, ec] = std::from_chars(digits.data(), end, value);
    if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

std::size_t binaryLine(std::string_view text)
{
    std::size_t line = 1;
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n') {
            ++line;
        } else if (u < 0x20 && c != '\t' && c != '\r') {
            return line;
        }
    }
    return 0;
}

std::string quoteLine(std::string_view line)
{
    line = trim(line);
    std::string out(line.substr(0, 60));
    return "'" + out + (line.size() > 60 ? "...'" : "'");
}

Result<ImportTable> checkedTable(const ImportSource& src, ImportTable table)
{
    for (std::size_t r = 0; r < table.repetitions.size(); ++r) {
        if (table.repetitions[r].empty()) {
            return importError(src, 0, "repetition " + std::to_string(r + 1) + " has no sample");
        }
        for (const auto& sample : table.repetitions[r]) {
            if (!std::isfinite(sample.duration) || sample.duration < 0) {
                return importError(src, 0,
                                   "repetition " + std::to_string(r + 1) + " has an interval of " +
                                       std::to_string(sample.duration) + " s");
            }
            for (std::size_t q = 0; q < sample.values.size(); ++q) {
                if (std::isinf(sample.values[q])) {
                    const auto& name = q < table.layout.quantities.size() ? table.layout.quantities[q] : "a value";
                    return importError(src, 0,
                                       name + " of repetition " + std::to_string(r + 1) + " is too large to use");
                }
            }
        }
    }
    return table;
}

}  // namespace nf::engine
