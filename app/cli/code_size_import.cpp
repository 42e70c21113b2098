#include "app/cli/code_size_import.h"

#include <iostream>

#include "app/cli/run_lookup.h"
#include "app/cli/signal_stop.h"
#include "data/code_size_store.h"
#include "engine/import/bloat_o_meter.h"
#include "engine/report/code_size_report.h"

namespace nf::cli {

int importCodeSize(const engine::ImportSource& src, const std::string& label, const Context& ctx)
{
    auto parsed = engine::parseBloatOMeter(src);
    if (!parsed) {
        return failWith(usageError(parsed.error().message));
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return failWith(db.error());
    }
    auto earlier = data::codeSizeFor(*db, label);
    if (!earlier) {
        return failWith(earlier.error());
    }
    const engine::CodeSizeRecord record{label, "", "", "", src.path, std::move(parsed->diff)};
    if (auto stored = data::storeCodeSize(*db, record); !stored) {
        return failWith(stored.error());
    }
    noteStored("the code size of '" + label + "' was already stored");
    std::cout << "imported bloat-o-meter output as the code size of '" << label << "'"
              << (*earlier ? " (replacing the one of " + (*earlier)->createdAt + ")" : std::string()) << ": "
              << engine::codeSizeSummary(record.diff) << '\n';
    for (const auto& note : parsed->notes) {
        std::cout << "  note: " << note << '\n';
    }
    return 0;
}

}  // namespace nf::cli
