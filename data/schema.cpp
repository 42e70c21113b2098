#include "data/schema.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "data/private_dir.h"
#include "data/sample_checksum.h"

namespace nf::data {
namespace {

// PRAGMA application_id marks the file as ours ("NFlr"), so migrate() never adds its tables to
// some other program's database.
constexpr std::int64_t kApplicationId = 0x4e466c72;

struct Migration {
    int version;
    const char* sql;
};

// Migration 1: runs, their variants, quantities and metric definitions (a metric may only convert
// another: ns_per_op is an alias of tsc_per_op), repetitions and samples. A sample's values are one
// blob, `vals`: a little-endian IEEE-754 float64 per quantity in quantities.idx order, NaN where a
// value is missing (see sample_blob.h); reading a run is then one row per sample. Deleting a run
// cascades to everything below it.
constexpr const char* kMigration1 = R"sql(
CREATE TABLE runs (
    id               INTEGER PRIMARY KEY,
    label            TEXT NOT NULL DEFAULT '',
    workload         TEXT NOT NULL,
    spec_json        TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('running', 'complete', 'aborted', 'failed')),
    status_reason    TEXT NOT NULL DEFAULT '',
    started_at       TEXT NOT NULL,
    ended_at         TEXT,
    host             TEXT NOT NULL DEFAULT '',
    kernel           TEXT NOT NULL DEFAULT '',
    cpu_model        TEXT NOT NULL DEFAULT '',
    environment_json TEXT NOT NULL DEFAULT '{}',
    tool_version     TEXT NOT NULL,
    pid              INTEGER NOT NULL,  -- the writer: a 'running' run whose writer is gone was aborted
    pid_start        TEXT NOT NULL DEFAULT ''  -- "<boot id>/<start ticks>": tells a reused pid apart
);
CREATE INDEX runs_started_at ON runs (started_at);

CREATE TABLE variants (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    params_json TEXT NOT NULL DEFAULT '{}',
    UNIQUE (run_id, idx),
    UNIQUE (run_id, name)
);

CREATE TABLE quantities (
    id     INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    name   TEXT NOT NULL,
    UNIQUE (run_id, idx),
    UNIQUE (run_id, name)
);

CREATE TABLE metrics (
    run_id           INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx              INTEGER NOT NULL,
    name             TEXT NOT NULL,
    unit             TEXT NOT NULL DEFAULT '',
    numerator        TEXT NOT NULL,
    denominator      TEXT NOT NULL,
    scale            REAL NOT NULL DEFAULT 1.0,
    higher_is_better INTEGER NOT NULL DEFAULT 0,
    description      TEXT NOT NULL DEFAULT '',
    alias_of         TEXT NOT NULL DEFAULT '',  -- the metric this one only converts, '' if none
    PRIMARY KEY (run_id, idx)
);

CREATE TABLE repetitions (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    variant_id INTEGER NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
    idx        INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    started_s  REAL,
    ended_s    REAL,
    status     TEXT NOT NULL DEFAULT 'complete',
    UNIQUE (variant_id, idx)
);
CREATE INDEX repetitions_run ON repetitions (run_id, idx);

CREATE TABLE samples (
    id            INTEGER PRIMARY KEY,
    repetition_id INTEGER NOT NULL REFERENCES repetitions (id) ON DELETE CASCADE,
    idx           INTEGER NOT NULL,
    pair          INTEGER,
    start_s       REAL NOT NULL,
    duration_s    REAL NOT NULL,
    vals          BLOB NOT NULL,  -- 8 bytes per quantity: float64 little-endian, NaN if missing
    UNIQUE (repetition_id, idx)
);
)sql";

// Migration 2: what went wrong during a run without stopping it (a thread that could not be
// pinned, a command that failed once), in the order it was said, so that `show` and the reports
// still say it later.
constexpr const char* kMigration2 = R"sql(
CREATE TABLE run_warnings (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    text   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
)sql";

