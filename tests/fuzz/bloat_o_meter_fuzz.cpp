// `noisefloor import bloat-o-meter` files: the kernel's scripts/bloat-o-meter output as pasted. An
// error names the file; an output that parses prints back (as the script prints it) to the same
// parse, which is taken for the script's output again.

#include <cstdint>
#include <string>

#include "engine/import/bloat_o_meter.h"
#include "engine/report/code_size_report.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace nf::engine;

bool same(const CodeSizeDiff& a, const CodeSizeDiff& b)
{
    if (a.sections.size() != b.sections.size()) {
        return false;
    }
    for (std::size_t k = 0; k < a.sections.size(); ++k) {
        const auto& x = a.sections[k];
        const auto& y = b.sections[k];
        if (x.title != y.title || x.added != y.added || x.removed != y.removed || x.grown != y.grown ||
            x.shrunk != y.shrunk || x.up != y.up || x.down != y.down || x.before != y.before || x.after != y.after ||
            x.rows.size() != y.rows.size()) {
            return false;
        }
        for (std::size_t i = 0; i < x.rows.size(); ++i) {
            if (x.rows[i].name != y.rows[i].name || x.rows[i].oldBytes != y.rows[i].oldBytes ||
                x.rows[i].newBytes != y.rows[i].newBytes) {
                return false;
            }
        }
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size > 65536) {
        return 0;
    }
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto parsed = parseBloatOMeter({"x.txt", text});
    if (!parsed) {
        NF_FUZZ_CHECK(parsed.error().message.rfind("x.txt", 0) == 0, parsed.error().message);
        return 0;
    }
    NF_FUZZ_CHECK(!parsed->diff.sections.empty(), text);
    for (const auto& s : parsed->diff.sections) {
        NF_FUZZ_CHECK(!s.title.empty() && s.added >= 0 && s.removed >= 0 && s.grown >= 0 && s.shrunk >= 0 &&
                          s.up >= 0 && s.down >= 0,
                      text);
        for (const auto& r : s.rows) {
            NF_FUZZ_CHECK(!r.name.empty() && (r.oldBytes || r.newBytes), text);
        }
    }
    const auto printed = bloatOMeterText(parsed->diff);
    NF_FUZZ_CHECK(looksLikeBloatOMeter(printed), printed);
    const auto again = parseBloatOMeter({"printed.txt", printed});
    NF_FUZZ_CHECK(again.ok(), again ? printed : again.error().message);
    NF_FUZZ_CHECK(same(parsed->diff, again->diff), printed);
    (void)codeSizeSummary(parsed->diff);
    (void)codeSizeJson({"label", "", "", "", "x.txt", parsed->diff}).dump();
    return 0;
}
