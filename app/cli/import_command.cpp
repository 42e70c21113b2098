// noisefloor import FORMAT FILE...: results of perf stat, sar, xdpsock, xdp-bench and the kernel's
// own benchmarks stored as ordinary runs, so compare, series, show and export work on them.

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/cli.h"
#include "app/cli/run_lookup.h"
#include "app/cli/signal_stop.h"
#include "data/stored_import.h"
#include "engine/import/imported_run.h"
#include "nf_version.h"

namespace nf::cli {

namespace {

struct ImportArgs {
    std::string format;
    std::vector<std::string> files;
    engine::ImportRequest request;
    engine::ImportOptions options;
    int runs = 0;
};

// Reads a whole file, a FIFO or a terminal included, taking the stop between reads: a FIFO whose
// writer never comes (or never closes) must not make SIGINT/SIGTERM wait.
Result<std::string> readStoppable(const std::string& path, const std::stop_token& stop)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return Error::fromErrno("cannot read " + path);
    }
    std::string text;
    char buffer[65536];
    Result<std::string> result = Error{"import interrupted"};
    for (;;) {
        if (stop.stop_requested()) {
            break;
        }
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, 100);
        if (ready < 0 && errno != EINTR) {
            result = Error::fromErrno("cannot read " + path);
            break;
        }
        if (ready <= 0) {
            continue;
        }
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            continue;
        }
        if (n < 0) {
            result = Error::fromErrno("cannot read " + path);
            break;
        }
        if (n == 0) {  // end of file; for a FIFO, its writer closed it (poll said POLLHUP)
            result = std::move(text);
            break;
        }
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return result;
}

Result<std::vector<engine::ImportSource>> readSources(const std::vector<std::string>& files,
                                                      const std::stop_token& stop)
{
    std::vector<engine::ImportSource> sources;
    for (const auto& path : files) {
        auto text = readStoppable(path, stop);
        if (!text) {
            return text.error();
        }
        sources.push_back({path, std::move(*text)});
    }
    return sources;
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

int execute(ImportArgs& a, const Context& ctx)
{
    SignalStop signals;  // SIGINT/SIGTERM before the commit: nothing is stored
    const auto* format = engine::findImportFormat(a.format);
    if (format == nullptr) {
        return failWith(usageError("FORMAT '" + a.format + "': unknown (see 'noisefloor import --help')"));
    }
    if (a.runs != 0) {
        a.options.runs = a.runs;
    }
    auto sources = readSources(a.files, signals.token());
    if (signals.exitStatus() != 0) {
        return fail(signals.exitStatus(),
                    "import interrupted by " + signalName(signals.signal().load()) + "; nothing was stored");
    }
    if (!sources) {
        return failWith(sources.error());
    }
    auto table = engine::parseImportFiles(*format, *sources, a.options);
    if (!table) {
        return failWith(table.error());
    }
    a.request.format = a.format;
    a.request.files = a.files;
    a.request.commandLine = ctx.commandLine;
    a.request.toolVersion = NF_VERSION;
    auto run = engine::importedRun(*table, a.request);
    if (!run) {
        return failWith(usageError(run.error().message));
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return failWith(db.error());
    }
    auto id = data::storeFinishedRun(*db, run->start, run->repetitions, signals.token());
    if (signals.exitStatus() != 0) {
        const std::string by = signalName(signals.signal().load());
        return fail(signals.exitStatus(),
                    id ? "run " + std::to_string(*id) + " imported; " + by + " arrived after it was stored"
                       : "import interrupted by " + by + "; nothing was stored");
    }
    if (!id) {
        return failWith(id.error());
    }
    std::cout << "imported " << run->repetitions.size() << " repetitions of " << a.format << " as run " << *id << " '"
              << a.request.label << "' (" << describe(*run) << ")\n";
    for (const auto& note : table->notes) {
        std::cout << "  note: " << note << '\n';
    }
    if (run->start.environment["system"]["kernel_release"].get<std::string>().empty()) {
        std::cerr << "noisefloor: warning: the kernel of run " << *id
                  << " is unknown: give --kernel so that comparisons can name it\n";
    }
    return 0;
}

std::string formatsHelp()
{
    std::string text = "Input format:";
    for (const auto& f : engine::importFormats()) {
        text += "\n  " + f.name + ": " + f.summary;
    }
    return text;
}

}  // namespace

Command addImportCommand(CLI::App& app, Context& ctx)
{
    auto a = std::make_shared<ImportArgs>();
    auto* sub = app.add_subcommand("import",
                                   "Store results of perf stat, sar, xdpsock, xdp-bench, time_bench, "
                                   "page_frag_test or pktgen as a run");
    std::vector<std::string> names;
    for (const auto& f : engine::importFormats()) {
        names.push_back(f.name);
    }
    sub->add_option("format", a->format, formatsHelp())->required()->check(CLI::IsMember(names));
    sub->add_option("files", a->files,
                    "Files to read (one repetition per run the tool printed; one per file for "
                    "sar, xdpsock and xdp-bench)")
        ->required();
    sub->add_option("--label", a->request.label, "Label of the run (e.g. vanilla, patched)")->required();
    sub->add_option("--variant", a->request.variant, "Variant name inside the run")->capture_default_str();
    sub->add_option("--host", a->request.host, "Host the results come from (default: what the file says)");
    sub->add_option("--kernel", a->request.kernel, "Kernel the results come from (default: what the file says)");
    sub->add_option("--cpu-model", a->request.cpuModel, "CPU model of the machine the results come from");
    sub->add_option("--iface", a->options.iface, "sar: the interface to read");
    sub->add_option("--runs", a->runs, "perf-stat: runs averaged by each -r summary written with -x,")
        ->check(CLI::Range(2, 1000000));
    return {sub, [a, &ctx] { return execute(*a, ctx); }, true};
}

}  // namespace nf::cli