// Migration 3: what a tool summarised itself (perf stat -r N), stored in place of the values it
// averages, which it never printed: per repetition and quantity, the runs it stands for, their mean
// and the standard error of that mean. The repetition's one sample holds the means. Runs imported
// under schema 1 hold values rebuilt from such summaries instead (their environment says
// "reconstructed"); they are left as they are and reported as rebuilt.
constexpr const char* kMigration3 = R"sql(
CREATE TABLE summaries (
    repetition_id INTEGER NOT NULL REFERENCES repetitions (id) ON DELETE CASCADE,
    quantity_id   INTEGER NOT NULL REFERENCES quantities (id) ON DELETE CASCADE,
    n             INTEGER NOT NULL CHECK (n >= 1),
    mean          REAL NOT NULL,
    se            REAL NOT NULL CHECK (se >= 0),
    PRIMARY KEY (repetition_id, quantity_id)
);
)sql";

// Migration 4: the machine's run-to-run noise floor (noisefloor calibrate --across-runs): from the
// A/A runs stored under one label, per metric, the standard deviation of run means beyond what
// the repetitions inside a run explain (between_cv) and the within-run CV of one repetition, both
// relative to the mean, with how many runs and boots they came from. Cross-run comparisons with
// one run per side use the newest floor of their workload, host and metric.
constexpr const char* kMigration4 = R"sql(
CREATE TABLE run_noise_floors (
    id         INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    label      TEXT NOT NULL,
    workload   TEXT NOT NULL,
    host       TEXT NOT NULL DEFAULT '',
    metric     TEXT NOT NULL,
    runs       INTEGER NOT NULL CHECK (runs >= 2),
    boots      INTEGER NOT NULL CHECK (boots >= 1),
    between_cv REAL NOT NULL CHECK (between_cv >= 0),
    within_cv  REAL NOT NULL CHECK (within_cv >= 0),
    run_ids    TEXT NOT NULL  -- the calibration runs, "12,13,15"
);
CREATE INDEX run_noise_floors_lookup ON run_noise_floors (workload, host, metric);
)sql";

// Migration 5: runs that ran until decided (`run --until decided`):
// the method, what it decided on, why it stopped, and every look of its confidence sequence, one
// per stored repetition. A bound that did not exist yet (too few units) is NULL.
constexpr const char* kMigration5 = R"sql(
CREATE TABLE decisions (
    run_id         INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    method         TEXT NOT NULL,
    metric         TEXT NOT NULL,
    unit           TEXT NOT NULL,
    alpha          REAL NOT NULL,
    margin_pct     REAL NOT NULL,
    max_time_s     REAL NOT NULL,
    decision       TEXT NOT NULL CHECK (decision IN ('different', 'equivalent', 'inconclusive')),
    stop_reason    TEXT NOT NULL,
    seconds_needed REAL  -- inconclusive: the measuring time it would still need; NULL when unknown
);
CREATE TABLE decision_looks (
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    look         INTEGER NOT NULL,
    repetitions  INTEGER NOT NULL,
    units        INTEGER NOT NULL,
    elapsed_s    REAL NOT NULL,
    estimate_pct REAL,
    low_pct      REAL,
    high_pct     REAL,
    sd_log       REAL,
    decision     TEXT NOT NULL,
    PRIMARY KEY (run_id, look)
);
)sql";

// Migration 6: each sample row's checksum (sample_checksum.h), so that bytes changed in the file
// later are found by the readers and by merge. The rows already stored get theirs now: what they
// hold at the upgrade is what is vouched for.
constexpr const char* kMigration6 = R"sql(
ALTER TABLE samples ADD COLUMN checksum INTEGER;
UPDATE samples SET checksum = nf_sample_checksum(idx, pair, start_s, duration_s, vals);
)sql";

// Migration 7: a run until decided may stop on `negligible` (a difference shown whose whole
// interval lies inside the margin), the fourth verdict. SQLite cannot change a CHECK in place: the
// table is made again with every row.
constexpr const char* kMigration7 = R"sql(
CREATE TABLE decisions_7 (
    run_id         INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    method         TEXT NOT NULL,
    metric         TEXT NOT NULL,
    unit           TEXT NOT NULL,
    alpha          REAL NOT NULL,
    margin_pct     REAL NOT NULL,
    max_time_s     REAL NOT NULL,
    decision       TEXT NOT NULL CHECK (decision IN ('different', 'negligible', 'equivalent', 'inconclusive')),
    stop_reason    TEXT NOT NULL,
    seconds_needed REAL
);
INSERT INTO decisions_7 SELECT run_id, method, metric, unit, alpha, margin_pct, max_time_s, decision, stop_reason,
    seconds_needed FROM decisions;
