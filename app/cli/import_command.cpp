// noisefloor import [TOOL] FILE...: results of the tools engine/import/importer_list.h lists (perf
// stat, sar, xdpsock, xdp-bench, the kernel's own benchmarks, ...) stored as ordinary runs, so
// compare, series, show and export work on them. Without a tool (or with `auto`) the tool is detected
// from each file's content and named on stdout. The tools and their help come from the importers.
// Content stored already (a file imported twice, the old blocks of a perf stat --append file) is
// skipped with a line naming it, and an import with nothing new is refused: the same numbers stored
// twice would count twice (data/stored_import.h); --allow-duplicate stores them anyway, with a warning.
// bloat-o-meter output (named, or one file detected as it) is a code size, not a run: it goes to
// code_size_import.h before any of that.

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <stop_token>

#include "app/cli/cli.h"
#include "app/cli/code_size_import.h"
#include "app/cli/run_lookup.h"
#include "app/cli/signal_stop.h"
#include "base/system_facts.h"
#include "data/stored_import.h"
#include "engine/import/bloat_o_meter.h"
#include "engine/import/imported_run.h"
#include "engine/import/rate_join.h"
#include "nf_version.h"

namespace nf::cli {

namespace {

struct ImportArgs {
    std::vector<std::string> args;  // [TOOL] FILE...
    engine::ImportRequest request;
    engine::ImportOptions options;
    int runs = 0;
    std::string rate;  // --rate: a figure or a file of a packet rate tool
    std::string cpus;  // --cpu: a CPU list, "0-3,8"
    bool allowDuplicate = false;
};

// The file's text, read in pieces: at most kMaxImportBytes, and refused at the first NUL byte, so
// that /dev/zero or a binary file costs one piece of memory, not the file's size. A FIFO or a
// terminal is read too, taking the stop between reads: a FIFO whose writer never comes (or never
// closes) must not make SIGINT/SIGTERM wait.
Result<engine::ImportSource> readSource(const std::string& path, const std::stop_token& stop)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return Error::fromErrno("cannot read " + path);
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            return Error{path + ": a directory, not a file"};
        }
        if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > engine::kMaxImportBytes) {
            return usageError(path + ": " + std::to_string(st.st_size >> 20) + " MiB, more than the " +
                              std::to_string(engine::kMaxImportBytes >> 20) +
                              " MiB an import reads: import the tool's output, not a capture of everything");
        }
    }
    engine::ImportSource src{path, {}};
    if (S_ISREG(st.st_mode)) {
        src.text.reserve(static_cast<std::size_t>(st.st_size));
    }
    std::vector<char> piece(std::size_t{1} << 20);
    std::size_t lines = 1;
    for (;;) {
        if (stop.stop_requested()) {
            return Error{"import interrupted"};
        }
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, 100);
        if (ready < 0 && errno != EINTR) {
            return Error::fromErrno("cannot read " + path);
        }
        if (ready <= 0) {
            continue;
        }
        const ssize_t got = ::read(fd, piece.data(), piece.size());
        if (got < 0 && (errno == EAGAIN || errno == EINTR)) {
            continue;
        }
        if (got < 0) {
            return Error::fromErrno("cannot read " + path);
        }
        if (got == 0) {  // end of file; for a FIFO, its writer closed it (poll said POLLHUP)
            break;
        }
        const auto n = static_cast<std::size_t>(got);
        for (std::size_t i = 0; i < n; ++i) {
            if (piece[i] == '\0') {
                return usageError(path + ":" + std::to_string(lines) + ": binary data (a NUL byte), not a tool's text");
            }
            lines += piece[i] == '\n' ? 1 : 0;
        }
        if (src.text.size() + n > engine::kMaxImportBytes) {
            return usageError(path + ": more than the " + std::to_string(engine::kMaxImportBytes >> 20) +
                              " MiB an import reads: import the tool's output, not a capture of everything");
        }
        src.text.append(piece.data(), n);
    }
    if (src.text.find_first_not_of(" \t\r\n") == std::string::npos) {
        return usageError(path + ": the file is empty");
    }
    return src;
}

std::string describe(const engine::ImportedRun& run)
{
    const auto& sys = run.start.environment["system"];
    auto part = [](const nlohmann::json& v, const char* what) {
        const auto text = v.get<std::string>();
        return text.empty() ? std::string(what) + " unknown" : std::string(what) + " " + text;
    };
    return part(sys["kernel_release"], "kernel") + ", " + part(sys["hostname"], "host");
}

