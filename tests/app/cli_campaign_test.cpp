// Campaigns across boots through the `noisefloor` binary. A boot is what NOISEFLOOR_SYSROOT shows
// the tool: a fake tree per kernel (its GNU build-id note in sys/kernel/notes, a boot id, a
// release, a .config, a spectre_v2 mitigation), and a new boot id per boot. The recipe is a real
// `run command` measured on this machine; --reboot is a command that records which kernel it was
// asked to boot. Nothing here runs kexec, grub-reboot or systemctl.

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "data/database.h"
#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kVanilla = "3f2a9c0011223344556677889900aabbccddeeff";
// The build id of tests/data/kernel_image/vmlinux-tiny (readelf -n: PROVENANCE.md there).
constexpr const char* kPatched = "b5ce1f45edf1d77bb5413523695e7cc106b7f62b";

void writeFile(const fs::path& path, const std::string& text)
{
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// sys/kernel/notes as the kernel lays it out: namesz, descsz, type 3, "GNU\0", the id.
std::string notes(const std::string& hex)
{
    std::string desc;
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        desc += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    }
    std::string out;
    for (std::uint32_t word : {4U, static_cast<std::uint32_t>(desc.size()), 3U}) {
        out.append(reinterpret_cast<const char*>(&word), 4);
    }
    return out + std::string("GNU\0", 4) + desc;
}

class CliCampaign : public CliTest {
protected:
    void SetUp() override
    {
        makeRoot("vanilla", kVanilla, "Mitigation: Retpolines; STIBP: disabled");
        makeRoot("patched", kPatched, "Mitigation: Enhanced IBRS");
        // One kernel has /proc/config.gz, the other /boot/config-RELEASE, as distributions differ.
        ASSERT_EQ(shell("printf 'CONFIG_PAGE_POOL=y\\n' | gzip -c > " + root("vanilla") + "/proc/config.gz").first, 0);
        writeFile(root("patched") + "/boot/config-6.1.0", "CONFIG_PAGE_POOL=y\n");
    }
    void TearDown() override { ::unsetenv("NOISEFLOOR_SYSROOT"); }

    std::string root(const std::string& kernel) const { return m_dir.file("root-" + kernel); }

    void makeRoot(const std::string& kernel, const std::string& buildId, const std::string& spectre)
    {
        const fs::path r = root(kernel);
        writeFile(r / "sys/kernel/notes", notes(buildId));
        writeFile(r / "proc/sys/kernel/osrelease", "6.1.0\n");
        writeFile(r / "proc/version", "Linux version 6.1.0 (" + kernel + ") #1 SMP PREEMPT_DYNAMIC\n");
        writeFile(r / "sys/devices/system/cpu/vulnerabilities/spectre_v2", spectre + "\n");
    }