DROP TABLE decisions;
ALTER TABLE decisions_7 RENAME TO decisions;
)sql";

// Migration 8: the code placement each variant ran in per repetition (ExperimentSpec::layouts,
// docs/measurement.md "Code layout as a factor"); NULL for runs of code with one placement and for
// every run stored before.
constexpr const char* kMigration8 = R"sql(
ALTER TABLE repetitions ADD COLUMN layout INTEGER;
)sql";

// Migration 9: what the tested interfaces and CPUs were set to before and after each repetition's
// measuring (offloads, channels, rings, coalescing, XDP mode, RPS/XPS, IRQ affinity, governor),
// as JSON on the repetition's rows (engine/run/tested_state.h), from which a comparison finds state
// that changed during the run; NULL for runs that read none. And the generator's count renamed for
// what it is, frames offered (sent, or XDP_TX verdicts), not frames the peer received:
// gen_packets -> offered_packets, gen_pps -> offered_pps, wherever a run or a floor names them.
constexpr const char* kMigration9 = R"sql(
ALTER TABLE repetitions ADD COLUMN state_json TEXT;
UPDATE quantities SET name = 'offered_packets' WHERE name = 'gen_packets';
UPDATE metrics SET name = 'offered_pps' WHERE name = 'gen_pps';
UPDATE metrics SET numerator = 'offered_packets' WHERE numerator = 'gen_packets';
UPDATE metrics SET description = 'packets the generator offered per second (sent, or XDP_TX verdicts)'
    WHERE name = 'offered_pps';
UPDATE runs SET spec_json = json_set(spec_json, '$.primary_metric', 'offered_pps')
    WHERE json_valid(spec_json) AND json_extract(spec_json, '$.primary_metric') = 'gen_pps';
UPDATE run_noise_floors SET metric = 'offered_pps' WHERE metric = 'gen_pps';
UPDATE run_noise_floors SET metric = 'layout:offered_pps' WHERE metric = 'layout:gen_pps';
UPDATE decisions SET metric = 'offered_pps' WHERE metric = 'gen_pps';
)sql";

// Migration 10: profiles (run --profile, engine/run/profile_stage.h): how each was taken, and per
// chunk and sampled CPU its samples in all and per symbol (the symbol of the interrupted
// instruction; names once per run in profile_symbols), and the folded call stacks per variant,
// repetition and CPU. A chunk is (variant, repetition, sample_idx) as in samples.
constexpr const char* kMigration10 = R"sql(
CREATE TABLE profiles (
    run_id             INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    event              TEXT NOT NULL,
    frequency_hz       INTEGER NOT NULL,
    cpus_json          TEXT NOT NULL,
    samples            INTEGER NOT NULL,
    outside            INTEGER NOT NULL,
    lost               INTEGER NOT NULL,
    reader_s           REAL NOT NULL,
    reader_on_measured INTEGER NOT NULL
);
CREATE TABLE profile_symbols (
    id     INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name   TEXT NOT NULL,
    UNIQUE (run_id, name)
);
CREATE TABLE profile_chunks (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    variant    INTEGER NOT NULL,
    repetition INTEGER NOT NULL,
    sample_idx INTEGER NOT NULL,
    cpu        INTEGER NOT NULL,
    samples    INTEGER NOT NULL,
    PRIMARY KEY (run_id, variant, repetition, sample_idx, cpu)
) WITHOUT ROWID;
CREATE TABLE profile_counts (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    variant    INTEGER NOT NULL,
    repetition INTEGER NOT NULL,
    sample_idx INTEGER NOT NULL,
    cpu        INTEGER NOT NULL,
    symbol_id  INTEGER NOT NULL REFERENCES profile_symbols (id) ON DELETE CASCADE,
    samples    INTEGER NOT NULL,
    PRIMARY KEY (run_id, variant, repetition, sample_idx, cpu, symbol_id)
) WITHOUT ROWID;
CREATE INDEX profile_counts_symbol ON profile_counts (symbol_id);
CREATE TABLE profile_stacks (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    variant    INTEGER NOT NULL,
    repetition INTEGER NOT NULL,
    cpu        INTEGER NOT NULL,
    stack      TEXT NOT NULL,
    samples    INTEGER NOT NULL,
    PRIMARY KEY (run_id, variant, repetition, cpu, stack)
) WITHOUT ROWID;
)sql";

