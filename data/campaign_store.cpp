#include "data/campaign_store.h"

#include <sqlite3.h>

#include <algorithm>

namespace nf::data {
namespace {

constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

Result<std::vector<engine::CampaignBoot>> loadBoots(Database& db, std::int64_t campaignId)
{
    std::vector<engine::CampaignBoot> boots;
    NF_TRY(db.forEachRow(
        "SELECT id, slot, kernel, boot_id, identity_json, status, status_reason, started_at, "
        "coalesce(ended_at, '') AS ended_at, pid, pid_start FROM campaign_boots WHERE campaign_id = ? ORDER BY id",
        campaignId, [&](const Row& row) -> Result<void> {
            engine::CampaignBoot b;
            b.id = NF_TRY(row.get<std::int64_t>("id"));
            b.slot = NF_TRY(row.get<int>("slot"));
            b.kernel = NF_TRY(row.get<int>("kernel"));
            b.bootId = NF_TRY(row.get<std::string>("boot_id"));
            b.identity = nlohmann::json::parse(NF_TRY(row.get<std::string>("identity_json")), nullptr, false);
            const auto status = engine::parseBootStatus(NF_TRY(row.get<std::string>("status")));
            if (!status) {
                return Error{"campaign boot " + std::to_string(b.id) + " has an unknown status"};
            }
            b.status = *status;
            b.reason = NF_TRY(row.get<std::string>("status_reason"));
            b.startedAt = NF_TRY(row.get<std::string>("started_at"));
            b.endedAt = NF_TRY(row.get<std::string>("ended_at"));
            b.pid = NF_TRY(row.get<std::int64_t>("pid"));
            b.pidStart = NF_TRY(row.get<std::string>("pid_start"));
            boots.push_back(std::move(b));
            return {};
        }));
    for (auto& b : boots) {
        const auto runs = NF_TRY(
            db.query<int, std::int64_t>("SELECT step, run FROM campaign_runs WHERE boot = ? ORDER BY step, run", b.id));
        for (const auto& [step, run] : runs) {
            b.runs.push_back({step, run});
        }
    }
    return boots;
}

}  // namespace

Result<std::int64_t> storeCampaign(Database& db, const engine::CampaignPlan& plan)
{
    auto tx = NF_TRY(Transaction::begin(db));
    if (NF_TRY(db.queryOne<std::int64_t>("SELECT id FROM campaigns WHERE name = ?", plan.name))) {
        return Error{"campaign '" + plan.name + "' exists already in " + db.path()};
    }
    NF_TRY(
        db.run(std::string("INSERT INTO campaigns (name, created_at, boots_planned, until_decided, boot_order, seed, "
                           "metric, alpha, margin_pct, workdir, reboot, command_line) VALUES (?, ") +
                   kNow + ", ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
               plan.name, plan.bootsPlanned, plan.untilDecided ? 1 : 0, std::string(engine::toString(plan.order)),
               static_cast<std::int64_t>(plan.seed), plan.metric, plan.alpha, plan.marginPct, plan.workdir, plan.reboot,
               plan.commandLine));
    const std::int64_t id = db.lastInsertId();
    for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
        const auto& kernel = plan.kernels[k];
        NF_TRY(db.run("INSERT INTO campaign_kernels (campaign_id, idx, name, build_id, image) VALUES (?, ?, ?, ?, ?)",
                      id, static_cast<int>(k), kernel.name, kernel.buildId, kernel.image));
    }
    for (std::size_t s = 0; s < plan.steps.size(); ++s) {
        NF_TRY(db.run("INSERT INTO campaign_steps (campaign_id, idx, args_json) VALUES (?, ?, ?)", id,
                      static_cast<int>(s), nlohmann::json(plan.steps[s]).dump()));
    }
    NF_TRY(tx.commit());
    return id;
}

