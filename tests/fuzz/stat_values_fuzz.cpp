// `noisefloor stat` input files and what stat does with them: the first byte chooses the column
// (1-3), --paired and --higher-is-better; the rest is two files separated by a line "%%" (or the
// same text twice). Accepted values are finite; the analysis must not fail on finite input, and
// the report must be written in text and JSON.

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "engine/analysis/analysis.h"
#include "engine/analysis/text_input.h"
#include "engine/report/evidence.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace nf::engine;

constexpr std::size_t kMaxValues = 200;  // the statistics are O(n^2); more values only slow the search

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 1 || size > 16384) {
        return 0;
    }
    const std::uint8_t flags = data[0];
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    StatColumn column{1 + flags % 3, std::nullopt};  // the default delimiters, ambiguity refused
    if ((flags & 0x40) != 0) {
        column.delimiters = " \t,;";  // as given with -d
    }
    const bool paired = (flags & 0x10) != 0;
    const bool higherIsBetter = (flags & 0x20) != 0;
    const auto split = text.find("\n%%\n");
    const std::string first = split == std::string::npos ? text : text.substr(0, split + 1);
    const std::string second = split == std::string::npos ? text : text.substr(split + 4);

    AnalysisInput in;
    in.metrics = {{"value", "", "", "", 1.0, higherIsBetter, "the numbers in the files", ""}};
    in.repetitions.assign(1, {});
    in.pairs.assign(1, {});
    for (const auto& [name, body] : {std::pair{"a.txt", first}, std::pair{"b.txt", second}}) {
        auto values = parseStatValues(body, name, column);
        if (!values) {
            NF_FUZZ_CHECK(values.error().message.rfind(name, 0) == 0, values.error().message);
            return 0;
        }
        NF_FUZZ_CHECK(values->size() >= 2, body);
        for (double v : *values) {
            NF_FUZZ_CHECK(std::isfinite(v), body);
        }
        if (values->size() > kMaxValues) {
            return 0;
        }
        in.variants.emplace_back(name);
        in.repetitions[0].push_back(*values);
    }
    if (paired) {
        if (in.repetitions[0][0].size() != in.repetitions[0][1].size()) {
            return 0;  // stat refuses this before analysing
        }
        in.pairedRepetitions = true;
        in.pairedPrimary = true;
        in.pairUnit = "line pair";
    }
    in.unit = "value";
    auto analysis = analyze(in, AnalysisOptions{});
    if (!analysis) {
        return 0;
    }
    EvidenceContext ctx;
    ctx.title = "fuzz";
    std::ostringstream out;
    writeEvidenceText(*analysis, ctx, out);
    NF_FUZZ_CHECK(!out.str().empty(), text);
    (void)evidenceJson(*analysis, ctx).dump();
    return 0;
}
