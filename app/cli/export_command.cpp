// noisefloor export RUN --format csv|json|sqlite|folded [-o FILE]: every sample of a run (sqlite: see
// app/cli/merge_command.cpp). A file is written
// whole or not at all: into an unnamed file in the target's directory (O_TMPFILE; a named
// temporary where that is not supported), flushed to disk, then renamed over the target, so a
// killed or failed export leaves the previous file as it was. A target that is the database, one
// of its -wal/-shm/-journal files or any SQLite database is refused before anything is read.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <streambuf>

#include "app/cli/atomic_file.h"
#include "app/cli/cli.h"
#include "app/cli/run_database.h"
#include "app/cli/run_lookup.h"
#include "app/cli/signal_stop.h"
#include "app/cli/terminal_text.h"
#include "data/export.h"

namespace nf::cli {

namespace {

// A buffered stream onto a file descriptor that remembers the first write error.
class FdBuf : public std::streambuf {
public:
    explicit FdBuf(int fd) : m_fd(fd) { setp(m_buffer.data(), m_buffer.data() + m_buffer.size()); }
    int error() const { return m_error; }

protected:
    int_type overflow(int_type c) override
    {
        if (!drain()) {
            return traits_type::eof();
        }
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    bool drain()
    {
        const char* at = pbase();
        while (at < pptr() && m_error == 0) {
            const ssize_t n = ::write(m_fd, at, static_cast<std::size_t>(pptr() - at));
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                m_error = n < 0 ? errno : ENOSPC;
                break;
            }
            at += n;
        }
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
        return m_error == 0;
    }
    int m_fd;
    int m_error = 0;
    std::array<char, 1 << 16> m_buffer{};
};

bool sameFile(const std::string& a, const std::string& b)
{
    struct stat sa {};
    struct stat sb {};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

bool isSqliteFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::array<char, 16> header{};
    in.read(header.data(), header.size());
    return in.gcount() == 16 && std::string(header.data(), 16) == std::string("SQLite format 3\0", 16);
}

// Bad input when `file` would overwrite the database or any SQLite file.
Result<void> checkTarget(const std::string& file, const std::string& dbPath)
{
    std::error_code ec;
    const auto target = std::filesystem::weakly_canonical(file, ec).string();
    const auto db = std::filesystem::weakly_canonical(dbPath, ec).string();
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
        if (target == db + suffix || sameFile(file, dbPath + suffix)) {
            return usageError(
                "-o " + file + ": is " +
                (suffix[0] == 0 ? "the database" : "the database's " + std::string(suffix + 1) + " file") + " (" +
                dbPath + "); refusing to overwrite it");
        }
    }
    if (isSqliteFile(file)) {
        return usageError("-o " + file + ": is an SQLite database; refusing to overwrite it");
    }
    return {};
}

// Whether the export was written; the callers say why not from the stream they gave.
bool writeExport(const engine::RunRecord& run, const std::string& format, std::ostream& out)
{
    const bool written = (format == "csv"      ? data::writeCsv(run, out)
                          : format == "folded" ? data::writeFolded(run, out)
                                               : data::writeJson(run, out))
                             .ok();
    out.flush();
    return written && out;
}

int exportRun(const Context& ctx, const std::string& name, const std::string& format, const std::string& file)
{
    SignalStop signals;  // a signal before the rename: the target is left as it was
    const bool toStdout = file.empty() || file == "-";
    std::error_code ec;
    const bool special = !toStdout && std::filesystem::exists(file, ec) &&
                         !std::filesystem::is_regular_file(file, ec);  // a FIFO, /dev/null: written as it is
    if (!toStdout) {
        if (auto ok = checkTarget(file, databasePath(ctx)); !ok) {
            return failWith(ok.error());
        }
    }
    auto db = openExisting(ctx);
    if (!db) {
        return failWith(db.error());
    }
    auto run = loadNamedRun(*db, name);
    if (!run) {
        return failWith(run.error());
    }
    if (format == "sqlite") {
        return exportRunDatabase(*db, run->row.id, file, signals);
    }
    if (format == "folded" && !run->data.profile) {
        return fail(kExitRuntime, "run " + std::to_string(run->row.id) + " has no profile (run it with --profile)");
    }
    auto interrupted = [&] {
        return fail(signals.exitStatus(),
                    "export interrupted by " + signalName(signals.signal().load()) + "; " +
                        (toStdout ? std::string("its output is incomplete") : file + " was not written"));
    };
    if (toStdout || special) {
        TerminalGuard::exactOutput();  // data, byte for byte
        std::ofstream device;
        if (special) {
            device.open(file, std::ios::out | std::ios::binary);
            if (!device) {
                return fail(kExitRuntime, "cannot write " + file + ": " + nf::errnoText(errno));
            }
        }
        std::ostream& out = special ? device : std::cout;
        const bool written = writeExport(*run, format, out);
        if (signals.exitStatus() != 0) {
            return interrupted();
        }
        if (!written) {
            return fail(kExitRuntime, "writing the export failed" + (special ? " (" + file + ")" : ""));
        }
        noteStored(special ? file + " was already written" : "the export was already written whole");
        return 0;
    }
    const bool existed = std::filesystem::exists(file, ec);
    auto target = AtomicFile::create(file);
    if (!target) {
        return fail(kExitRuntime, target.error().message + (existed ? "; it was left as it was" : ""));
    }
    FdBuf buffer(target->fd());
    std::ostream out(&buffer);
    const bool written = writeExport(*run, format, out);
    if (signals.exitStatus() != 0) {
        return interrupted();
    }
    if (!written || buffer.error() != 0) {
        return fail(kExitRuntime, "cannot write " + file + ": " + nf::errnoText(buffer.error() ? buffer.error() : EIO) +
                                      "; it was left as it was");
    }
    if (auto done = target->commit(); !done) {
        return fail(kExitRuntime, done.error().message + "; it was left as it was");
    }
    noteStored(file + " was already written");
    return 0;
}

}  // namespace

Command addExportCommand(CLI::App& app, Context& ctx)
{
    auto run = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>();
    auto file = std::make_shared<std::string>();
    auto* sub = app.add_subcommand("export", "Export every sample of a run");
    sub->add_option("run", *run, "Run id, or 'last'")->required();
    sub->add_option("--format", *format,
                    "csv (one row per sample), json (the whole run), sqlite (a one-run database for "
                    "`noisefloor merge`; -o names a new file) or folded (a profiled run's call stacks, the variant "
                    "and the CPU as the first frames, for flamegraph.pl or speedscope)")
        ->required()
        ->check(CLI::IsMember({"csv", "json", "sqlite", "folded"}));
    sub->add_option("-o,--output", *file,
                    "Write to FILE instead of standard output (whole or not at all; never onto a database)");
    return {sub, [run, format, file, &ctx] { return exportRun(ctx, *run, *format, *file); }, true};
}

}  // namespace nf::cli