Result<engine::Campaign> loadCampaign(Database& db, const std::string& name)
{
    const auto row = NF_TRY(db.queryOne<std::int64_t, std::string, int, int, std::string, std::int64_t, std::string,
                                        double, double, std::string, std::string, std::string>(
        "SELECT id, created_at, boots_planned, until_decided, boot_order, seed, metric, alpha, margin_pct, workdir, "
        "reboot, command_line FROM campaigns WHERE name = ?",
        name));
    if (!row) {
        return Error{"no campaign '" + name + "' in " + db.path()};
    }
    engine::Campaign c;
    auto& p = c.plan;
    std::string order;
    std::int64_t seed = 0;
    int until = 0;
    std::tie(c.id, c.createdAt, p.bootsPlanned, until, order, seed, p.metric, p.alpha, p.marginPct, p.workdir, p.reboot,
             p.commandLine) = *row;
    p.name = name;
    p.untilDecided = until != 0;
    p.seed = static_cast<std::uint64_t>(seed);
    p.order = engine::parseBootOrder(order).value_or(engine::BootOrder::Abba);
    const auto kernels = NF_TRY(db.query<std::string, std::string, std::string>(
        "SELECT name, build_id, image FROM campaign_kernels WHERE campaign_id = ? ORDER BY idx", c.id));
    for (const auto& [kname, buildId, image] : kernels) {
        p.kernels.push_back({kname, buildId, image});
    }
    const auto steps =
        NF_TRY(db.query<std::string>("SELECT args_json FROM campaign_steps WHERE campaign_id = ? ORDER BY idx", c.id));
    for (const auto& text : steps) {
        const auto args = nlohmann::json::parse(text, nullptr, false);
        if (!args.is_array()) {
            return Error{"campaign '" + name + "' has an unreadable step: " + text};
        }
        p.steps.push_back(args.get<std::vector<std::string>>());
    }
    if (p.kernels.size() != 2 || p.steps.empty() ||
        std::any_of(p.steps.begin(), p.steps.end(), [](const auto& step) { return step.empty(); })) {
        return Error{"campaign '" + name + "' is not whole (it needs two kernels and a recipe)"};
    }
    c.boots = NF_TRY(loadBoots(db, c.id));
    return c;
}

Result<std::int64_t> beginBoot(Database& db, std::int64_t campaignId, const engine::CampaignBoot& boot)
{
    auto tx = NF_TRY(Transaction::begin(db));
    if (NF_TRY(db.queryOne<std::int64_t>("SELECT id FROM campaign_boots WHERE campaign_id = ? AND boot_id = ?",
                                         campaignId, boot.bootId))) {
        return Error{"boot " + boot.bootId + " is already recorded in this campaign"};
    }
    NF_TRY(db.run(std::string("INSERT INTO campaign_boots (campaign_id, slot, kernel, boot_id, identity_json, status, "
                              "started_at, pid, pid_start) VALUES (?, ?, ?, ?, ?, 'running', ") +
                      kNow + ", ?, ?)",
                  campaignId, boot.slot, boot.kernel, boot.bootId, boot.identity.dump(), boot.pid, boot.pidStart));
    const std::int64_t id = db.lastInsertId();
    NF_TRY(tx.commit());
    return id;
}

Result<void> addBootRun(Database& db, std::int64_t bootRowId, int step, std::int64_t runId)
{
    return db.run("INSERT OR IGNORE INTO campaign_runs (boot, step, run) VALUES (?, ?, ?)", bootRowId, step, runId);
}

Result<bool> endBoot(Database& db, std::int64_t bootRowId, engine::BootStatus status, const std::string& reason)
{
    NF_TRY(db.run(std::string("UPDATE campaign_boots SET status = ?, status_reason = ?, ended_at = ") + kNow +
                      " WHERE id = ? AND status = 'running'",
                  std::string(engine::toString(status)), reason, bootRowId));
    return sqlite3_changes(db.handle()) > 0;
}

Result<void> markBootRunsUncounted(Database& db, std::int64_t bootRowId)
{
    const std::string suffix = engine::kUncountedSuffix;
    return db.run(
        "UPDATE runs SET label = label || ? WHERE id IN (SELECT run FROM campaign_runs WHERE boot = ?) AND "
        "substr(label, -length(?)) <> ?",
        suffix, bootRowId, suffix, suffix);
}

}  // namespace nf::data
