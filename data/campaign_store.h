#pragma once
// Campaigns across boots in the store (schema migration 11): the plan written once by `campaign
// new`, each boot begun and ended by `campaign next`, and the runs its steps stored.

#include <cstdint>
#include <string>
#include <vector>

#include "data/database.h"
#include "engine/model/campaign.h"

namespace nf::data {

// Stores a new campaign's plan; fails when a campaign of that name exists.
Result<std::int64_t> storeCampaign(Database& db, const engine::CampaignPlan& plan);

// The campaign and its boots (oldest first) with their runs; fails naming it when there is none.
Result<engine::Campaign> loadCampaign(Database& db, const std::string& name);

// A boot begins: stored 'running' with the process that runs its recipe. Fails when the campaign
// already has this boot id (a boot is counted once).
Result<std::int64_t> beginBoot(Database& db, std::int64_t campaignId, const engine::CampaignBoot& boot);

Result<void> addBootRun(Database& db, std::int64_t bootRowId, int step, std::int64_t runId);

// A running boot ends: false when it had ended already (another process settled it first).
Result<bool> endBoot(Database& db, std::int64_t bootRowId, engine::BootStatus status, const std::string& reason);

// The runs of a boot that is not counted get kUncountedSuffix on their labels, so that a compare of
// the campaign's labels pools only counted boots.
Result<void> markBootRunsUncounted(Database& db, std::int64_t bootRowId);

}  // namespace nf::data
