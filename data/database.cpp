#include "data/database.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "data/sqlite_uri.h"

namespace nf::data {
namespace {

constexpr int kBusyTimeoutMs = 5000;

// The errno behind a failed open. SQLite retries a failed read-write open read-only, so its last
// errno can be ENOENT where the real reason was EACCES: ask the file system directly first.
int openFailureErrno(sqlite3* db, const std::string& path, Database::Mode mode)
{
    if (mode == Database::Mode::ReadWrite) {
        std::error_code ec;
        bool exists = std::filesystem::exists(path, ec);
        std::string parent = std::filesystem::path(path).parent_path().string();
        const char* target = exists ? path.c_str() : parent.empty() ? "." : parent.c_str();
        if (access(target, exists ? R_OK | W_OK : W_OK | X_OK) != 0) {
            return errno;
        }
    }
    return db != nullptr ? sqlite3_system_errno(db) : 0;
}

Error openFailure(sqlite3* db, int rc, const std::string& path, Database::Mode mode)
{
    int err = openFailureErrno(db, path, mode);
    std::string reason = err != 0 ? nf::errnoText(err) : db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    return Error{"cannot open database " + path + ": " + reason, err};
}

// SQLite's message, with the system's reason when the failure was the system's ("disk I/O error
// (No space left on device)"); other codes keep SQLite's message alone, as the errno may be stale.
std::string sqliteReason(sqlite3* db, int rc)
{
    std::string reason = sqlite3_errmsg(db);
    const int primary = rc & 0xff;
    const bool system =
        primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY;
    const int err = sqlite3_system_errno(db);
    return system && err != 0 ? reason + " (" + nf::errnoText(err) + ")" : reason;
}

// True when `path` is on a read-only file system and has no WAL content that an immutable read
// would miss.
bool readOnlyFileSystem(const std::string& path)
{
    std::string parent = std::filesystem::path(path).parent_path().string();
    struct statvfs fs {};
    if (statvfs(parent.empty() ? "." : parent.c_str(), &fs) != 0 || (fs.f_flag & ST_RDONLY) == 0) {
        return false;
    }
    std::error_code ec;
    const auto walSize = std::filesystem::file_size(path + "-wal", ec);
    return ec || walSize == 0;
}

// "file:" URI of `path` with immutable=1; '%', '?' and '#' escaped.
std::string immutableUri(const std::string& path)
{
    return fileUri(path, "immutable=1");
}

// Reading the header is the first thing that touches the file's contents: a file that is not a
// database fails here with SQLITE_NOTADB.
Result<void> checkIsDatabase(sqlite3* db, const std::string& path)
{
    int rc = sqlite3_exec(db, "PRAGMA schema_version", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) {
        return {};
    }
    std::string reason = sqliteReason(db, rc);
    if ((rc & 0xff) == SQLITE_NOTADB) {
        return Error{path + " is not a noisefloor database (" + reason + ")"};
    }
    return Error{"cannot read " + path + ": " + reason};
}

Result<void> configure(sqlite3* db, const std::string& path, Database::Mode mode)
{
    std::string sql = "PRAGMA foreign_keys = ON;";
    if (mode == Database::Mode::ReadWrite) {
        sql += "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;";
    }
    char* message = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    if (rc == SQLITE_OK) {
        return {};
    }
    std::string reason = message != nullptr ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    if (const int err = sqlite3_system_errno(db); err != 0 && (rc & 0xff) == SQLITE_IOERR) {
        reason += " (" + nf::errnoText(err) + ")";
    }
    return Error{"cannot configure " + path + ": " + reason};
}

}  // namespace

Result<void> createParentDirectories(const std::string& path)
{
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (parent.empty()) {
        return {};
    }
    // Each missing level with an explicit mode (a umask can only take bits away from 0755).
    std::filesystem::path sofar;
    for (const auto& part : parent) {
        sofar /= part;
        if (::mkdir(sofar.c_str(), 0755) != 0 && errno != EEXIST) {
            const int err = errno;
            return Error{"cannot create directory " + sofar.string() + " for " + path + ": " + nf::errnoText(err), err};
        }
    }
    return {};
}

std::string fileUri(const std::string& path, const std::string& query)
{
    std::string uri = "file:";
    for (char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            const char* hex = "0123456789abcdef";
            uri += '%';
            uri += hex[(static_cast<unsigned char>(c) >> 4) & 0xf];
            uri += hex[static_cast<unsigned char>(c) & 0xf];
        } else {
            uri += c;
        }
    }
    return uri + "?" + query;
}

