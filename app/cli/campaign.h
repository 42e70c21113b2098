#pragma once
// `noisefloor campaign`: vanilla against patched kernel, boot by boot. The plan lives in the
// database (data/campaign_store.h); `campaign next` runs after every boot (campaign_next.cpp), a
// systemd unit can start it (campaign_unit.cpp), and status and report print where it stands
// (engine/report/campaign_view.h).

#include <string>

#include <cstdint>
#include <map>

#include "app/cli/cli.h"
#include "engine/model/campaign.h"
#include "engine/report/campaign_view.h"

namespace nf::cli {

struct CampaignNextArgs {
    std::string name;
    std::string reboot;  // overrides the plan's; "none" prints only
};

// Where the campaign stands: its boots' runs loaded into `runs` (which the view points into, as into
// `campaign`), with the machine's run-to-run noise floors of the measured step's workload.
Result<engine::CampaignView> campaignView(data::Database& db, const engine::Campaign& campaign,
                                          std::map<std::int64_t, engine::RunRecord>& runs);

// What `campaign next` does after a boot; returns the exit status.
int campaignNext(const CampaignNextArgs& args, const Context& ctx);

// How the next boot is arranged: "" prints only; "kexec", "grub:NAME=ENTRY,...", "command TEXT".
// Checked when the campaign is made (a usage error names what is wrong).
Result<void> checkReboot(const std::string& reboot, const engine::CampaignPlan& plan);

// campaign install / remove: the systemd unit that runs `campaign next NAME` at every boot, under
// the identity root (NOISEFLOOR_SYSROOT); enabled or disabled with systemctl only when systemd runs
// this machine and no other root is named.
int installCampaignUnit(const std::string& name, const Context& ctx);
int removeCampaignUnit(const std::string& name);

}  // namespace nf::cli
