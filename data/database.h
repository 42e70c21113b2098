#pragma once
// Small RAII wrappers over the SQLite C API: Database owns the handle, Statement is move-only and
// binds by copy (every bind checked), Transaction rolls back in its destructor unless commit() ran.
// Queries read typed rows: db.query<std::int64_t, std::string>(sql, params...) for a result that
// fits in memory, db.forEachRow(sql, params..., [](const Row& row) -> Result<void>) to stream one,
// with columns by index or by name (row.get<std::string>("label")).

#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/result.h"

namespace nf::data {

class Statement;
class Row;

namespace detail {

template <typename T>
struct IsOptional : std::false_type {
};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {
};

template <typename... Ts>
struct RowOf {
    using Type = std::tuple<Ts...>;
};
template <typename T>
struct RowOf<T> {
    using Type = T;
};

template <typename T>
struct AlwaysFalse : std::false_type {
};

}  // namespace detail

// What a typed query returns per row: the value itself for one column, a tuple for several.
template <typename... Ts>
using RowOf = typename detail::RowOf<Ts...>::Type;

// Each missing directory above `path`, made with mode 0755 whatever the umask.
Result<void> createParentDirectories(const std::string& path);

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

    // One statement with its parameters bound in order (1, 2, ...), stepped to completion.
    template <typename... Params>
    Result<void> run(std::string_view sql, const Params&... params);
    // Every row of a query, each read as Ts (Row::get): a column count other than sizeof...(Ts), a
    // NULL where Ts is not an optional, or a value of another type is an Error naming the column.
    template <typename... Ts, typename... Params>
    Result<std::vector<RowOf<Ts...>>> query(std::string_view sql, const Params&... params);
    // The first row of a query, or nullopt when it has none.
    template <typename... Ts, typename... Params>
    Result<std::optional<RowOf<Ts...>>> queryOne(std::string_view sql, const Params&... params);
    // forEachRow(sql, params..., onRow): calls onRow for each row as it is stepped to, without
    // holding the result; onRow takes a const Row& (checked reads, by index or name) or, on a hot
    // path, the const Statement& (unchecked reads), and returns Result<void> (an error stops the
    // query and is returned) or nothing.
    template <typename... ParamsThenOnRow>
    Result<void> forEachRow(std::string_view sql, ParamsThenOnRow&&... paramsThenOnRow);

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
    // Binding is 1-based like sqlite3_bind_*; text and blobs are copied (SQLITE_TRANSIENT). A bind
    // SQLite refuses (an index out of range, a value too big) is kept, and the next step() or run()
    // returns it, naming the parameter and the statement, without stepping; reset() forgets it.
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
    // The largest parameter index the statement uses (?NNN counts as NNN).
    int parameterCount() const;
    // params bound to 1, 2, ... in order.
    template <typename... Params>
    Statement& bindAll(const Params&... params)
    {
        int index = 0;
        (bind(++index, params), ...);
        return *this;
    }

    // step(): true while a row is available, false when done; an error becomes an Error.
    Result<bool> step();
    Result<void> run();  // step to completion, then reset
    void reset();        // reset and clear bindings (and a failed bind)

    // The rest of the rows (Database::query, queryOne, forEachRow with a prepared statement, for one
    // that runs with several bindings); each resets the statement when it is done.
    template <typename... Ts>
    Result<std::vector<RowOf<Ts...>>> readAll();
    template <typename... Ts>
    Result<std::optional<RowOf<Ts...>>> readOne();
    template <typename OnRow>
    Result<void> forEachRow(OnRow&& onRow);

