// noisefloor size OLD NEW: code size between two builds as the kernel's scripts/bloat-o-meter counts
// it in its default mode, from the ELF symbol tables of two vmlinux or .ko files: the script's table
// byte for byte (or JSON). --label stores it as the code size of the new build's label, which
// compare, series and the campaign report print beside that label's performance.

#include <algorithm>
#include <iostream>
#include <memory>

#include "app/cli/cli.h"
#include "app/cli/run_lookup.h"
#include "app/cli/signal_stop.h"
#include "data/code_size_store.h"
#include "engine/report/code_size_report.h"
#include "probes/elf_symbols.h"

namespace nf::cli {

namespace {

struct SizeArgs {
    std::string oldFile;
    std::string newFile;
    std::vector<std::string> functions;
    std::string label;
    std::string format = "text";
};

// The file's symbols as the script counts them. A file that cannot be read is a runtime failure;
// one that is not ELF or has no symbol table is bad input.
Result<engine::SymbolSizes> sizesOf(const std::string& path)
{
    auto symbols = probes::readSizedSymbols(path);
    if (!symbols) {
        return symbols.error().errnum != 0 ? symbols.error() : usageError(symbols.error().message);
    }
    std::vector<engine::SizedSymbol> sized;
    sized.reserve(symbols->size());
    for (auto& s : *symbols) {
        sized.push_back({std::move(s.name), s.type, s.bytes});
    }
    return engine::bloatSizes(sized);
}

// A --function with no row says why on stderr: its size did not change, or neither file has it.
void noteUnchanged(const SizeArgs& a, const engine::CodeSizeDiff& diff, const engine::SymbolSizes& oldSizes,
                   const engine::SymbolSizes& newSizes)
{
    for (const auto& f : a.functions) {
        const std::vector<std::string> one = {f};
        const auto& rows = diff.sections.front().rows;
        if (std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return engine::namedBy(r.name, one); })) {
            continue;
        }
        const auto in = [&](const engine::SymbolSizes& sizes) {
            return std::any_of(sizes.begin(), sizes.end(),
                               [&](const auto& s) { return engine::namedBy(s.first, one); });
        };
        std::cerr << "noisefloor: note: --function " << f
                  << (in(oldSizes) || in(newSizes) ? ": the same size in both files" : ": in neither file") << '\n';
    }
}

int execute(const SizeArgs& a, const Context& ctx)
{
    auto oldSizes = sizesOf(a.oldFile);
    if (!oldSizes) {
        return failWith(oldSizes.error());
    }
    auto newSizes = sizesOf(a.newFile);
    if (!newSizes) {
        return failWith(newSizes.error());
    }
    const engine::CodeSizeRecord record{a.label, "", a.oldFile, a.newFile, "", engine::bloatDiff(*oldSizes, *newSizes)};
    if (!a.label.empty()) {
        auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
        if (!db) {
            return failWith(db.error());
        }
        if (auto stored = data::storeCodeSize(*db, record); !stored) {
            return failWith(stored.error());
        }
        noteStored("the code size of '" + a.label + "' was already stored");
    }
    if (a.format == "json") {
        std::cout << engine::codeSizeJson(record, a.functions).dump(2) << '\n';
    } else {
        std::cout << engine::bloatOMeterText(record.diff, a.functions);
    }
    noteUnchanged(a, record.diff, *oldSizes, *newSizes);
    return 0;
}

}  // namespace

Command addSizeCommand(CLI::App& app, Context& ctx)
{
    auto a = std::make_shared<SizeArgs>();
    auto* sub = app.add_subcommand(
        "size", "Code size between two builds, as the kernel's scripts/bloat-o-meter counts it (its default mode)");
    sub->add_option("old", a->oldFile, "The baseline build's vmlinux or .ko (unstripped)")->required();
    sub->add_option("new", a->newFile, "The new build's vmlinux or .ko")->required();
    sub->add_option("--function", a->functions,
                    "Only this symbol's row, or its compiler clones' (.isra, .constprop, .cold); the summary and "
                    "total lines still count every symbol (repeatable)");
    sub->add_option("--label", a->label,
                    "Store it as the code size of this label (the new build's runs): compare and series print it "
                    "beside them; replaces what the label had");
    sub->add_option("--format", a->format, "text (bloat-o-meter's table) or json")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    sub->footer(
        "Counts what the script's default mode counts: nm's types t, T, d, D, b, B, r and R (code and data, weak "
        "symbols not), each .NUMBER cut from the names (page_order.isra.0 is page_order.isra) and equal names "
        "summed. A file that is not ELF or has no symbol table (stripped) is refused (exit status 2).");
    return {sub, [a, &ctx] { return execute(*a, ctx); }};
}

}  // namespace nf::cli