// Each repetition of the import named by its file and its place there, for the lines on duplicates.
std::vector<data::BlockOrigin> blockOrigins(const engine::ImportTable& table, const std::vector<std::string>& files)
{
    std::vector<data::BlockOrigin> origins;
    for (std::size_t f = 0; f < table.fileRepetitions.size() && f < files.size(); ++f) {
        for (std::size_t i = 0; i < table.fileRepetitions[f]; ++i) {
            origins.push_back({files[f], static_cast<int>(i) + 1});
        }
    }
    return origins;
}

// The tool: named, or detected from every file (which must agree).
Result<const engine::ImportFormat*> chooseFormat(const std::string& named,
                                                 const std::vector<engine::ImportSource>& sources)
{
    if (!named.empty() && named != "auto") {
        return engine::findImportFormat(named);
    }
    const engine::ImportFormat* format = nullptr;
    for (const auto& src : sources) {
        auto found = engine::detectImportFormat(src);
        if (!found) {
            return usageError(found.error().message);
        }
        if (format != nullptr && *found != format) {
            return usageError(src.path + ": " + (*found)->name + " output, but " + sources.front().path + " is " +
                              format->name + " output: import each tool's files separately");
        }
        format = *found;
    }
    return format;
}

// --rate: a figure ("22.8Mpps"), else a file of xdpsock, xdp-bench, sar or pktgen output.
Result<engine::PacketRate> packetRate(const ImportArgs& a, const std::stop_token& stop)
{
    auto figure = engine::packetRateFigure(a.rate);
    if (figure) {
        return figure;
    }
    if (::access(a.rate.c_str(), F_OK) != 0) {
        const auto first = a.rate.find_first_not_of(" \t");
        const bool number = first != std::string::npos &&
                            (std::isdigit(static_cast<unsigned char>(a.rate[first])) != 0 || a.rate[first] == '.');
        if (number) {
            return figure;  // what is wrong with the figure
        }
        return usageError("--rate '" + a.rate + "': no such file, and not a packet rate (" + engine::kPacketRateForms +
                          ")");
    }
    auto src = NF_TRY(readSource(a.rate, stop));
    return engine::packetRateOfFile(src, a.options).withContext("--rate: ");
}

// The identity of the kernel a campaign step runs under (NOISEFLOOR_KERNEL_IDENTITY, set by
// campaign next), or null outside a campaign.
nlohmann::json campaignKernelIdentity()
{
    const char* text = std::getenv("NOISEFLOOR_KERNEL_IDENTITY");
    return text != nullptr ? nlohmann::json::parse(text, nullptr, false) : nlohmann::json();
}

std::string hostName()
{
    char host[256] = {};
    return ::gethostname(host, sizeof host - 1) == 0 ? std::string(host) : std::string();
}

// bloat-o-meter output is a code size, not a run: one file, and none of the options of a run.
Result<void> codeSizeOnly(const ImportArgs& a, const std::vector<engine::ImportSource>& sources)
{
    if (sources.size() != 1) {
        return usageError(std::string(kBloatOMeterTool) +
                          ": one FILE (one comparison of two builds, stored under --label, the new build's)");
    }
    const engine::ImportRequest plain;
    const bool runOptions = a.request.variant != plain.variant || !a.request.host.empty() ||
                            !a.request.kernel.empty() || !a.request.cpuModel.empty() || !a.request.primary.empty() ||
                            !a.options.iface.empty() || !a.options.event.empty() || a.options.slice > 0 ||
                            !a.rate.empty() || !a.cpus.empty() || a.runs != 0 || a.allowDuplicate;
    if (runOptions) {
        return usageError(sources.front().path +
                          ": bloat-o-meter output is a code size, not a run: it takes --label only");
    }
    return {};
}