    // Unchecked reads of the current row, for hot loops: SQLite converts what the column holds (a
    // NULL reads as 0 or ""). Row::get checks instead.
    bool isNull(int column) const;
    std::int64_t int64(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    // The column's bytes, valid until the next step() or reset(); empty for NULL or a zero-length blob.
    std::span<const unsigned char> blob(int column) const;

    // The index of the result column called `name` (its AS name), or an Error naming the statement.
    // The names are read once per statement; a lookup starts after the previous hit, so columns read
    // in their SELECT order are found at the first comparison.
    Result<int> columnIndex(std::string_view name) const;
    // "column 3 (label) of `SELECT id, label FROM ...`: <what>", as an Error naming the database.
    Error columnError(int column, const std::string& what) const;

private:
    friend class Database;
    friend class Row;
    struct Finalizer {
        void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
    };
    Statement(sqlite3_stmt* stmt, sqlite3* db) : m_stmt(stmt), m_db(db) {}
    Statement& checkBind(int rc, int index);
    Result<void> checkColumnCount(int expected) const;
    std::unique_ptr<sqlite3_stmt, Finalizer> m_stmt;
    sqlite3* m_db = nullptr;
    std::optional<Error> m_bindError;                // the first bind SQLite refused since the last reset
    mutable std::vector<std::string> m_columnNames;  // filled by the first columnIndex()
    mutable std::size_t m_nextColumn = 0;            // where columnIndex() looks first
};

// The current row of a statement, read with checks: get<T>(column) is the value as T, or an Error
// naming the column and the statement. T is std::int64_t, int (in range) or bool for an INTEGER;
// double for a REAL or an INTEGER; std::string for TEXT; std::vector<unsigned char> for a BLOB, or
// std::span<const unsigned char> (valid until the next step); std::optional<T> of any of them, which
// reads NULL as nullopt. A NULL read as anything else is an Error, as is a column out of range, an
// unknown name, or a value of another type (no conversion, unlike Statement's unchecked reads).
class Row {
public:
    explicit Row(const Statement& stmt) : m_stmt(&stmt) {}

    template <typename T>
    Result<T> get(int column) const;
    template <typename T>
    Result<T> get(std::string_view name) const
    {
        return m_stmt->columnIndex(name).andThen([&](int column) { return get<T>(column); });
    }
    // The columns from the first on, as RowOf<Ts...>.
    template <typename... Ts>
    Result<RowOf<Ts...>> as() const;

    int columnCount() const;
    const Statement& statement() const { return *m_stmt; }

private:
    template <typename T>
    Result<T> plain(int column, int type) const;
    template <typename... Ts, std::size_t... I>
    Result<std::tuple<Ts...>> tuple(std::index_sequence<I...> /*unused*/) const;
    // The column's SQLite type (SQLITE_INTEGER ...), or an Error for a column the row does not have.
    Result<int> typeOf(int column) const;
    // "holds text, expected an integer", "is NULL, expected text".
    Error typeError(int column, int type, const char* expected) const;

    const Statement* m_stmt;
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

// --- templates ---

template <typename T>
Result<T> Row::get(int column) const
{
    const int type = NF_TRY(typeOf(column));
    if constexpr (detail::IsOptional<T>::value) {
        if (type == SQLITE_NULL) {
            return T{};
        }
        return T(NF_TRY(plain<typename T::value_type>(column, type)));
    } else {
        return plain<T>(column, type);
    }
}

template <typename T>
Result<T> Row::plain(int column, int type) const
{
    if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, int> || std::is_same_v<T, bool>) {
        if (type != SQLITE_INTEGER) {
            return typeError(column, type, "an integer");
        }
        const std::int64_t value = m_stmt->int64(column);
        if constexpr (std::is_same_v<T, int>) {
            if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
                return m_stmt->columnError(column, std::to_string(value) + " is out of range for an int");
            }
            return static_cast<int>(value);
        } else if constexpr (std::is_same_v<T, bool>) {
            return value != 0;
        } else {
            return value;
        }
    } else if constexpr (std::is_same_v<T, double>) {
        if (type != SQLITE_FLOAT && type != SQLITE_INTEGER) {
            return typeError(column, type, "a number");
        }
        return m_stmt->real(column);
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (type != SQLITE_TEXT) {
            return typeError(column, type, "text");
        }
        return m_stmt->text(column);
    } else if constexpr (std::is_same_v<T, std::span<const unsigned char>> ||
                         std::is_same_v<T, std::vector<unsigned char>>) {
        if (type != SQLITE_BLOB) {
            return typeError(column, type, "a blob");
        }
        const std::span<const unsigned char> bytes = m_stmt->blob(column);
        return T(bytes.begin(), bytes.end());
    } else {
        static_assert(detail::AlwaysFalse<T>::value,
                      "Row::get reads std::int64_t, int, bool, double, std::string, "
                      "a blob, or an std::optional of one");
    }
}