// Migration 11: campaigns across boots (noisefloor campaign): two kernels named by their GNU build
// ids, the recipe of noisefloor steps run after every boot, the planned order of boots, and each
// boot as it happened: which kernel it was (its identity as read then), whether its recipe finished
// (only complete boots count), and the runs its steps stored. A run belongs to its campaign, not the
// campaign to the run: merge and export copy the run without it, and deleting the run unlinks it.
// And the content hash of every imported block (data/import_blocks.h), so that an import of content
// stored already skips it or is refused.
// Then code size per label (noisefloor size, import bloat-o-meter).
constexpr const char* kMigration11 = R"sql(
CREATE TABLE campaigns (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    created_at    TEXT NOT NULL,
    boots_planned INTEGER NOT NULL CHECK (boots_planned >= 4),  -- with until_decided: the most it may take
    until_decided INTEGER NOT NULL DEFAULT 0,
    boot_order    TEXT NOT NULL CHECK (boot_order IN ('abba', 'abab', 'random')),
    seed          INTEGER NOT NULL,
    metric        TEXT NOT NULL DEFAULT '',  -- '' = the primary metric of the first step's runs
    alpha         REAL NOT NULL,
    margin_pct    REAL NOT NULL,
    workdir       TEXT NOT NULL,             -- where the steps run (relative paths of import steps)
    reboot        TEXT NOT NULL DEFAULT '',  -- '' (print only), 'kexec', 'grub:...' or 'command ...'
    command_line  TEXT NOT NULL
);
CREATE TABLE campaign_kernels (
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,  -- 0 the baseline
    name        TEXT NOT NULL,
    build_id    TEXT NOT NULL,
    image       TEXT NOT NULL DEFAULT '',  -- the vmlinux or bzImage it was named by, '' for an id
    PRIMARY KEY (campaign_id, idx),
    UNIQUE (campaign_id, name),
    UNIQUE (campaign_id, build_id)
);
CREATE TABLE campaign_steps (
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    args_json   TEXT NOT NULL,  -- the noisefloor arguments, ["run", "command", ...]
    PRIMARY KEY (campaign_id, idx)
);
CREATE TABLE campaign_boots (
    id            INTEGER PRIMARY KEY,
    campaign_id   INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    slot          INTEGER NOT NULL,  -- the place in the planned order it filled
    kernel        INTEGER NOT NULL,  -- campaign_kernels.idx
    boot_id       TEXT NOT NULL,
    identity_json TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('running', 'complete', 'interrupted', 'failed')),
    status_reason TEXT NOT NULL DEFAULT '',
    started_at    TEXT NOT NULL,
    ended_at      TEXT,
    pid           INTEGER NOT NULL,
    pid_start     TEXT NOT NULL DEFAULT '',
    UNIQUE (campaign_id, boot_id)
);
CREATE TABLE campaign_runs (
    boot INTEGER NOT NULL REFERENCES campaign_boots (id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    run  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,  -- not run_id: not a part of the run
    PRIMARY KEY (boot, step, run)
);
CREATE INDEX campaign_runs_run ON campaign_runs (run);

-- Each block an import stored (a repetition: one run of the tool, a file, a slice; a perf stat -r
-- summary) by the XXH3-128 hash of its content, 32 hex digits. Runs imported before have none: their
-- content is not known. Part of the run: merge and export copy it with the run.
CREATE TABLE import_blocks (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    repetition INTEGER NOT NULL,  -- repetitions.idx in the run
    hash       TEXT NOT NULL,
    PRIMARY KEY (run_id, repetition)
) WITHOUT ROWID;
CREATE INDEX import_blocks_hash ON import_blocks (hash);

-- Code size per label (noisefloor size --label, noisefloor import bloat-o-meter): the new build's
-- symbols against the baseline build's as scripts/bloat-o-meter counts them, one section per table
-- of the script's output (one in its default mode, three with -c) and a row per name whose size
-- changed. A label has one: storing another replaces it. It belongs to no run (no run_id column):
-- merge, export and delete of runs pass it by.
CREATE TABLE code_sizes (
    id         INTEGER PRIMARY KEY,
    label      TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    old_file   TEXT NOT NULL DEFAULT '',  -- size: OLD, the baseline build ('' when imported)
    new_file   TEXT NOT NULL DEFAULT '',  -- size: NEW
    imported   TEXT NOT NULL DEFAULT ''   -- import bloat-o-meter: the file read ('' when measured)
);
CREATE TABLE code_size_sections (
    code_size INTEGER NOT NULL REFERENCES code_sizes (id) ON DELETE CASCADE,
    idx       INTEGER NOT NULL,
    title     TEXT NOT NULL,  -- 'Function' (the default mode), 'Data', 'RO Data' (-c)
    added     INTEGER NOT NULL,
    removed   INTEGER NOT NULL,
    grown     INTEGER NOT NULL,
    shrunk    INTEGER NOT NULL,
    up        INTEGER NOT NULL,  -- bytes
    down      INTEGER NOT NULL,  -- bytes, a positive count
    before    INTEGER,           -- the total line's; NULL when the output had none
    after     INTEGER,
    PRIMARY KEY (code_size, idx)
);
CREATE TABLE code_size_rows (
    code_size INTEGER NOT NULL,
    section   INTEGER NOT NULL,
    idx       INTEGER NOT NULL,  -- the script's order
    name      TEXT NOT NULL,
    old_bytes INTEGER,           -- NULL: added
    new_bytes INTEGER,           -- NULL: removed
    PRIMARY KEY (code_size, section, idx),
    FOREIGN KEY (code_size, section) REFERENCES code_size_sections (code_size, idx) ON DELETE CASCADE
);
)sql";

