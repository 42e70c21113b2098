#include "ui/store.h"

#include "base/result.h"
#include "data/schema.h"

namespace nf::ui {

Result<std::shared_ptr<Store>> Store::open(const QString& path)
{
    auto db = NF_TRY(data::openStore(path.toStdString(), data::Database::Mode::ReadOnly));
    return std::shared_ptr<Store>(new Store(std::move(db), path));
}

std::optional<std::int64_t> Store::dataVersion()
{
    return read([](data::Database& db) -> std::optional<std::int64_t> {
        auto statement = db.prepare("PRAGMA data_version");
        if (!statement) {
            return std::nullopt;
        }
        auto row = statement->step();
        if (!row || !*row) {
            return std::nullopt;
        }
        return statement->int64(0);
    });
}

}  // namespace nf::ui
