#pragma once
// Small RAII wrappers over the SQLite C API: Database owns the handle, Statement is move-only and
// binds by copy, Transaction rolls back in its destructor unless commit() ran.

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"

namespace nf::data {

class Statement;

class Database {
public:
    enum class Mode { ReadWrite, ReadOnly };

    // Opens (ReadWrite: creates on demand, with parent directories) and configures the connection:
    // WAL, foreign keys on, busy timeout 5 s. Does not migrate; see openStore() in schema.h.
    // A file that is not an SQLite database fails here with a message naming the path. A ReadOnly
    // open of a database on a read-only file system (where SQLite cannot make the WAL's -shm file)
    // reads it as immutable: nobody can change it there.
    static Result<Database> open(const std::string& path, Mode mode = Mode::ReadWrite);

    Result<void> exec(std::string_view sql);  // one or more statements, no results
    Result<Statement> prepare(std::string_view sql);
    std::int64_t lastInsertId() const;
    const std::string& path() const { return m_path; }
    sqlite3* handle() const { return m_db.get(); }
    std::string errorMessage() const;  // sqlite3_errmsg
    // Whether the file at path() is still the one opened: a database deleted or replaced (by
    // rename, or a new file under the same name) while it is open is written to a file nobody
    // will read, so a run must not say it was stored.
    Result<void> stillAtPath() const;

private:
    struct Closer {
        void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
    };
    Database(sqlite3* db, std::string path) : m_db(db), m_path(std::move(path)) {}
    static Result<Database> connect(const std::string& path, Mode mode, bool immutable);
    std::unique_ptr<sqlite3, Closer> m_db;
    std::string m_path;
    std::uint64_t m_device = 0;  // of the file opened, 0 = not known
    std::uint64_t m_inode = 0;
};

class Statement {
public:
    // Binding is 1-based like sqlite3_bind_*; text and blobs are copied (SQLITE_TRANSIENT).
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view value);
    Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
    Statement& bind(int index, std::span<const unsigned char> blob);
    Statement& bindNull(int index);
    template <typename T>
    Statement& bind(int index, const std::optional<T>& value)
    {
        return value ? bind(index, *value) : bindNull(index);
    }

    // step(): true while a row is available, false when done; an error becomes an Error.
    Result<bool> step();
    Result<void> run();  // step to completion, then reset
    void reset();        // reset and clear bindings

    bool isNull(int column) const;
    std::int64_t int64(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    // The column's bytes, valid until the next step() or reset(); empty for NULL or a zero-length blob.
    std::span<const unsigned char> blob(int column) const;

private:
    friend class Database;
    struct Finalizer {
        void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
    };
    Statement(sqlite3_stmt* stmt, sqlite3* db) : m_stmt(stmt), m_db(db) {}
    std::unique_ptr<sqlite3_stmt, Finalizer> m_stmt;
    sqlite3* m_db = nullptr;
};

class Transaction {
public:
    // BEGIN IMMEDIATE (takes the write lock now, so a busy database fails here, not mid-way).
    // Inside another transaction it is a SAVEPOINT instead: its commit() then only counts once the
    // outer transaction commits, so several steps can be made all-or-nothing together.
    static Result<Transaction> begin(Database& db);
    Transaction(Transaction&& other) noexcept;
    Transaction& operator=(Transaction&&) = delete;
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction();  // ROLLBACK unless committed

    Result<void> commit();

private:
    Transaction(Database& db, bool nested) : m_db(&db), m_nested(nested) {}
    Database* m_db;
    bool m_nested = false;
    bool m_done = false;
};

}  // namespace nf::data
