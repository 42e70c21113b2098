// What a build without measurement (-DNF_MEASURE=OFF) answers where measuring would start: the
// commands that measure or touch this machine's network keep their names and say, in one line, why
// they cannot run here (exit 2); the commands that read, compare, import and merge are the same as
// in a full build.

#include "app/cli/cli.h"
#include "app/cli/run_session.h"

namespace nf::cli {

namespace {

const char* const kUnmeasured =
    "built without measurement (NF_MEASURE=OFF): run it where noisefloor is built with the measuring "
    "parts, or from noisefloor-gui --host DEST";

Command unmeasured(CLI::App& app, const std::string& name, const std::string& description)
{
    auto* sub = app.add_subcommand(name, description + " (not in this build: NF_MEASURE=OFF)");
    sub->fallthrough(false);
    sub->allow_extras();
    sub->prefix_command();  // whatever follows is the measuring command's, not this one's
    return {sub, [name] { return fail(kExitUsage, name + ": " + kUnmeasured); }};
}

}  // namespace

Command addRunCommand(CLI::App& app, Context& /*ctx*/)
{
    return unmeasured(app, "run", "Run an experiment");
}
Command addCalibrateCommand(CLI::App& app, Context& /*ctx*/)
{
    return unmeasured(app, "calibrate", "Measure this machine's noise floor with an A/A run");
}
Command addSelftestCommand(CLI::App& app)
{
    return unmeasured(app, "selftest", "Measure the measurement itself");
}
Command addCheckCommand(CLI::App& app)
{
    return unmeasured(app, "check", "What this machine can measure and what adds noise, with fixes");
}
Command addCleanupCommand(CLI::App& app)
{
    return unmeasured(app, "cleanup", "Remove what a killed live run left behind");
}
Command addCampaignCommand(CLI::App& app, Context& /*ctx*/)
{
    return unmeasured(app, "campaign", "Vanilla against patched kernel, boot by boot");
}
Command addGenerateCommand(CLI::App& app)
{
    return unmeasured(app, "generate", "Generate traffic for a live test on another host");
}
Command addSizeCommand(CLI::App& app, Context& /*ctx*/)
{
    return unmeasured(app, "size", "Code size between two builds, as the kernel's scripts/bloat-o-meter counts it");
}

// The signature is run_session.h's, whose measuring definition takes the spec by value to adjust it.
// NOLINTNEXTLINE(performance-unnecessary-value-param)
int runAndReport(engine::ExperimentSpec /*spec*/, const Context& /*ctx*/, const RunReport& /*report*/,
                 std::ostream* /*events*/)
{
    return fail(kExitUsage, kUnmeasured);
}

int runAllAndReport(const std::vector<engine::ExperimentSpec>& /*specs*/, const Context& /*ctx*/,
                    const RunReport& /*report*/, std::ostream* /*events*/)
{
    return fail(kExitUsage, kUnmeasured);
}

}  // namespace nf::cli