Result<Database> Database::open(const std::string& path, Mode mode)
{
    auto db = connect(path, mode, false);
    if (!db && mode == Mode::ReadOnly && readOnlyFileSystem(path)) {
        if (auto immutable = connect(path, mode, true)) {
            return immutable;
        }
    }
    return db;
}

Result<Database> Database::connect(const std::string& path, Mode mode, bool immutable)
{
    int flags = SQLITE_OPEN_READONLY | (immutable ? SQLITE_OPEN_URI : 0);
    if (mode == Mode::ReadWrite) {
        // URIs only for what ATTACH is given (fileUri: a source attached read-only); a path
        // that does not start with "file:" is a path as before.
        flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI;
        NF_TRY(createParentDirectories(path));
    }
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(immutable ? immutableUri(path).c_str() : path.c_str(), &raw, flags, nullptr);
    Database db(raw, path);  // owns the handle even when the open failed
    if (rc != SQLITE_OK) {
        return openFailure(raw, rc, path, mode);
    }
    if (mode == Mode::ReadWrite && sqlite3_db_readonly(raw, "main") == 1) {  // SQLite's silent fallback
        return openFailure(raw, SQLITE_READONLY, path, mode);
    }
    sqlite3_extended_result_codes(raw, 1);
    sqlite3_busy_timeout(raw, kBusyTimeoutMs);
    NF_TRY(checkIsDatabase(raw, path));
    NF_TRY(configure(raw, path, mode));
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        db.m_device = st.st_dev;
        db.m_inode = st.st_ino;
    }
    return db;
}

Result<void> Database::stillAtPath() const
{
    if (m_inode == 0) {
        return {};
    }
    struct stat st {};
    if (::stat(m_path.c_str(), &st) != 0) {
        return Error::fromErrno("database " + m_path + " was removed while open");
    }
    if (st.st_dev != m_device || st.st_ino != m_inode) {
        return Error{"database " + m_path + " was replaced by another file while open"};
    }
    return {};
}

Result<void> Database::exec(std::string_view sql)
{
    std::string text(sql);
    char* message = nullptr;
    int rc = sqlite3_exec(m_db.get(), text.c_str(), nullptr, nullptr, &message);
    if (rc == SQLITE_OK) {
        return {};
    }
    std::string reason = message != nullptr ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return Error{"database error in " + m_path + ": " + reason};
}

Result<Statement> Database::prepare(std::string_view sql)
{
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(m_db.get(), sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(stmt);
        return Error{"cannot prepare statement on " + m_path + ": " + errorMessage()};
    }
    if (stmt == nullptr) {
        return Error{"cannot prepare statement on " + m_path + ": empty SQL"};
    }
    return Statement(stmt, m_db.get());
}

std::int64_t Database::lastInsertId() const
{
    return sqlite3_last_insert_rowid(m_db.get());
}

std::string Database::errorMessage() const
{
    return sqlite3_errmsg(m_db.get());
}

// --- Statement ---

