#pragma once
// Runs copied from another noisefloor database into this one, sample for sample: the run a remote
// device under test stored, fetched by the desktop app (`noisefloor-gui --host`), or a lab
// machine's database merged by `noisefloor merge`. A copy gets new ids here; everything else (spec,
// environment, variants, metrics, repetitions, samples, summaries, warnings, decisions, profiles, the
// content hashes of imported blocks) is the source's, and its environment says where it came from
// ("copied_from").

#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "data/database.h"

namespace nf::data {

struct CopiedRun {
    std::int64_t sourceId = 0;
    std::int64_t id = 0;  // here; for a run skipped, 0
    std::string skipped;  // why it was not copied ("already here as run 12", "still running"), else ""
};

// Copies `runs` (every run when empty) of the database at `fromPath` into `to`, in one
// transaction: all of them or none. A source written by an older noisefloor is upgraded in a
// temporary copy (the file itself is only read); a newer one is refused, as is a file that is not
// a noisefloor database or a run id it does not hold. A run still running there is skipped, and so
// is one already here (the same start time, host, workload, label and spec, and the same LAVA
// job, if any). `origin` names the source in the copies' environment (e.g.
// "lab-dut:~/.local/share/noisefloor/runs.db").
// The source is not trusted: it must pass SQLite's integrity check (with `checkIntegrity`), and
// every run copied must be readable here (its spec JSON a spec, each sample's value blob 8 bytes
// per quantity of the run); the first that is not is refused, naming the run, and nothing is
// stored. Once `stop` is requested the copy ends (a read that takes long is interrupted) and
// nothing is stored either.
Result<std::vector<CopiedRun>> copyRuns(Database& to, const std::string& fromPath,
                                        const std::vector<std::int64_t>& runs, const std::string& origin,
                                        const std::stop_token& stop = {}, bool checkIntegrity = true);

// Deletes run `id` and every row of it (variants, repetitions, samples, ...) in one transaction.
// Refuses a run still running whose writer is alive; one whose writer is gone can be deleted.
Result<void> deleteRun(Database& db, std::int64_t id);

// Writes run `id` of `from` into a new database file at `path` (which must not exist): the one-run
// database that `noisefloor export --format sqlite` sends.
Result<void> writeRunDatabase(Database& from, std::int64_t id, const std::string& path);

// The tables that hold a run's rows, in the order a copy fills them.
const std::vector<std::string>& perRunTables();

}  // namespace nf::data
