// One importer of `noisefloor import` (NF_FUZZ_IMPORTER, its function in importer_list.h, e.g.
// perfStat), on any text. A table
// that parses must be a run noisefloor can store and compare: every sample has one value per
// quantity, values are finite or NaN (missing), durations finite and not negative, every metric's
// numerator and denominator are quantities, every summary (perf stat -r) names a quantity with
// n >= 1 and a finite mean and standard error, and importedRun() accepts it. Parsing the same file
// twice must give the same table twice. Detecting the tool never throws, and names the file when
// it fails.

#include <cmath>
#include <cstdint>
#include <string>

#include "engine/import/import_format.h"
#include "engine/import/imported_run.h"
#include "tests/fuzz/fuzz_check.h"

#ifndef NF_FUZZ_IMPORTER
#error "NF_FUZZ_IMPORTER names the importer's function (importer_list.h)"
#endif

namespace {

using namespace nf::engine;

const ImportFormat& importer()
{
    static const ImportFormat format = importers::NF_FUZZ_IMPORTER();
    return format;
}

void checkTable(const ImportTable& table, const std::string& text)
{
    const auto& layout = table.layout;
    NF_FUZZ_CHECK(!layout.metrics.empty() && !table.repetitions.empty(), text);
    for (const auto& m : layout.metrics) {
        NF_FUZZ_CHECK(layout.quantityIndex(m.numerator) >= 0, m.numerator);
        NF_FUZZ_CHECK(layout.quantityIndex(m.denominator) >= 0, m.denominator);
        NF_FUZZ_CHECK(std::isfinite(m.scale) && m.scale > 0, m.name);
    }
    for (const auto& rep : table.repetitions) {
        NF_FUZZ_CHECK(!rep.empty(), text);
        for (const auto& s : rep) {
            NF_FUZZ_CHECK(s.values.size() == layout.quantities.size(), text);
            NF_FUZZ_CHECK(std::isfinite(s.duration) && s.duration >= 0, text);
            for (double v : s.values) {
                NF_FUZZ_CHECK(std::isfinite(v) || std::isnan(v), text);
            }
        }
    }
    if (table.profile) {  // perf script, perf report: one profile per repetition, counts within their chunk
        NF_FUZZ_CHECK(table.profile->repetitions.size() == table.repetitions.size(), text);
        for (const auto& rep : table.profile->repetitions) {
            long long chunks = 0;
            long long counts = 0;
            for (const auto& c : rep.chunks) {
                NF_FUZZ_CHECK(c.samples >= 0 && c.repetition == rep.repetition, text);
                chunks += c.samples;
            }
            for (const auto& c : rep.counts) {
                NF_FUZZ_CHECK(
                    c.samples >= 0 && c.symbol >= 0 && static_cast<std::size_t>(c.symbol) < rep.symbols.size(), text);
                counts += c.samples;
            }
            NF_FUZZ_CHECK(counts == chunks, text);
        }
    }
    NF_FUZZ_CHECK(table.summaries.empty() || table.summaries.size() == table.repetitions.size(), text);
    for (const auto& rep : table.summaries) {
        for (const auto& s : rep) {
            NF_FUZZ_CHECK(layout.quantityIndex(s.quantity) >= 0, s.quantity);
            NF_FUZZ_CHECK(s.n >= 1 && std::isfinite(s.mean) && std::isfinite(s.se) && s.se >= 0, s.quantity);
        }
    }
    ImportRequest request;
    request.format = importer().name;
    request.files = {"fuzz.txt"};
    request.label = "fuzz";
    auto run = importedRun(table, request);
    NF_FUZZ_CHECK(run, run ? std::string() : run.error().message);
    NF_FUZZ_CHECK(run->repetitions.size() == table.repetitions.size(), text);
}

void parseWith(const ImportFormat& format, const ImportSource& src, const ImportOptions& options)
{
    auto table = format.parse(src, options);
    if (!table) {
        NF_FUZZ_CHECK(table.error().message.rfind(src.path, 0) == 0 || table.error().message.rfind("--", 0) == 0,
                      table.error().message);
        return;
    }
    checkTable(*table, src.text);
    // Two files of the same text join into one table with twice the repetitions.
    auto both = parseImportFiles(format, {src, src}, options);
    NF_FUZZ_CHECK(both && both->repetitions.size() == 2 * table->repetitions.size(), src.text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size > 65536) {
        return 0;
    }
    const ImportFormat* format = findImportFormat(importer().name);
    NF_FUZZ_CHECK(format != nullptr, importer().name);
    const ImportSource src{"fuzz.txt", std::string(reinterpret_cast<const char*>(data), size)};
    if (auto detected = detectImportFormat(src); !detected) {
        NF_FUZZ_CHECK(detected.error().message.rfind("fuzz.txt", 0) == 0, detected.error().message);
    }
    parseWith(*format, src, {});
    if (format->name == "perf-stat") {
        parseWith(*format, src, {"", 5});  // --runs 5: -x, summaries of perf stat -r
    } else if (format->name == "sar") {
        parseWith(*format, src, {"lo", std::nullopt});  // --iface lo
    }
    return 0;
}