namespace {

// The statement's SQL on one line, cut after about kShortSql characters: enough to tell which it is.
std::string shortSql(sqlite3_stmt* stmt)
{
    constexpr std::size_t kShortSql = 60;
    const char* sql = sqlite3_sql(stmt);
    std::string out;
    for (const char* c = sql != nullptr ? sql : ""; *c != '\0'; ++c) {
        const bool space = *c == ' ' || *c == '\n' || *c == '\t' || *c == '\r';
        if (space && (out.empty() || out.back() == ' ')) {
            continue;
        }
        if (out.size() == kShortSql) {  // cut at the last word that fits
            const std::size_t lastWord = out.rfind(' ');
            return out.substr(0, lastWord != std::string::npos ? lastWord : out.size()) + " ...";
        }
        out += space ? ' ' : *c;
    }
    while (!out.empty() && out.back() == ' ') {
        out.pop_back();
    }
    return out;
}

// The file of the statement's main database, as step() errors name it.
std::string databaseName(sqlite3* db)
{
    const char* file = sqlite3_db_filename(db, "main");
    return file != nullptr && *file != '\0' ? file : "database";
}

const char* typeName(int type)
{
    switch (type) {
        case SQLITE_INTEGER: return "an integer";
        case SQLITE_FLOAT: return "a real";
        case SQLITE_TEXT: return "text";
        case SQLITE_BLOB: return "a blob";
        default: return "NULL";
    }
}

}  // namespace

Statement& Statement::checkBind(int rc, int index)
{
    if (rc == SQLITE_OK || m_bindError) {
        return *this;
    }
    std::string parameter = "parameter " + std::to_string(index);
    if (const char* name = sqlite3_bind_parameter_name(m_stmt.get(), index);
        name != nullptr && name != "?" + std::to_string(index)) {
        parameter += std::string(" (") + name + ")";
    }
    // sqlite3_errmsg says what this bind did ("column index out of range"); errstr if it was replaced.
    const char* reason = sqlite3_errcode(m_db) == rc ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    m_bindError = Error{"database error in " + databaseName(m_db) + ": cannot bind " + parameter + " of `" +
                        shortSql(m_stmt.get()) + "`: " + reason};
    return *this;
}

Statement& Statement::bind(int index, std::int64_t value)
{
    return checkBind(sqlite3_bind_int64(m_stmt.get(), index, value), index);
}

Statement& Statement::bind(int index, double value)
{
    return checkBind(sqlite3_bind_double(m_stmt.get(), index, value), index);  // NaN is stored as NULL
}

Statement& Statement::bind(int index, std::string_view value)
{
    return checkBind(
        sqlite3_bind_text64(m_stmt.get(), index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8), index);
}

Statement& Statement::bind(int index, std::span<const unsigned char> blob)
{
    // A zero-length blob, not NULL, even when data() is null.
    static const unsigned char kEmpty = 0;
    const void* data = blob.data() != nullptr ? static_cast<const void*>(blob.data()) : &kEmpty;
    return checkBind(sqlite3_bind_blob64(m_stmt.get(), index, data, blob.size(), SQLITE_TRANSIENT), index);
}

Statement& Statement::bindNull(int index)
{
    return checkBind(sqlite3_bind_null(m_stmt.get(), index), index);
}

int Statement::parameterCount() const
{
    return sqlite3_bind_parameter_count(m_stmt.get());
}

Result<bool> Statement::step()
{
    if (m_bindError) {
        return *m_bindError;
    }
    int rc = sqlite3_step(m_stmt.get());
    if (rc == SQLITE_ROW) {
        return true;
    }
    if (rc == SQLITE_DONE) {
        return false;
    }
    return Error{"database error in " + databaseName(m_db) + ": " + sqliteReason(m_db, rc)};
}

Result<void> Statement::run()
{
    for (;;) {
        Result<bool> more = step();
        if (!more) {
            reset();
            return more.error();
        }
        if (!*more) {
            break;
        }
    }
    reset();
    return {};
}

void Statement::reset()
{
    sqlite3_reset(m_stmt.get());
    sqlite3_clear_bindings(m_stmt.get());
    m_bindError.reset();
}

bool Statement::isNull(int column) const
{
    return sqlite3_column_type(m_stmt.get(), column) == SQLITE_NULL;
}

std::int64_t Statement::int64(int column) const
{
    return sqlite3_column_int64(m_stmt.get(), column);
}

double Statement::real(int column) const
{
    return sqlite3_column_double(m_stmt.get(), column);
}

std::string Statement::text(int column) const
{
    const unsigned char* data = sqlite3_column_text(m_stmt.get(), column);
    if (data == nullptr) {
        return {};
    }
    int size = sqlite3_column_bytes(m_stmt.get(), column);
    return std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
}

