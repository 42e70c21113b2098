// noisefloor stat: ministat's job on plain sample files, with noisefloor's statistics.

#include <array>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "app/cli/cli.h"
#include "app/cli/run_lookup.h"
#include "engine/analysis/text_input.h"

namespace nf::cli {

namespace {

struct StatArgs {
    std::vector<std::string> files;
    int column = 1;
    std::optional<std::string> delimiters;  // unset: the default set, with ambiguous numbers refused
    bool paired = false;
    bool higherIsBetter = false;
    std::string format = "text";
    engine::AnalysisOptions analysis;
    bool noHolm = false;
};

// More than any list of values a person or a script means (about 4 million 16-byte lines).
constexpr std::size_t kMaxStatInput = std::size_t{64} << 20U;

Result<std::vector<double>> readValues(const std::string& path, const StatArgs& a)
{
    std::ifstream in(path);
    if (!in) {
        return usageError("cannot read " + path + ": " + errnoText(errno));
    }
    // Bounded: a device or a file that never ends (/dev/zero) is refused, not read into memory.
    std::string text;
    std::array<char, 65536> buffer{};
    while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0) {
        text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxStatInput) {
            return usageError(path + ": more than " + std::to_string(kMaxStatInput >> 20U) +
                              " MiB; stat reads at most that much of a file");
        }
    }
    if (in.bad()) {
        return usageError("cannot read " + path + ": " + errnoText(errno));
    }
    auto values = engine::parseStatValues(text, path, {a.column, a.delimiters});
    if (!values) {
        return usageError(values.error().message);
    }
    return values;
}

int execute(StatArgs& a)
{
    if (a.files.size() < 2) {
        return fail(kExitUsage, "stat needs at least two files (the first is the baseline)");
    }
    if (a.column < 1) {
        return fail(kExitUsage, "-C " + std::to_string(a.column) + ": columns count from 1");
    }
    a.analysis.holm = !a.noHolm;
    if (auto ok = validateAnalysisOptions(a.analysis); !ok) {
        return failWith(ok.error());
    }
    if (a.delimiters) {
        if (auto ok = engine::checkStatDelimiters(*a.delimiters); !ok) {
            return failWith(usageError(ok.error().message));
        }
    }
    engine::AnalysisInput in;
    in.metrics = {{"value", "", "", "", 1.0, a.higherIsBetter, "the numbers in the files", ""}};
    in.repetitions.assign(1, {});
    in.pairs.assign(1, {});
    std::set<std::string> names;
    for (const auto& file : a.files) {
        auto values = readValues(file, a);
        if (!values) {
            return failWith(values.error());
        }
        std::string name = std::filesystem::path(file).filename().string();
        if (!names.insert(name).second) {
            name = file;
        }
        in.variants.push_back(name);
        in.repetitions[0].push_back(*values);
    }
    if (a.paired) {
        for (std::size_t f = 1; f < a.files.size(); ++f) {
            if (in.repetitions[0][f].size() != in.repetitions[0][0].size()) {
                return fail(kExitUsage, "--paired: " + a.files[f] + " has " +
                                            std::to_string(in.repetitions[0][f].size()) + " values, " + a.files[0] +
                                            " has " + std::to_string(in.repetitions[0][0].size()));
            }
        }
        in.pairedRepetitions = true;
        in.pairedPrimary = true;
        in.pairUnit = "line pair";
    }
    in.unit = "value";
    if (!a.analysis.primary.empty()) {
        if (auto r = engine::putPrimaryFirst(in, a.analysis.primary); !r) {
            return failWith(usageError(r.error().message));
        }
    }
    auto analysis = engine::analyze(in, a.analysis);
    if (!analysis) {
        return failWith(usageError(analysis.error().message));
    }
    engine::EvidenceContext ctx;
    ctx.logScaleIntervals = false;  // plain numbers of any kind: Student's t, as ministat
    ctx.title = "noisefloor stat: " + std::to_string(a.files.size()) + " files, the first is the baseline";
    for (const auto& f : a.files) {
        ctx.header.push_back(f);
        ctx.source.push_back({{"file", f}});
    }
    ctx.designNote = a.paired ? "paired design (--paired): line i of each file forms a pair; the verdict rests on "
                                "the Wilcoxon signed-rank test. Each value is also treated as an independent sample."
                              : "independent design: each value is one independent sample; Welch's t test is primary.";
    return printEvidence(*analysis, ctx, a.format, std::cout);
}

}  // namespace

Command addStatCommand(CLI::App& app)
{
    auto a = std::make_shared<StatArgs>();
    auto* sub = app.add_subcommand("stat", "Compare plain files of numbers (one per line, or a column), like ministat");
    sub->add_option("files", a->files, "Two or more files; the first is the baseline")->required();
    sub->add_option("-C,--column", a->column, "Column to read, from 1")->capture_default_str();
    sub->add_option_function<std::string>(
        "-d,--delimiters", [a](const std::string& d) { a->delimiters = d; },
        "Characters that separate columns (default: space, tab, ',' and ';', and a line where a comma or a "
        "single space could be a thousands separator, or a comma a decimal comma, is refused)");
    sub->add_flag("--paired", a->paired, "Line i of every file was measured together: analyse pairs");
    sub->add_flag("--higher-is-better", a->higherIsBetter,
                  "The numbers are rates (default: lower is better, as "
                  "times)");
    sub->add_option("--format", a->format, "text, json or csv")
        ->check(CLI::IsMember({"text", "json", "csv"}))
        ->capture_default_str();
    addAnalysisOptions(sub, a->analysis, a->noHolm);
    return {sub, [a] { return execute(*a); }};
}

}  // namespace nf::cli