int execute(ImportArgs& a, const Context& ctx)
{
    SignalStop signals;  // SIGINT/SIGTERM before the commit: nothing is stored
    std::string named;
    std::vector<std::string> files = a.args;
    if (!files.empty() && (files.front() == "auto" || files.front() == kBloatOMeterTool ||
                           engine::findImportFormat(files.front()) != nullptr)) {
        named = files.front();
        files.erase(files.begin());
    }
    if (files.empty()) {
        return failWith(usageError("import: no FILE to read (noisefloor import [TOOL] FILE...)"));
    }
    if (named.empty() && files.size() > 1 && files.front().find_first_of("/.") == std::string::npos &&
        ::access(files.front().c_str(), F_OK) != 0) {
        std::string tools;
        for (const auto& f : engine::importFormats()) {
            tools += (tools.empty() ? "" : ", ") + f.name;
        }
        return failWith(usageError("TOOL '" + files.front() + "': unknown (" + tools + ", " + kBloatOMeterTool +
                                   ", or auto), and no such file"));
    }
    if (a.runs != 0) {
        a.options.runs = a.runs;
    }
    std::vector<engine::ImportSource> sources;
    for (const auto& path : files) {
        auto src = readSource(path, signals.token());
        if (signals.exitStatus() != 0) {
            return fail(signals.exitStatus(),
                        "import interrupted by " + signalName(signals.signal().load()) + "; nothing was stored");
        }
        if (!src) {
            return failWith(src.error());
        }
        sources.push_back(std::move(*src));
    }
    const bool codeSize = named == kBloatOMeterTool || ((named.empty() || named == "auto") && sources.size() == 1 &&
                                                        engine::looksLikeBloatOMeter(sources.front().text));
    if (codeSize) {
        if (auto ok = codeSizeOnly(a, sources); !ok) {
            return failWith(ok.error());
        }
        return importCodeSize(sources.front(), a.request.label, ctx);
    }
    auto format = chooseFormat(named, sources);
    if (!format) {
        return failWith(format.error());
    }
    if (!a.cpus.empty()) {
        bool ok = false;
        a.options.cpus = base::parseCpuList(a.cpus, &ok);
        if (!ok || a.options.cpus.empty()) {
            return failWith(usageError("--cpu '" + a.cpus + "': not a CPU list (0-3,8)"));
        }
    }
    if ((!a.options.cpus.empty() || a.options.slice > 0) && (*format)->name != "perf-script") {
        return failWith(usageError("--cpu and --slice read perf script output, not " + (*format)->name));
    }
    if (!a.options.event.empty() && (*format)->name != "perf-script" && (*format)->name != "perf-report") {
        return failWith(usageError("--event reads perf script or perf report output, not " + (*format)->name));
    }
    auto table = engine::parseImportFiles(**format, sources, a.options);
    if (!table) {
        return failWith(usageError(table.error().message));
    }
    if (!a.rate.empty()) {
        if ((*format)->name != "perf-stat") {
            return failWith(usageError("--rate joins a packet rate with perf stat counters, not with " +
                                       (*format)->name + " output"));
        }
        auto rate = packetRate(a, signals.token());
        if (signals.exitStatus() != 0) {
            return fail(signals.exitStatus(),
                        "import interrupted by " + signalName(signals.signal().load()) + "; nothing was stored");
        }
        auto joined =
            rate ? engine::joinPacketRate(std::move(*table), *rate) : Result<engine::ImportTable>(rate.error());
        if (!joined) {
            return failWith(usageError(joined.error().message));
        }
        table = std::move(joined);
    }
    if (named.empty() || named == "auto") {
        std::cout << "detected " << (*format)->name << ": " << table->detected << '\n';
    }
    a.request.format = (*format)->name;
    a.request.files = files;
    a.request.commandLine = ctx.commandLine;
    a.request.toolVersion = NF_VERSION;
    // A campaign's step (campaign next) imports what this boot's kernel produced: the campaign read
    // that kernel's identity and hands it over, so the run names the build, not only the release.
    const nlohmann::json identity = campaignKernelIdentity();
    if (identity.is_object()) {
        if (a.request.kernel.empty()) {
            a.request.kernel = identity.value("release", "");
        }
        if (a.request.host.empty()) {
            a.request.host = hostName();
        }
    }
    auto run = engine::importedRun(*table, a.request);
    if (!run) {
        return failWith(usageError(run.error().message));
    }
    if (identity.is_object()) {
        run->start.environment["kernel"] = identity;
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return failWith(db.error());
    }
    auto stored =
        data::storeImport(*db, run->start, run->repetitions, run->summaries, run->profile ? &*run->profile : nullptr,
                          a.allowDuplicate ? data::Duplicates::Store : data::Duplicates::Skip,
                          blockOrigins(*table, files), signals.token());
    const std::int64_t id = stored ? stored->id : 0;
    if (signals.exitStatus() != 0) {
        const std::string by = signalName(signals.signal().load());
        return fail(signals.exitStatus(),
                    id != 0 ? "run " + std::to_string(id) + " imported; " + by + " arrived after it was stored"
                            : "import interrupted by " + by + "; nothing was stored");
    }
    if (!stored) {
        return failWith(stored.error());
    }
    if (id == 0) {
        return failWith(usageError(stored->refusal + "; --allow-duplicate stores it again"));
    }
    noteStored("run " + std::to_string(id) + " was already stored");
    if (!stored->note.empty() && !a.allowDuplicate) {
        std::cout << stored->note << '\n';
    }
    const auto n = stored->repetitions;
    std::cout << "imported " << n << (table->summarised() ? " summar" : " repetition")
              << (table->summarised() ? (n == 1 ? "y" : "ies") : (n == 1 ? "" : "s")) << " of " << (*format)->name
              << " as run " << id << " '" << a.request.label << "' (" << describe(*run) << ")\n";
    for (const auto& note : table->notes) {
        std::cout << "  note: " << note << '\n';
    }
    if (!stored->note.empty() && a.allowDuplicate) {
        std::cerr << "noisefloor: warning: run " << id << " " << stored->note << " (--allow-duplicate)\n";
    }
    if (run->start.environment["system"]["kernel_release"].get<std::string>().empty()) {
        std::cerr << "noisefloor: warning: the kernel of run " << id
                  << " is unknown: give --kernel so that comparisons can name it\n";
    }
    return 0;
}

