#pragma once
// The one connection to the database file in this process.
//
// SQLite's locks on a database are POSIX advisory locks, and they belong to the process: closing
// any descriptor of the file (or of its -wal or -shm) drops every lock the process holds on it.
// A second open()/close() of the file anywhere in the GUI - a file dialog sniffing a file's type,
// a second connection closed early - therefore lets a writer delete the WAL under this process,
// whose view then goes stale or "malformed". So the GUI opens the database once: this object
// owns the only connection, lives until another database is chosen, and every read (the GUI
// thread's run list, the loader thread's runs and sweeps) goes through it under one mutex.
// File dialogs never open the files they list (ui/file_dialog.h).

#include <QString>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "data/database.h"

namespace nf::ui {

class Store {
public:
    // Opens `path` read-only (data::openStore: its schema checked); the error says why not.
    static Result<std::shared_ptr<Store>> open(const QString& path);

    // Runs `reader(db)` with the connection, one caller at a time (any thread).
    template <typename F>
    auto read(F&& reader)
    {
        const std::lock_guard lock(m_mutex);
        return std::forward<F>(reader)(m_db);
    }

    // SQLite's PRAGMA data_version: it changes when another connection commits to the file.
    std::optional<std::int64_t> dataVersion();

    const QString& path() const { return m_path; }

private:
    Store(data::Database db, QString path) : m_db(std::move(db)), m_path(std::move(path)) {}

    std::mutex m_mutex;
    data::Database m_db;
    QString m_path;
};

}  // namespace nf::ui
