#include "data/import_blocks.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <tuple>

namespace nf::data {

namespace {

// The canonical bytes of a block: numbers as 8 little-endian bytes (doubles by their bits, so that
// the last bit of a value, a NaN or -0 counts), strings and lists preceded by their length, so that
// no two contents write the same bytes.
class Canonical {
public:
    void number(std::uint64_t value)
    {
        for (int i = 0; i < 8; ++i) {
            m_bytes.push_back(static_cast<unsigned char>(value >> (8 * i)));
        }
    }
    void number(std::int64_t value) { number(static_cast<std::uint64_t>(value)); }
    void number(int value) { number(static_cast<std::int64_t>(value)); }
    void number(double value) { number(std::bit_cast<std::uint64_t>(value)); }
    void text(const std::string& value)
    {
        number(static_cast<std::uint64_t>(value.size()));
        m_bytes.insert(m_bytes.end(), value.begin(), value.end());
    }

    std::string hash() const
    {
        XXH128_canonical_t canonical;
        XXH128_canonicalFromHash(&canonical, XXH3_128bits(m_bytes.data(), m_bytes.size()));
        static constexpr char kDigits[] = "0123456789abcdef";
        std::string hex;
        for (const unsigned char byte : canonical.digest) {
            hex += kDigits[byte >> 4];
            hex += kDigits[byte & 15];
        }
        return hex;
    }

private:
    std::vector<unsigned char> m_bytes;
};

// The version of the serialisation: a change to what enters the hash changes it, so that hashes of
// two layouts never meet.
constexpr const char* kLayout = "noisefloor import block 1";

void writeSamples(Canonical& out, const engine::RepetitionResult& rep)
{
    out.number(static_cast<std::uint64_t>(rep.samples.size()));
    for (const auto& s : rep.samples) {
        out.number(s.duration);
        out.number(static_cast<std::uint64_t>(s.values.size()));
        for (const double v : s.values) {
            out.number(v);
        }
    }
}

// Its summaries by quantity name: the order the importer listed them in is not content.
void writeSummaries(Canonical& out, std::vector<const engine::SummaryStat*> summaries)
{
    std::ranges::sort(summaries, {}, [](const engine::SummaryStat* s) { return s->quantity; });
    out.number(static_cast<std::uint64_t>(summaries.size()));
    for (const auto* s : summaries) {
        out.text(s->quantity);
        out.number(s->n);
        out.number(s->mean);
        out.number(s->se);
    }
}

// The repetition's profile with symbols by name, in a sorted order: an importer's order of symbols
// and stacks is not content either.
void writeProfile(Canonical& out, const std::string& event, const engine::RepetitionProfile* p)
{
    if (p == nullptr) {
        out.number(std::uint64_t{0});
        return;
    }
    out.number(std::uint64_t{1});
    out.text(event);
    out.number(p->outside);
    out.number(p->lost);
    std::vector<std::tuple<int, int, int>> chunks;
    for (const auto& c : p->chunks) {
        chunks.emplace_back(c.index, c.cpu, c.samples);
    }
    std::ranges::sort(chunks);
    out.number(static_cast<std::uint64_t>(chunks.size()));
    for (const auto& [index, cpu, samples] : chunks) {
        out.number(index);
        out.number(cpu);
        out.number(samples);
    }
    std::vector<std::tuple<int, int, std::string, int>> counts;
    for (const auto& c : p->counts) {
        const bool named = c.symbol >= 0 && static_cast<std::size_t>(c.symbol) < p->symbols.size();
        counts.emplace_back(c.index, c.cpu, named ? p->symbols[static_cast<std::size_t>(c.symbol)] : "", c.samples);
    }
    std::ranges::sort(counts);
    out.number(static_cast<std::uint64_t>(counts.size()));
    for (const auto& [index, cpu, symbol, samples] : counts) {
        out.number(index);
        out.number(cpu);
        out.text(symbol);
        out.number(samples);
    }
    std::vector<std::tuple<int, std::string, int>> stacks;
    for (const auto& s : p->stacks) {
        stacks.emplace_back(s.cpu, s.stack, s.samples);
    }
    std::ranges::sort(stacks);
    out.number(static_cast<std::uint64_t>(stacks.size()));
    for (const auto& [cpu, stack, samples] : stacks) {
        out.number(cpu);
        out.text(stack);
        out.number(samples);
    }
}

}  // namespace

std::vector<std::string> importBlockHashes(const engine::RunStart& start,
                                           const std::vector<engine::RepetitionResult>& repetitions,
                                           const std::vector<engine::SummaryStat>& summaries,
                                           const engine::ProfileRecording* profile)
{
    std::map<int, std::vector<const engine::SummaryStat*>> summariesOf;
    for (const auto& s : summaries) {
        summariesOf[s.repetition].push_back(&s);
    }
    std::map<int, const engine::RepetitionProfile*> profileOf;
    if (profile != nullptr) {
        for (const auto& p : profile->repetitions) {
            profileOf[p.repetition] = &p;
        }
    }
    std::vector<std::string> hashes;
    hashes.reserve(repetitions.size());
    for (const auto& rep : repetitions) {
        Canonical out;
        out.text(kLayout);
        out.text(start.spec.workload);
        out.number(static_cast<std::uint64_t>(start.layout.quantities.size()));
        for (const auto& q : start.layout.quantities) {
            out.text(q);
        }
        writeSamples(out, rep);
        const auto s = summariesOf.find(rep.index);
        writeSummaries(out, s != summariesOf.end() ? s->second : std::vector<const engine::SummaryStat*>{});
        const auto p = profileOf.find(rep.index);
        writeProfile(out, profile != nullptr ? profile->summary.event : "", p != profileOf.end() ? p->second : nullptr);
        hashes.push_back(out.hash());
    }
    return hashes;
}

Result<std::vector<CheckedBlock>> checkImportBlocks(Database& db, const std::vector<std::string>& hashes)
{
    auto stored =
        NF_TRY(db.prepare("SELECT b.run_id, CAST(r.label AS TEXT), b.repetition FROM import_blocks b "
                          "JOIN runs r ON r.id = b.run_id WHERE b.hash = ?1 ORDER BY b.run_id, b.repetition"));
    std::map<std::string, int> first;
    std::vector<CheckedBlock> blocks;
    blocks.reserve(hashes.size());
    for (const auto& hash : hashes) {
        CheckedBlock& block = blocks.emplace_back();
        block.hash = hash;
        for (const auto& [run, label, repetition] :
             NF_TRY(stored.bind(1, hash).readAll<std::int64_t, std::string, int>())) {
            block.storedIn.push_back({run, label, repetition});
        }
        const auto [at, fresh] = first.try_emplace(hash, static_cast<int>(blocks.size()) - 1);
        block.earlier = fresh ? -1 : at->second;
    }
    return blocks;
}

Result<void> writeImportBlocks(Database& db, std::int64_t run, const std::vector<engine::RepetitionResult>& repetitions,
                               const std::vector<std::string>& hashes)
{
    auto insert = NF_TRY(db.prepare("INSERT INTO import_blocks (run_id, repetition, hash) VALUES (?1, ?2, ?3)"));
    for (std::size_t i = 0; i < hashes.size() && i < repetitions.size(); ++i) {
        NF_TRY(insert.bindAll(run, std::int64_t{repetitions[i].index}, hashes[i]).run());
    }
    return {};
}

namespace {

std::string noun(bool summaries, std::size_t n)
{
    if (summaries) {
        return n == 1 ? "summary" : "summaries";
    }
    return n == 1 ? "repetition" : "repetitions";
}

BlockOrigin originOf(const std::vector<BlockOrigin>& origins, std::size_t block)
{
    return block < origins.size() ? origins[block] : BlockOrigin{"the import", static_cast<int>(block) + 1};
}

// "a", "a and b", "a, b and c".
std::string listed(const std::vector<std::string>& items)
{
    std::string text;
    for (std::size_t i = 0; i < items.size(); ++i) {
        text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    }
    return text;
}

// The runs holding these blocks: "run 3 'vanilla'", "runs 3 'vanilla' and 4 'patched'", "runs 3
// 'a', 4 'b', 5 'c' and 2 more"; "" when none does.
std::string runsText(const std::vector<CheckedBlock>& blocks)
{
    std::map<std::int64_t, std::string> runs;
    for (const auto& b : blocks) {
        for (const auto& s : b.storedIn) {
            runs.emplace(s.run, s.label);
        }
    }
    constexpr std::size_t kNamed = 3;
    std::vector<std::string> named;
    for (const auto& [run, label] : runs) {
        if (named.size() == kNamed && runs.size() > kNamed + 1) {
            named.push_back(std::to_string(runs.size() - kNamed) + " more");
            break;
        }
        named.push_back(std::to_string(run) + " '" + label + "'");
    }
    return runs.empty() ? "" : (runs.size() == 1 ? "run " : "runs ") + listed(named);
}

// Where blocks were read: "repetitions 1-3, 5 of a.txt and 2 of b.txt". A file's places are grouped
// while they rise; a file given twice is named twice.
std::string placesText(const std::vector<std::size_t>& blocks, const std::vector<BlockOrigin>& origins, bool summaries)
{
    struct Group {
        std::string file;
        std::vector<int> positions;
    };
    std::vector<Group> groups;
    for (const auto block : blocks) {
        const auto origin = originOf(origins, block);
        if (groups.empty() || groups.back().file != origin.file || groups.back().positions.back() >= origin.position) {
            groups.push_back({origin.file, {}});
        }
        groups.back().positions.push_back(origin.position);
    }
    std::vector<std::string> parts;
    for (const auto& g : groups) {
        const auto& p = g.positions;
        std::string ranges;
        for (std::size_t a = 0; a < p.size();) {
            std::size_t b = a;
            while (b + 1 < p.size() && p[b + 1] == p[b] + 1) {
                ++b;
            }
            ranges += (ranges.empty() ? "" : ", ") + std::to_string(p[a]) + (b > a ? "-" + std::to_string(p[b]) : "");
            a = b + 1;
        }
        parts.push_back(ranges + " of " + g.file);
    }
    return noun(summaries, blocks.size()) + " " + listed(parts);
}

}  // namespace

std::string duplicateBlocksText(const std::vector<CheckedBlock>& blocks, const std::vector<BlockOrigin>& origins,
                                bool summaries)
{
    std::vector<CheckedBlock> duplicates;
    std::vector<std::size_t> places;
    bool onlyEarlier = false;  // a block found earlier in this import, and in no stored run
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (blocks[i].duplicate()) {
            duplicates.push_back(blocks[i]);
            places.push_back(i);
            onlyEarlier = onlyEarlier || blocks[i].storedIn.empty();
        }
    }
    if (duplicates.empty()) {
        return "";
    }
    const std::string runs = runsText(duplicates);
    const std::string where =
        runs.empty() ? "given earlier in this import"
                     : "already stored (" + runs + ")" + (onlyEarlier ? " or given earlier in this import" : "");
    return std::to_string(duplicates.size()) + " of " + std::to_string(blocks.size()) + " " +
           noun(summaries, blocks.size()) + " " + where + ": " + placesText(places, origins, summaries);
}

std::string everyBlockStoredText(const std::vector<CheckedBlock>& blocks, const std::vector<BlockOrigin>& origins,
                                 bool summaries)
{
    std::vector<std::string> files;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const auto file = originOf(origins, i).file;
        if (std::ranges::find(files, file) == files.end()) {
            files.push_back(file);
        }
    }
    return "every " + noun(summaries, 1) + " of " + listed(files) + " is already stored (" + runsText(blocks) + ")";
}

}  // namespace nf::data