template <typename... Ts, std::size_t... I>
Result<std::tuple<Ts...>> Row::tuple(std::index_sequence<I...> /*unused*/) const
{
    std::tuple<Ts...> values;
    std::optional<Error> failed;
    auto read = [&](auto& into, int column) {
        if (failed) {
            return;
        }
        auto value = get<std::remove_cvref_t<decltype(into)>>(column);
        if (value) {
            into = std::move(value).value();
        } else {
            failed = value.error();
        }
    };
    (read(std::get<I>(values), static_cast<int>(I)), ...);
    if (failed) {
        return *failed;
    }
    return values;
}

template <typename... Ts>
Result<RowOf<Ts...>> Row::as() const
{
    if constexpr (sizeof...(Ts) == 1) {
        return get<Ts...>(0);
    } else {
        return tuple<Ts...>(std::index_sequence_for<Ts...>{});
    }
}

template <typename OnRow>
Result<void> Statement::forEachRow(OnRow&& onRow)
{
    auto rows = [&]() -> Result<void> {
        const Row row(*this);
        while (NF_TRY(step())) {
            if constexpr (std::is_invocable_v<OnRow&, const Row&>) {
                if constexpr (std::is_void_v<std::invoke_result_t<OnRow&, const Row&>>) {
                    onRow(row);
                } else {
                    NF_TRY(onRow(row));
                }
            } else if constexpr (std::is_void_v<std::invoke_result_t<OnRow&, const Statement&>>) {
                onRow(std::as_const(*this));
            } else {
                NF_TRY(onRow(std::as_const(*this)));
            }
        }
        return {};
    }();
    reset();
    return rows;
}

template <typename... Ts>
Result<std::vector<RowOf<Ts...>>> Statement::readAll()
{
    std::vector<RowOf<Ts...>> rows;
    auto read = checkColumnCount(sizeof...(Ts)).andThen([&] {
        return forEachRow([&](const Row& row) -> Result<void> {
            rows.push_back(NF_TRY(row.as<Ts...>()));
            return {};
        });
    });
    if (!read) {
        reset();
        return read.error();
    }
    return rows;
}

template <typename... Ts>
Result<std::optional<RowOf<Ts...>>> Statement::readOne()
{
    auto first = [&]() -> Result<std::optional<RowOf<Ts...>>> {
        NF_TRY(checkColumnCount(sizeof...(Ts)));
        if (!NF_TRY(step())) {
            return std::optional<RowOf<Ts...>>();
        }
        return std::optional<RowOf<Ts...>>(NF_TRY(Row(*this).as<Ts...>()));
    }();
    reset();
    return first;
}

template <typename... Params>
Result<void> Database::run(std::string_view sql, const Params&... params)
{
    Statement stmt = NF_TRY(prepare(sql));
    return stmt.bindAll(params...).run();
}

template <typename... Ts, typename... Params>
Result<std::vector<RowOf<Ts...>>> Database::query(std::string_view sql, const Params&... params)
{
    Statement stmt = NF_TRY(prepare(sql));
    return stmt.bindAll(params...).template readAll<Ts...>();
}

template <typename... Ts, typename... Params>
Result<std::optional<RowOf<Ts...>>> Database::queryOne(std::string_view sql, const Params&... params)
{
    Statement stmt = NF_TRY(prepare(sql));
    return stmt.bindAll(params...).template readOne<Ts...>();
}

template <typename... ParamsThenOnRow>
Result<void> Database::forEachRow(std::string_view sql, ParamsThenOnRow&&... paramsThenOnRow)
{
    static_assert(sizeof...(ParamsThenOnRow) >= 1, "forEachRow(sql, params..., onRow)");
    constexpr std::size_t kParams = sizeof...(ParamsThenOnRow) - 1;
    Statement stmt = NF_TRY(prepare(sql));
    auto args = std::forward_as_tuple(std::forward<ParamsThenOnRow>(paramsThenOnRow)...);
    [&]<std::size_t... I>(std::index_sequence<I...> /*unused*/)
    {
        stmt.bindAll(std::get<I>(args)...);
    }
    (std::make_index_sequence<kParams>{});
    return stmt.forEachRow(std::get<kParams>(args));
}

}  // namespace nf::data
