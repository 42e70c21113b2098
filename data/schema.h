#pragma once
// The schema and its numbered migrations, applied with PRAGMA user_version.

#include <string>

#include "data/database.h"

namespace nf::data {

// The schema version this build writes.
int schemaVersion();
// The version `db` holds (a read-only open of an older database is read as it is).
Result<int> storedSchemaVersion(Database& db);

// Brings the database up to schemaVersion(): each migration runs inside
// BEGIN IMMEDIATE ... PRAGMA user_version = N; COMMIT. A database whose user_version is newer than
// this build is refused: "runs.db was written by a newer noisefloor (schema 7, this build reads up
// to 1)".
Result<void> migrate(Database& db);

// Open + migrate. A ReadOnly open does not migrate: it reads a database at or below
// schemaVersion() as it is, and refuses a newer one.
Result<Database> openStore(const std::string& path, Database::Mode mode = Database::Mode::ReadWrite);

// $NOISEFLOOR_DB, else $XDG_DATA_HOME/noisefloor/runs.db, else ~/.local/share/noisefloor/runs.db.
std::string defaultDatabasePath();

}  // namespace nf::data
