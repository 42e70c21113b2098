// The running kernel's identity, read from this machine and through NOISEFLOOR_SYSROOT. The real
// system's figures are checked against the tools a person would use: sha256sum of the unpacked
// .config, the boot id file, the notes' build id as kernel_image.h reads it.

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>

#include "probes/kernel_identity.h"
#include "probes/kernel_image.h"
#include "tests/support/temp_dir.h"

namespace nf::probes {
namespace {

namespace fs = std::filesystem;

std::string shellOutput(const std::string& command)
{
    std::string out;
    const std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
    std::array<char, 4096> buffer{};
    while (pipe && std::fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr) {
        out += buffer.data();
    }
    return out;
}

std::string fileText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

class SysrootGuard {
public:
    explicit SysrootGuard(const std::string& root) { ::setenv("NOISEFLOOR_SYSROOT", root.c_str(), 1); }
    ~SysrootGuard() { ::unsetenv("NOISEFLOOR_SYSROOT"); }
    SysrootGuard(const SysrootGuard&) = delete;
    SysrootGuard& operator=(const SysrootGuard&) = delete;
};

TEST(KernelIdentity, ThisMachinesKernelIsReadAsItsToolsShowIt)
{
    ::unsetenv("NOISEFLOOR_SYSROOT");
    const auto id = readKernelIdentity();
    EXPECT_TRUE(id.sysroot.empty());
    std::string boot = fileText("/proc/sys/kernel/random/boot_id");
    boot.erase(boot.find_last_not_of('\n') + 1);
    EXPECT_EQ(id.bootId, boot);
    EXPECT_FALSE(id.release.empty());
    EXPECT_NE(id.version.find(id.release), std::string::npos) << id.version;
    if (fs::exists("/sys/kernel/notes")) {
        EXPECT_TRUE(std::regex_match(id.buildId, std::regex("[0-9a-f]{40}"))) << id.buildId;
        EXPECT_EQ(id.buildId, buildIdFromNotes(fileText("/sys/kernel/notes")));
    }
    if (fs::exists("/proc/config.gz")) {
        const std::string sum = shellOutput("zcat /proc/config.gz | sha256sum");
        EXPECT_EQ(id.configSource, "/proc/config.gz");
        EXPECT_EQ(id.configSha256, sum.substr(0, 64));
    } else if (fs::exists("/boot/config-" + id.release)) {
        EXPECT_EQ(id.configSha256, shellOutput("sha256sum /boot/config-" + id.release).substr(0, 64));
    }
    if (fs::exists("/sys/devices/system/cpu/vulnerabilities/spectre_v2")) {
        std::string text = fileText("/sys/devices/system/cpu/vulnerabilities/spectre_v2");
        text.erase(text.find_last_not_of('\n') + 1);
        EXPECT_EQ(id.vulnerabilities.at("spectre_v2"), text);
    }
}

TEST(KernelIdentity, ASysrootShowsItsFilesAndTheRealSystemForWhatItLacks)
{
    test::TempDir dir;
    const fs::path root = dir.path();
    fs::create_directories(root / "sys/kernel");
    fs::create_directories(root / "proc/sys/kernel/random");
    fs::create_directories(root / "boot");
    fs::create_directories(root / "sys/devices/system/cpu/vulnerabilities");
    // The build-id note of tests/data/kernel_image/vmlinux-tiny, as sys/kernel/notes holds it.
    std::string note = std::string("\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00", 16);
    for (const char* byte : {"b5", "ce", "1f", "45", "ed", "f1", "d7", "7b", "b5", "41",
                             "35", "23", "69", "5e", "7c", "c1", "06", "b7", "f6", "2b"}) {
        note += static_cast<char>(std::stoi(byte, nullptr, 16));
    }
    std::ofstream(root / "sys/kernel/notes", std::ios::binary) << note;
    std::ofstream(root / "proc/sys/kernel/random/boot_id") << "fake-boot\n";
    std::ofstream(root / "proc/sys/kernel/osrelease") << "6.1.0-test\n";
    std::ofstream(root / "boot/config-6.1.0-test") << "CONFIG_PAGE_POOL=y\n";
    std::ofstream(root / "sys/devices/system/cpu/vulnerabilities/spectre_v2") << "Mitigation: Retpolines\n";

    const SysrootGuard guard(dir.path() + "//");
    EXPECT_EQ(identityRoot(), dir.path());
    const auto id = readKernelIdentity();
    EXPECT_EQ(id.sysroot, dir.path());
    EXPECT_EQ(id.buildId, "b5ce1f45edf1d77bb5413523695e7cc106b7f62b");
    EXPECT_EQ(id.bootId, "fake-boot");
    EXPECT_EQ(id.release, "6.1.0-test");
    // /proc/config.gz is absent from the tree: the real one would name the real kernel, so the
    // tree's /boot/config-RELEASE is read (printf 'CONFIG_PAGE_POOL=y\n' | sha256sum).
    EXPECT_EQ(id.configSource, "/boot/config-6.1.0-test");
    EXPECT_EQ(id.configSha256, shellOutput("printf 'CONFIG_PAGE_POOL=y\\n' | sha256sum").substr(0, 64));
    EXPECT_EQ(id.spectreV2(), "retpolines");
    // What the tree lacks comes from the real system.
    std::string cmdline = fileText("/proc/cmdline");
    cmdline.erase(cmdline.find_last_not_of('\n') + 1);
    EXPECT_EQ(id.cmdline, cmdline);
    EXPECT_NE(id.describe().find("6.1.0-test build b5ce1f45"), std::string::npos) << id.describe();
}

TEST(KernelIdentity, TheRootSlashIsTheRealSystem)
{
    const SysrootGuard guard("/");
    EXPECT_EQ(identityRoot(), "");
}

}  // namespace
}  // namespace nf::probes