    // A boot of `kernel`: a new boot id, then `campaign next`.
    CliResult boot(const std::string& kernel, std::vector<std::string> extra = {})
    {
        bootInto(kernel);
        std::vector<std::string> args = {"campaign", "next", "pf"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run(args);
    }
    void bootInto(const std::string& kernel)
    {
        writeFile(root(kernel) + "/proc/sys/kernel/random/boot_id",
                  "b00710" + std::to_string(++m_boots) + "-" + kernel + "\n");
        ::setenv("NOISEFLOOR_SYSROOT", root(kernel).c_str(), 1);
    }

    // The recipe: a shell loop whose length the slow-marker file stretches, so that a boot can be
    // killed in the middle of its recipe.
    std::vector<std::string> recipe() const
    {
        return {"--",
                "run",
                "command",
                "-p",
                "shell=yes",
                "-p",
                "cmd=if [ -e " + m_dir.file("slow") +
                    " ]; then sleep 30; fi; i=0; while [ $i -lt 3000 ]; do "
                    "i=$((i+1)); done",
                "--reps",
                "3"};
    }

    CliResult makeCampaign(std::vector<std::string> options)
    {
        std::vector<std::string> args = {"campaign",
                                         "new",
                                         "pf",
                                         "--kernel",
                                         std::string("vanilla=") + kVanilla,
                                         "--kernel",
                                         "patched=" + std::string(NF_KERNEL_IMAGES) + "/vmlinux-tiny"};
        args.insert(args.end(), options.begin(), options.end());
        const auto steps = recipe();
        args.insert(args.end(), steps.begin(), steps.end());
        return run(args);
    }

    nlohmann::json status()
    {
        const auto r = run({"campaign", "status", "pf", "--format", "json"});
        EXPECT_EQ(r.status, 0) << r.err;
        return nlohmann::json::parse(r.out);
    }

    // Polls the database until a run with this label is stored.
    bool waitForRun(const std::string& label)
    {
        for (int i = 0; i < 400; ++i) {
            auto db = data::Database::open(m_dir.file("runs.db"), data::Database::Mode::ReadOnly);
            if (db) {
                auto found = db->queryOne<std::int64_t>("SELECT id FROM runs WHERE label = ?", label);
                if (found && *found) {
                    return true;
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return false;
    }

    int m_boots = 0;
};

TEST_F(CliCampaign, SixBootsAlternateAndOnlyFinishedBootsOfTheRightKernelCount)
{
    const std::string calls = m_dir.file("reboots");
    const auto made =
        makeCampaign({"--boots", "6", "--reboot",
                      std::string("command echo $NOISEFLOOR_NEXT_KERNEL ") + "$NOISEFLOOR_NEXT_BUILD_ID >> " + calls});
    ASSERT_EQ(made.status, 0) << made.err;
    EXPECT_NE(made.out.find("vanilla patched patched vanilla vanilla patched"), std::string::npos) << made.out;

    // The wrong kernel is refused, and nothing is recorded for it.
    auto wrong = boot("patched");
    EXPECT_EQ(wrong.status, 1);
    EXPECT_NE(wrong.err.find("this is patched (build id " + std::string(kPatched) +
                             "), but boot 1 of the plan is "
                             "vanilla"),
              std::string::npos)
        << wrong.err;
    EXPECT_EQ(status()["boots_done"], 0);

    auto first = boot("vanilla");
    ASSERT_EQ(first.status, 0) << first.err;
    EXPECT_NE(first.out.find("step 1 of 1, label pf.vanilla"), std::string::npos) << first.out;
    // The same boot again is refused: a boot is counted once.
    auto again = run({"campaign", "next", "pf"});
    EXPECT_EQ(again.status, 1);
    EXPECT_NE(again.err.find("was counted already, as boot 1"), std::string::npos) << again.err;

    // A boot killed in the middle of its recipe is not counted; the slot is booted again.
    bootInto("patched");
    writeFile(m_dir.file("slow"), "");
    CliProcess killed({"--db", m_dir.file("runs.db"), "campaign", "next", "pf"}, m_dir);
    ASSERT_TRUE(waitForRun("pf.patched"));  // the step's run is stored, and sleeping
    const std::string child = shell("pgrep -P " + std::to_string(killed.pid())).second;
    ::kill(killed.pid(), SIGKILL);
    EXPECT_EQ(killed.wait().status, 128 + SIGKILL);
    fs::remove(m_dir.file("slow"));
    // The step's noisefloor stops when its campaign next is gone (its parent-death signal).
    ASSERT_FALSE(child.empty());
    bool gone = false;
    for (int i = 0; i < 200 && !gone; ++i) {
        gone = ::kill(std::stoi(child), 0) != 0;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(gone) << "the step outlived its campaign next";
    auto sameBoot = run({"campaign", "next", "pf"});
    EXPECT_EQ(sameBoot.status, 1);
    EXPECT_NE(sameBoot.err.find("was begun already and interrupted"), std::string::npos) << sameBoot.err;

    for (const char* kernel : {"patched", "patched", "vanilla", "vanilla", "patched"}) {
        auto r = boot(kernel);
        ASSERT_EQ(r.status, 0) << kernel << ": " << r.err;
    }
    const auto s = status();
    EXPECT_EQ(s["boots_done"], 6);
    EXPECT_EQ(s["boots_planned"], 6);
    EXPECT_TRUE(s["next_kernel"].is_null());
    EXPECT_TRUE(s["next_build_id"].is_null());
    EXPECT_EQ(s["done"], true);
    ASSERT_TRUE(s["verdict"].is_object()) << s.dump(2);
    EXPECT_EQ(s["verdict"]["unit"], "boot");
    EXPECT_EQ(s["verdict"]["units"], nlohmann::json({3, 3}));
    EXPECT_EQ(s["metric"], "wall_ms");
    ASSERT_EQ(s["boots"].size(), 7U);
    EXPECT_EQ(s["boots"][1]["status"], "interrupted");
    EXPECT_TRUE(s["boots"][1]["boot"].is_null());
    EXPECT_EQ(s["boots"][2]["boot"], 2);
    // What differs between the kernels' boots besides the kernel: the mitigation, and the .config
    // read from two places.
    bool spectre = false;
    for (const auto& d : s["differences"]) {
        spectre = spectre || d.get<std::string>().find("vulnerabilities/spectre_v2 differs") == 0;
    }
    EXPECT_TRUE(spectre) << s["differences"].dump();

    // --reboot was asked for the next kernel after every counted boot but the last.
    std::ifstream in(calls);
    std::vector<std::string> asked;
    for (std::string line; std::getline(in, line);) {
        asked.push_back(line);
    }
    ASSERT_EQ(asked.size(), 5U);
    EXPECT_EQ(asked[0], std::string("patched ") + kPatched);
    EXPECT_EQ(asked[2], std::string("vanilla ") + kVanilla);

    // After the last boot there is nothing to run.
    auto after = boot("vanilla");
    EXPECT_EQ(after.status, 0) << after.err;
    EXPECT_NE(after.out.find("is done"), std::string::npos) << after.out;

    const auto report = run({"campaign", "report", "pf"});
    ASSERT_EQ(report.status, 0) << report.err;
    EXPECT_NE(report.out.find(std::string("build id ") + kVanilla), std::string::npos);
    EXPECT_NE(report.out.find(std::string("build id ") + kPatched + ", from "), std::string::npos);
    EXPECT_NE(report.out.find("interrupted"), std::string::npos);
    EXPECT_NE(report.out.find("not counted: "), std::string::npos);
    EXPECT_NE(report.out.find("3 vanilla against 3 patched"), std::string::npos) << report.out;

    // The kernels' labels pool their counted boots; the killed boot's run is not among them.
    const auto compared = run({"compare", "--label", "pf.vanilla", "--label", "pf.patched", "--metric", "wall_ms"});
    EXPECT_EQ(compared.status, 0) << compared.err;
    EXPECT_NE(compared.out.find("3 against 3 runs"), std::string::npos) << compared.out;

    // Each run stored the identity of the kernel it ran under.
    const auto shown = run({"show", "1"});
    EXPECT_NE(shown.out.find(std::string("kernel build id ") + kVanilla), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("spectre_v2: Mitigation: Retpolines"), std::string::npos) << shown.out;
}

TEST_F(CliCampaign, UntilDecidedStopsBootingWhenTheAnswerIsIn)
{
    // The patched kernel's boots run four times the loop: a step the verdict must find in a few pairs.
    // The metric is the command's task-clock: its wall time varied by a factor of 2 between boots
    // here while a build ran beside it, its CPU time by 2%.
    auto made = run({"campaign",
                     "new",
                     "pf",
                     "--kernel",
                     std::string("vanilla=") + kVanilla,
                     "--kernel",
                     std::string("patched=") + kPatched,
                     "--until",
                     "decided",
                     "--max-boots",
                     "16",
                     "--order",
                     "random",
                     "--metric",
                     "task-clock",
                     "--",
                     "run",
                     "command",
                     "-p",
                     "shell=yes",
                     "-p",
                     "cmd=n=4000; [ \"$NOISEFLOOR_KERNEL\" = patched ] && n=16000; i=0; while [ $i -lt $n ]; do "
                     "i=$((i+1)); done",
                     "--reps",
                     "3"});
    ASSERT_EQ(made.status, 0) << made.err;
    int boots = 0;
    for (; boots < 16; ++boots) {
        const auto s = status();
        if (s["done"] == true) {
            break;
        }
        auto r = boot(s["next_kernel"].get<std::string>());
        ASSERT_EQ(r.status, 0) << r.err;
    }
    const auto s = status();
    EXPECT_EQ(s["done"], true);
    ASSERT_TRUE(s["verdict"].is_object()) << s.dump(2);
    EXPECT_EQ(s["verdict"]["decision"], "different") << s.dump(2);
    EXPECT_EQ(s["verdict"]["unit"], "boot pair");
    EXPECT_EQ(s["metric"], "task-clock");
    EXPECT_GT(s["verdict"]["estimate_pct"].get<double>(), 50.0);
    EXPECT_LT(boots, 16);  // stopped before the most boots it was allowed
    EXPECT_EQ(boots % 2, 0);
}

// A boot whose step fails, or that measured nothing of the campaign's metric, is not counted: its
// place in the order is booted again, and its runs leave the kernel's label.
TEST_F(CliCampaign, ABootThatMeasuredNothingIsNotCounted)
{
    auto made = run({"campaign", "new", "pf", "--kernel", std::string("vanilla=") + kVanilla, "--kernel",
                     std::string("patched=") + kPatched, "--boots", "4", "--metric", "nosuch", "--", "run", "command",
                     "-p", "cmd=true", "--reps", "2"});
    ASSERT_EQ(made.status, 0) << made.err;
    auto typo = boot("vanilla");
    EXPECT_EQ(typo.status, 1);
    EXPECT_NE(typo.err.find("boot 1 not counted: no run of this boot measured nosuch (its runs have: wall_ms"),
              std::string::npos)
        << typo.err;
    EXPECT_NE(typo.err.find("boot vanilla (build id " + std::string(kVanilla) + ") for boot 1"), std::string::npos)
        << typo.err;
    auto s = status();
    EXPECT_EQ(s["boots_done"], 0);
    EXPECT_EQ(s["next_kernel"], "vanilla");
    EXPECT_EQ(s["boots"][0]["status"], "failed");
    // The failed boot's run is kept, under a label of its own.
    const auto kept = run({"show", "1"});
    EXPECT_NE(kept.out.find("label: pf.vanilla.uncounted"), std::string::npos) << kept.out;

    auto failing = run({"campaign", "new", "bad", "--kernel", std::string("vanilla=") + kVanilla, "--kernel",
                        std::string("patched=") + kPatched, "--boots", "4", "--", "run", "command", "-p",
                        "cmd=sh -c 'exit 3'", "--reps", "2"});
    ASSERT_EQ(failing.status, 0) << failing.err;
    bootInto("vanilla");
    auto failed = run({"campaign", "next", "bad"});
    EXPECT_EQ(failed.status, 1);
    EXPECT_NE(failed.err.find("noisefloor: boot 1 not counted: no run of this boot measured wall_ms (no repetition "
                              "gave a value)"),
              std::string::npos)
        << failed.err;
}

// A stop signal during the recipe: the step in flight ends, the boot is not counted, and no next
// boot is arranged.
TEST_F(CliCampaign, AStopSignalArrangesNoReboot)
{
    const std::string calls = m_dir.file("reboots");
    ASSERT_EQ(makeCampaign({"--boots", "4", "--reboot", "command echo rebooted >> " + calls}).status, 0);
    bootInto("vanilla");
    writeFile(m_dir.file("slow"), "");
    CliProcess next({"--db", m_dir.file("runs.db"), "campaign", "next", "pf"}, m_dir);
    ASSERT_TRUE(waitForRun("pf.vanilla"));
    // As Ctrl-C reaches a terminal's foreground processes: campaign next and its step.
    const std::string child = shell("pgrep -P " + std::to_string(next.pid())).second;
    ::kill(next.pid(), SIGTERM);
    if (!child.empty()) {
        ::kill(std::stoi(child), SIGTERM);
    }
    fs::remove(m_dir.file("slow"));
    const auto r = next.wait();
    EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
    EXPECT_NE(r.err.find("not counted: stopped by SIGTERM"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(calls));
    EXPECT_EQ(status()["boots"][0]["status"], "interrupted");
    // An override of --reboot is checked before anything runs.
    bootInto("vanilla");
    const auto bad = run({"campaign", "next", "pf", "--reboot", "kexc"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--reboot kexc"), std::string::npos) << bad.err;
    EXPECT_EQ(status()["boots"].size(), 1U);
}

TEST_F(CliCampaign, PlansThatCannotBeRunAreRefused)
{
    const std::string v = std::string("vanilla=") + kVanilla;
    const auto refused = [&](std::vector<std::string> args, const std::string& said) {
        args.insert(args.begin(), {"campaign", "new", "pf"});
        const auto r = run(args);
        EXPECT_EQ(r.status, 2) << said;
        EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    };
    const std::vector<std::string> step = {"--", "run", "command", "-p", "cmd=true"};
    auto with = [&](std::vector<std::string> args) {
        args.insert(args.end(), step.begin(), step.end());
        return args;
    };
    refused(with({"--kernel", v, "--kernel", std::string("patched=") + kVanilla, "--boots", "4"}), "same build id");
    refused(with({"--kernel", v, "--kernel", "patched=xyz123", "--boots", "4"}), "is neither a hex build id");
    refused(with({"--kernel", v, "--kernel", std::string("patched=") + NF_KERNEL_IMAGES + "/not-a-kernel.txt",
                  "--boots", "4"}),
            "not an ELF file or an x86 bzImage");
    refused(with({"--kernel", v, "--kernel", std::string("patched=") + kPatched, "--boots", "5", "--order", "abab"}),
            "--boots 5: an even number");
    refused(with({"--kernel", v, "--kernel", std::string("patched=") + kPatched, "--boots", "4", "--order", "aabb"}),
            "--order aabb");
    refused(with({"--kernel", v, "--kernel", std::string("patched=") + kPatched}), "give --boots N or --until decided");
    refused(with({"--kernel", v, "--kernel", std::string("patched=") + kPatched, "--boots", "4", "--reboot", "kexec"}),
            "kexec needs its image");
    refused({"--kernel", v, "--kernel", std::string("patched=") + kPatched, "--boots", "4", "--", "run", "--label", "x",
             "command", "-p", "cmd=true"},
            "--label is the campaign's to give");
    refused({"--kernel", v, "--kernel", std::string("patched=") + kPatched, "--boots", "4", "--", "list"},
            "a step is 'run ...' or 'import ...'");
    // A bzImage names its kernel too: its xz payload's vmlinux has the id.
    auto bz = run({"campaign", "new", "bz", "--kernel", v, "--kernel",
                   std::string("patched=") + NF_KERNEL_IMAGES + "/bzImage-xz", "--boots", "4", "--", "run", "command",
                   "-p", "cmd=true"});
    EXPECT_EQ(bz.status, 0) << bz.err;
    auto twice = run({"campaign", "new", "bz", "--kernel", v, "--kernel", std::string("patched=") + kPatched, "--boots",
                      "4", "--", "run", "command", "-p", "cmd=true"});
    EXPECT_EQ(twice.status, 2);
    EXPECT_NE(twice.err.find("exists already"), std::string::npos) << twice.err;
    const auto s = run({"campaign", "status", "bz", "--format", "json"});
    EXPECT_EQ(nlohmann::json::parse(s.out)["kernels"][1]["build_id"], kPatched);
}

TEST_F(CliCampaign, TheSystemdUnitIsWrittenUnderTheRootAndRemoved)
{
    // A directory and database whose names systemd would expand (% and $) are quoted for it.
    const std::string odd = m_dir.file("lab 50%$HOME");
    fs::create_directories(odd);
    const std::string db = odd + "/runs.db";
    std::vector<std::string> args = {"--db",
                                     db,
                                     "campaign",
                                     "new",
                                     "pf",
                                     "--kernel",
                                     std::string("vanilla=") + kVanilla,
                                     "--kernel",
                                     std::string("patched=") + kPatched,
                                     "--boots",
                                     "4"};
    const auto steps = recipe();
    args.insert(args.end(), steps.begin(), steps.end());
    ASSERT_EQ(shell("cd '" + odd + "' && " + NF_CLI_PATH + " " +
                    [&] {
                        std::string line;
                        for (const auto& a : args) {
                            line += "'" + a + "' ";
                        }
                        return line;
                    }())
                  .first,
              0);
    ::setenv("NOISEFLOOR_SYSROOT", root("vanilla").c_str(), 1);
    const auto installed = runCli({"--db", db, "campaign", "install", "pf"}, m_dir);
    ASSERT_EQ(installed.status, 0) << installed.err;
    EXPECT_NE(installed.out.find("not enabled"), std::string::npos) << installed.out;
    const std::string unit = root("vanilla") + "/etc/systemd/system/noisefloor-campaign-pf.service";
    const std::string text = readFile(unit);
    EXPECT_NE(text.find("ExecStart="), std::string::npos);
    EXPECT_NE(text.find("\" campaign next \"pf\""), std::string::npos) << text;
    EXPECT_NE(text.find("--db \"" + m_dir.file("lab 50%%$$HOME") + "/runs.db\""), std::string::npos) << text;
    EXPECT_NE(text.find("WorkingDirectory=" + m_dir.file("lab 50%%$HOME") + "\n"), std::string::npos) << text;
    EXPECT_NE(text.find("WantedBy=multi-user.target"), std::string::npos);
    if (shell("command -v systemd-analyze").first == 0) {
        const auto verified = shell("systemd-analyze verify " + unit + " 2>&1");
        EXPECT_EQ(verified.second.find("Unknown"), std::string::npos) << verified.second;
    }
    EXPECT_EQ(run({"campaign", "remove", "pf"}).status, 0);
    EXPECT_FALSE(fs::exists(unit));
    EXPECT_EQ(run({"campaign", "remove", "pf"}).status, 1);
    // A unit it did not write is left alone.
    writeFile(unit, "[Unit]\nDescription=someone else's\n");
    const auto foreign = run({"campaign", "remove", "pf"});
    EXPECT_EQ(foreign.status, 1);
    EXPECT_NE(foreign.err.find("not written by noisefloor"), std::string::npos);
    EXPECT_TRUE(fs::exists(unit));
}

}  // namespace
}  // namespace nf::test