std::span<const unsigned char> Statement::blob(int column) const
{
    // sqlite3_column_blob first: it may convert the value, which changes what _bytes reports.
    const void* data = sqlite3_column_blob(m_stmt.get(), column);
    if (data == nullptr) {
        return {};
    }
    int size = sqlite3_column_bytes(m_stmt.get(), column);
    return {static_cast<const unsigned char*>(data), static_cast<std::size_t>(size)};
}

Result<int> Statement::columnIndex(std::string_view name) const
{
    if (m_columnNames.empty()) {
        const int count = sqlite3_column_count(m_stmt.get());
        m_columnNames.reserve(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) {
            const char* columnName = sqlite3_column_name(m_stmt.get(), i);
            m_columnNames.emplace_back(columnName != nullptr ? columnName : "");
        }
    }
    const std::size_t count = m_columnNames.size();
    for (std::size_t tried = 0; tried < count; ++tried) {
        const std::size_t at = (m_nextColumn + tried) % count;
        if (m_columnNames[at] == name) {
            m_nextColumn = at + 1;
            return static_cast<int>(at);
        }
    }
    return Error{"database error in " + databaseName(m_db) + ": no column " + std::string(name) + " in `" +
                 shortSql(m_stmt.get()) + "`"};
}

Error Statement::columnError(int column, const std::string& what) const
{
    std::string label = "column " + std::to_string(column);
    if (column >= 0 && column < sqlite3_column_count(m_stmt.get())) {
        const char* name = sqlite3_column_name(m_stmt.get(), column);
        label += std::string(" (") + (name != nullptr ? name : "?") + ")";
    }
    return Error{"database error in " + databaseName(m_db) + ": " + label + " of `" + shortSql(m_stmt.get()) + "` " +
                 what};
}

Result<void> Statement::checkColumnCount(int expected) const
{
    const int count = sqlite3_column_count(m_stmt.get());
    if (count == expected) {
        return {};
    }
    return Error{"database error in " + databaseName(m_db) + ": `" + shortSql(m_stmt.get()) + "` gives " +
                 std::to_string(count) + " columns, read as " + std::to_string(expected)};
}

// --- Row ---

int Row::columnCount() const
{
    return sqlite3_column_count(m_stmt->m_stmt.get());
}

Result<int> Row::typeOf(int column) const
{
    sqlite3_stmt* stmt = m_stmt->m_stmt.get();
    const int count = sqlite3_data_count(stmt);  // 0 when no row is current
    if (column < 0 || column >= count) {
        return m_stmt->columnError(column, count == 0
                                               ? "read with no row current"
                                               : "is not in the result (it has " + std::to_string(count) + " columns)");
    }
    return sqlite3_column_type(stmt, column);
}

Error Row::typeError(int column, int type, const char* expected) const
{
    return m_stmt->columnError(column,
                               (type == SQLITE_NULL ? std::string("is NULL") : std::string("holds ") + typeName(type)) +
                                   ", expected " + expected);
}

// --- Transaction ---

Result<Transaction> Transaction::begin(Database& db)
{
    const bool nested = sqlite3_get_autocommit(db.handle()) == 0;
    NF_TRY(db.exec(nested ? "SAVEPOINT nf_nested" : "BEGIN IMMEDIATE"));
    return Transaction(db, nested);
}

Transaction::Transaction(Transaction&& other) noexcept
    : m_db(other.m_db), m_nested(other.m_nested), m_done(other.m_done)
{
    other.m_done = true;
}

Transaction::~Transaction()
{
    if (m_done || m_db == nullptr || sqlite3_get_autocommit(m_db->handle()) != 0) {
        return;
    }
    const char* undo = m_nested ? "ROLLBACK TO nf_nested; RELEASE nf_nested" : "ROLLBACK";
    sqlite3_exec(m_db->handle(), undo, nullptr, nullptr, nullptr);
}

Result<void> Transaction::commit()
{
    if (m_done) {
        return Error{"transaction on " + m_db->path() + " already finished"};
    }
    NF_TRY(m_db->exec(m_nested ? "RELEASE nf_nested" : "COMMIT"));
    m_done = true;
    return {};
}

}  // namespace nf::data