std::string formatsHelp()
{
    std::string text = "[TOOL] FILE...: TOOL is detected from the content when left out (or 'auto'). Tools:";
    for (const auto& f : engine::importFormats()) {
        text += "\n  " + f.name + ": " + f.summary;
    }
    return text + "\n  " + kBloatOMeterTool +
           ": the kernel's scripts/bloat-o-meter output, one FILE: stored as the code size of --label (the new "
           "build's), not as a run; compare and series print it beside that label";
}

}  // namespace

Command addImportCommand(CLI::App& app, Context& ctx)
{
    auto a = std::make_shared<ImportArgs>();
    auto* sub = app.add_subcommand("import", "Store results of " + engine::importToolNames() +
                                                 " as a run, or bloat-o-meter output as a code size");
    sub->add_option("args", a->args, formatsHelp())->required();
    sub->add_option("--label", a->request.label, "Label of the run (e.g. vanilla, patched)")->required();
    sub->add_option("--variant", a->request.variant, "Variant name inside the run")->capture_default_str();
    sub->add_option("--host", a->request.host, "Host the results come from (default: what the file says)");
    sub->add_option("--kernel", a->request.kernel, "Kernel the results come from (default: what the file says)");
    sub->add_option("--cpu-model", a->request.cpuModel, "CPU model of the machine the results come from");
    sub->add_option("--iface", a->options.iface, "sar: the interface to read");
    sub->add_option("--primary", a->request.primary,
                    "The metric the verdict rests on, tested at alpha alone (default: the tool's first, or IPC for "
                    "perf stat of CPUs over a fixed time)");
    sub->add_option("--rate", a->rate,
                    "perf-stat: the packet rate of the same run, a figure (22.8Mpps, 850Kpps, 22800000) or a file of "
                    "xdpsock, xdp-bench, sar -n DEV or pktgen output: counters per packet from it");
    sub->add_option("--runs", a->runs, "perf-stat: runs averaged by each -r summary written with -x,")
        ->check(CLI::Range(2, 1000000));
    sub->add_option("--event", a->options.event,
                    "perf-script, perf-report: the event to read where the file has several");
    sub->add_option("--cpu", a->cpus,
                    "perf-script: the CPUs whose samples to read, pooled, as perf -C takes them: 0-3,8 (default: all)");
    sub->add_option("--slice", a->options.slice,
                    "perf-script: a repetition per this many seconds of each file (default: a repetition per file); "
                    "slices of one recording share its boot, so intervals over them leave boot-to-boot variation out")
        ->check(CLI::Range(0.001, 86400.0));
    sub->add_flag("--allow-duplicate", a->allowDuplicate,
                  "Store repetitions (or summaries) whose content is stored already, with a warning (default: skip "
                  "them, and refuse an import with nothing new)");
    sub->footer("Files up to " + std::to_string(engine::kMaxImportBytes >> 20) +
                " MiB are read; larger ones, binary files and empty ones are refused (exit status 2).");
    return {sub, [a, &ctx] { return execute(*a, ctx); }, true};
}

}  // namespace nf::cli