const std::vector<Migration>& migrations()
{
    static const std::vector<Migration> list = {
        {1, kMigration1}, {2, kMigration2}, {3, kMigration3}, {4, kMigration4},   {5, kMigration5},   {6, kMigration6},
        {7, kMigration7}, {8, kMigration8}, {9, kMigration9}, {10, kMigration10}, {11, kMigration11},
    };
    return list;
}

Result<std::int64_t> pragmaValue(Database& db, const char* name)
{
    auto value = NF_TRY(db.queryOne<std::int64_t>(std::string("PRAGMA ") + name));
    return value.value_or(0);
}

Error newerSchema(const Database& db, std::int64_t version)
{
    return Error{db.path() + " was written by a newer noisefloor (schema " + std::to_string(version) +
                 "; this build reads up to " + std::to_string(schemaVersion()) + ")"};
}

// Refuses a database that belongs to another program: one with another application id, or one
// that has tables but no schema version of ours.
Result<void> checkOwnership(Database& db, std::int64_t version)
{
    const std::int64_t appId = NF_TRY(pragmaValue(db, "application_id"));
    if (appId != 0 && appId != kApplicationId) {
        return Error{db.path() + " is not a noisefloor database (it belongs to another application)"};
    }
    if (version != 0) {
        return {};
    }
    if (NF_TRY(db.queryOne<std::int64_t>("SELECT count(*) FROM sqlite_master")).value_or(0) != 0) {
        return Error{db.path() + " is not a noisefloor database (it has tables but no noisefloor schema)"};
    }
    return {};
}

Result<void> applyMigration(Database& db, const Migration& migration)
{
    auto tx = NF_TRY(Transaction::begin(db));
    // Another process may have migrated between our check and BEGIN IMMEDIATE.
    const std::int64_t version = NF_TRY(pragmaValue(db, "user_version"));
    if (version >= migration.version) {
        return tx.commit();
    }
    if (version == 0) {
        NF_TRY(checkOwnership(db, 0));
    }
    NF_TRY(db.exec(migration.sql).withContext("schema migration " + std::to_string(migration.version) + " failed: "));
    std::string stamp = "PRAGMA user_version = " + std::to_string(migration.version) +
                        "; PRAGMA application_id = " + std::to_string(kApplicationId) + ";";
    NF_TRY(db.exec(stamp));
    return tx.commit();
}

