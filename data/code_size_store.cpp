#include "data/code_size_store.h"

namespace nf::data {

Result<std::int64_t> storeCodeSize(Database& db, const engine::CodeSizeRecord& record)
{
    auto tx = NF_TRY(Transaction::begin(db));
    NF_TRY(db.run("DELETE FROM code_sizes WHERE label = ?", record.label));  // its sections and rows with it
    NF_TRY(
        db.run("INSERT INTO code_sizes (label, created_at, old_file, new_file, imported) VALUES (?, "
               "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?, ?, ?)",
               record.label, record.oldFile, record.newFile, record.imported));
    const std::int64_t id = db.lastInsertId();
    auto row =
        NF_TRY(db.prepare("INSERT INTO code_size_rows (code_size, section, idx, name, old_bytes, new_bytes) "
                          "VALUES (?, ?, ?, ?, ?, ?)"));
    for (std::size_t k = 0; k < record.diff.sections.size(); ++k) {
        const auto& s = record.diff.sections[k];
        const auto section = static_cast<std::int64_t>(k);
        NF_TRY(
            db.run("INSERT INTO code_size_sections (code_size, idx, title, added, removed, grown, shrunk, up, down, "
                   "before, after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   id, section, s.title, s.added, s.removed, s.grown, s.shrunk, s.up, s.down, s.before, s.after));
        for (std::size_t i = 0; i < s.rows.size(); ++i) {
            const auto& r = s.rows[i];
            NF_TRY(row.bindAll(id, section, static_cast<std::int64_t>(i), r.name, r.oldBytes, r.newBytes).run());
        }
    }
    NF_TRY(tx.commit());
    return id;
}

Result<std::optional<engine::CodeSizeRecord>> codeSizeFor(Database& db, const std::string& label)
{
    // A database opened read-only before code sizes were stored has no such table.
    if (!NF_TRY(
            db.queryOne<std::int64_t>("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'code_sizes'"))) {
        return std::optional<engine::CodeSizeRecord>();
    }
    const auto found = NF_TRY((db.queryOne<std::int64_t, std::string, std::string, std::string, std::string>(
        "SELECT id, created_at, old_file, new_file, imported FROM code_sizes WHERE label = ? ORDER BY id DESC",
        label)));
    if (!found) {
        return std::optional<engine::CodeSizeRecord>();
    }
    const auto& [id, createdAt, oldFile, newFile, imported] = *found;
    engine::CodeSizeRecord record{label, createdAt, oldFile, newFile, imported, {}};
    NF_TRY(
        db.forEachRow("SELECT title, added, removed, grown, shrunk, up, down, before, after FROM code_size_sections "
                      "WHERE code_size = ? ORDER BY idx",
                      id, [&](const Row& row) -> Result<void> {
                          engine::CodeSizeSection s;
                          s.title = NF_TRY(row.get<std::string>("title"));
                          s.added = NF_TRY(row.get<int>("added"));
                          s.removed = NF_TRY(row.get<int>("removed"));
                          s.grown = NF_TRY(row.get<int>("grown"));
                          s.shrunk = NF_TRY(row.get<int>("shrunk"));
                          s.up = NF_TRY(row.get<std::int64_t>("up"));
                          s.down = NF_TRY(row.get<std::int64_t>("down"));
                          s.before = NF_TRY(row.get<std::optional<std::int64_t>>("before"));
                          s.after = NF_TRY(row.get<std::optional<std::int64_t>>("after"));
                          record.diff.sections.push_back(std::move(s));
                          return {};
                      }));
    NF_TRY(db.forEachRow(
        "SELECT section, name, old_bytes, new_bytes FROM code_size_rows WHERE code_size = ? ORDER BY section, idx", id,
        [&](const Row& row) -> Result<void> {
            const auto section = NF_TRY(row.get<std::int64_t>("section"));
            if (section < 0 || static_cast<std::size_t>(section) >= record.diff.sections.size()) {
                return Error{"code size of '" + label + "': a row of section " + std::to_string(section) +
                             ", which it does not have"};
            }
            record.diff.sections[static_cast<std::size_t>(section)].rows.push_back(
                {NF_TRY(row.get<std::string>("name")), NF_TRY(row.get<std::optional<std::int64_t>>("old_bytes")),
                 NF_TRY(row.get<std::optional<std::int64_t>>("new_bytes"))});
            return {};
        }));
    return std::optional<engine::CodeSizeRecord>(std::move(record));
}

}  // namespace nf::data