std::string replaceAll(std::string text, const std::string& from, const std::string& to)
{
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

// A new database appears with its schema, all at once: it is made and migrated in a private
// directory beside it (`.runs.db.new-XXXXXX`, mkdtemp: no name another user could guess and plant a
// symlink at), closed (which checkpoints and removes its WAL), then linked into place, so that a
// reader never opens a half-created file. If another writer created `path` meanwhile, theirs is used.
Result<void> createStore(const std::string& path)
{
    const std::filesystem::path target(path);
    NF_TRY(createParentDirectories(path));
    // The directory and SQLite's files in it go on every path, failed or not (a full disk or
    // `ulimit -f` can fail the open, the migration or the close's checkpoint).
    PrivateDir dir = NF_TRY(PrivateDir::create(target.parent_path().empty() ? "." : target.parent_path(),
                                               "." + target.filename().string() + ".new")
                                .withContext("cannot create database " + path + ": "));
    const std::string temp = dir.file(target.filename().string());
    auto named = [&](Error e) {
        e.message = replaceAll(e.message, temp, path);
        return e;
    };
    auto removeTemp = [&dir] { dir.remove(); };
    auto made = [&]() -> Result<void> {
        Database db = NF_TRY(Database::open(temp, Database::Mode::ReadWrite));
        NF_TRY(migrate(db));
        return db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }();  // closed here
    if (!made) {
        removeTemp();
        return named(made.error());
    }
    std::error_code ec;
    if (std::filesystem::exists(temp + "-wal", ec)) {  // the close could not checkpoint: not whole
        removeTemp();
        return Error{"cannot create database " + path + ": its first write did not complete"};
    }
    int linked = ::link(temp.c_str(), path.c_str()) == 0 ? 0 : errno;  // refuses to replace a file
    if (linked == EPERM || linked == EOPNOTSUPP) {                     // no hard links here (vfat, some FUSE)
        linked = ::rename(temp.c_str(), path.c_str()) == 0 ? 0 : errno;
    }
    removeTemp();
    if (linked != 0 && linked != EEXIST) {
        return Error::fromErrno("cannot create database " + path, linked);
    }
    return {};
}

}  // namespace

int schemaVersion()
{
    return migrations().back().version;
}

Result<int> storedSchemaVersion(Database& db)
{
    return static_cast<int>(NF_TRY(pragmaValue(db, "user_version")));
}

Result<void> migrate(Database& db)
{
    NF_TRY(registerSampleChecksum(db.handle()));
    const std::int64_t version = NF_TRY(pragmaValue(db, "user_version"));
    NF_TRY(checkOwnership(db, version));
    if (version > schemaVersion()) {
        return newerSchema(db, version);
    }
    for (const Migration& migration : migrations()) {
        if (migration.version > version) {
            NF_TRY(applyMigration(db, migration));
        }
    }
    return {};
}

Result<Database> openStore(const std::string& path, Database::Mode mode)
{
    std::error_code ec;
    if (mode == Database::Mode::ReadWrite && !std::filesystem::exists(path, ec) && !ec) {
        NF_TRY(createStore(path));
    }
    Database db = NF_TRY(Database::open(path, mode));
    NF_TRY(registerSampleChecksum(db.handle()));
    if (mode == Database::Mode::ReadWrite) {
        NF_TRY(migrate(db));
        return db;
    }
    const std::int64_t version = NF_TRY(pragmaValue(db, "user_version"));
    NF_TRY(checkOwnership(db, version));
    if (version > schemaVersion()) {
        return newerSchema(db, version);
    }
    if (version == 0) {
        return Error{path + " is not a noisefloor database (no noisefloor schema)"};
    }
    return db;
}

std::string defaultDatabasePath()
{
    auto env = [](const char* name) -> std::string {
        const char* value = std::getenv(name);
        return value != nullptr ? value : "";
    };
    if (std::string db = env("NOISEFLOOR_DB"); !db.empty()) {
        return db;
    }
    // The XDG spec says relative values are invalid and should be ignored.
    if (std::string xdg = env("XDG_DATA_HOME"); !xdg.empty() && xdg.front() == '/') {
        return xdg + "/noisefloor/runs.db";
    }
    std::string home = env("HOME");
    if (home.empty()) {
        passwd entry{};
        passwd* pw = nullptr;
        std::vector<char> buffer(16384);
        if (getpwuid_r(getuid(), &entry, buffer.data(), buffer.size(), &pw) == 0 && pw != nullptr &&
            pw->pw_dir != nullptr) {
            home = pw->pw_dir;
        }
    }
    if (home.empty()) {
        return "runs.db";
    }
    return home + "/.local/share/noisefloor/runs.db";
}

}  // namespace nf::data
