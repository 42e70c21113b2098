#include "base/system_facts.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

namespace nf::base {

namespace {

constexpr int kMaxCpuId = 1 << 16;

std::string_view trim(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) {
        return {};
    }
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

// The whole file, trimmed; "" when it cannot be read.
std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in) {
        return {};
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return std::string(trim(buffer.str()));
}

bool parseInt(std::string_view text, int* out)
{
    if (text.empty()) {
        return false;
    }
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && end == text.data() + text.size();
}

int readInt(const std::string& path, int fallback)
{
    int value = 0;
    return parseInt(readFile(path), &value) ? value : fallback;
}

// A CPU list file that may legitimately be empty (isolated, nohz_full).
std::vector<int> readCpuListFile(const std::string& path)
{
    const std::string text = readFile(path);
    return text.empty() || text == "(null)" ? std::vector<int>{} : parseCpuList(text);
}

void readCpuinfo(SystemFacts& facts)
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    bool haveFlags = false;
    while (std::getline(in, line) && (facts.cpuModel.empty() || !haveFlags)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) {
            continue;
        }
        const std::string_view key = trim(std::string_view(line).substr(0, colon));
        const std::string_view value = trim(std::string_view(line).substr(colon + 1));
        if (key == "model name" && facts.cpuModel.empty()) {
            facts.cpuModel = std::string(value);
        } else if (key == "flags" && !haveFlags) {
            haveFlags = true;
            std::istringstream words{std::string(value)};
            std::vector<std::string> present;
            for (std::string word; words >> word;) {
                present.push_back(word);
            }
            for (const char* flag : {"hypervisor", "constant_tsc", "nonstop_tsc", "rdtscp"}) {
                if (std::find(present.begin(), present.end(), flag) != present.end()) {
                    facts.cpuFlags.emplace_back(flag);
                }
            }
        }
    }
    facts.hypervisor = std::find(facts.cpuFlags.begin(), facts.cpuFlags.end(), "hypervisor") != facts.cpuFlags.end();
}

std::vector<int> allowedCpus()
{
    std::vector<int> cpus;
    for (int count = 1024; count <= kMaxCpuId; count *= 4) {
        cpu_set_t* set = CPU_ALLOC(count);
        if (set == nullptr) {
            return cpus;
        }
        const std::size_t size = CPU_ALLOC_SIZE(count);
        CPU_ZERO_S(size, set);
        const bool got = sched_getaffinity(0, size, set) == 0;
        const int err = got ? 0 : errno;
        for (int cpu = 0; got && cpu < count; ++cpu) {
            if (CPU_ISSET_S(cpu, size, set)) {
                cpus.push_back(cpu);
            }
        }
        CPU_FREE(set);
        if (got || err != EINVAL) {
            break;
        }
    }
    return cpus;
}

CpuInfo readCpu(int id)
{
    const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(id);
    CpuInfo cpu;
    cpu.id = id;
    cpu.core = readInt(base + "/topology/core_id", -1);
    cpu.package = readInt(base + "/topology/physical_package_id", -1);
    cpu.siblings = readCpuListFile(base + "/topology/thread_siblings_list");
    cpu.governor = readGovernor(id);
    return cpu;
}

// The lockdown file when securityfs is not mounted: read in a child that mounts securityfs in a
// private mount namespace of its own, so nothing changes for anyone else. Needs CAP_SYS_ADMIN;
// otherwise (or on any failure) empty. The child makes system calls only, as a child of a
// threaded process must.
std::string readLockdownPrivately()
{
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        return {};
    }
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(pipeFds[0]);
        if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            ::mount("securityfs", "/sys/kernel/security", "securityfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) !=
                0) {
            ::_exit(1);
        }
        const int fd = ::open("/sys/kernel/security/lockdown", O_RDONLY | O_CLOEXEC);
        char buf[128];
        const ssize_t n = fd >= 0 ? ::read(fd, buf, sizeof buf) : -1;
        ::_exit(n > 0 && ::write(pipeFds[1], buf, static_cast<size_t>(n)) == n ? 0 : 1);
    }
    ::close(pipeFds[1]);
    std::string text;
    if (child > 0) {
        char buf[128];
        ssize_t n = 0;
        while ((n = ::read(pipeFds[0], buf, sizeof buf)) > 0) {
            text.append(buf, static_cast<std::size_t>(n));
        }
        int status = 0;
        while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
    }
    ::close(pipeFds[0]);
    return text;
}

std::vector<std::string> readCapabilities()
{
    std::ifstream in("/proc/self/status");
    std::uint64_t capEff = 0;
    bool found = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("CapEff:", 0) == 0) {
            const std::string_view hex = trim(std::string_view(line).substr(7));
            found = std::from_chars(hex.data(), hex.data() + hex.size(), capEff, 16).ec == std::errc();
            break;
        }
    }
    std::vector<std::string> caps;
    if (!found) {
        return caps;
    }
    constexpr std::array<std::pair<int, const char*>, 5> kCaps{{
        {12, "CAP_NET_ADMIN"},
        {21, "CAP_SYS_ADMIN"},
        {39, "CAP_BPF"},
        {38, "CAP_PERFMON"},
        {13, "CAP_NET_RAW"},
    }};
    for (const auto& [bit, name] : kCaps) {
        if ((capEff >> bit) & 1U) {
            caps.emplace_back(name);
        }
    }
    return caps;
}

long readMemTotalKiB()
{
    std::ifstream in("/proc/meminfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("MemTotal:", 0) == 0) {
            std::istringstream fields(line.substr(9));
            long kib = 0;
            return fields >> kib ? kib : 0;
        }
    }
    return 0;
}

void readTopology(SystemFacts& facts)
{
    facts.onlineCpus = readCpuListFile("/sys/devices/system/cpu/online");
    bool anySiblings = false;
    for (int id : facts.onlineCpus) {
        facts.cpus.push_back(readCpu(id));
        anySiblings = anySiblings || facts.cpus.back().siblings.size() > 1;
    }
    const std::string smt = readFile("/sys/devices/system/cpu/smt/active");
    facts.smtActive = smt.empty() ? anySiblings : smt == "1";
    facts.isolatedCpus = readCpuListFile("/sys/devices/system/cpu/isolated");
    facts.nohzFullCpus = readCpuListFile("/sys/devices/system/cpu/nohz_full");
}

}  // namespace

std::string readGovernor(int cpu)
{
    return readFile("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor");
}

std::string readBoost()
{
    const std::string boost = readFile("/sys/devices/system/cpu/cpufreq/boost");
    if (boost == "1" || boost == "0") {
        return boost == "1" ? "on" : "off";
    }
    const std::string noTurbo = readFile("/sys/devices/system/cpu/intel_pstate/no_turbo");
    if (noTurbo == "1" || noTurbo == "0") {
        return noTurbo == "1" ? "off" : "on";
    }
    return {};
}

// "none [integrity] confidentiality" -> "integrity"
std::string readKernelLockdown()
{
    std::string text = readFile("/sys/kernel/security/lockdown");
    if (text.empty() && ::access("/sys/kernel/security", F_OK) == 0) {
        text = readLockdownPrivately();
    }
    const auto open = text.find('[');
    const auto close = text.find(']', open);
    if (open == std::string::npos || close == std::string::npos) {
        return {};
    }
    return text.substr(open + 1, close - open - 1);
}

SystemFacts readCpuFacts()
{
    SystemFacts facts;
    readTopology(facts);
    facts.allowedCpus = allowedCpus();
    return facts;
}

SystemFacts readSystemFacts()
{
    SystemFacts facts;
    utsname uts{};
    if (uname(&uts) == 0) {
        facts.hostname = uts.nodename;
        facts.kernelRelease = uts.release;
        facts.kernelVersion = uts.version;
    }
    readCpuinfo(facts);
    readTopology(facts);
    facts.allowedCpus = allowedCpus();
    facts.boost = readBoost();
    facts.kernelCmdline = readFile("/proc/cmdline");
    facts.perfEventParanoid = readInt("/proc/sys/kernel/perf_event_paranoid", facts.perfEventParanoid);
    facts.lockdown = readKernelLockdown();
    facts.capabilities = readCapabilities();
    std::istringstream loadavg(readFile("/proc/loadavg"));
    if (!(loadavg >> facts.loadAverage1)) {
        facts.loadAverage1 = 0;
    }
    facts.memTotalKiB = readMemTotalKiB();
    namespace fs = std::filesystem;
    std::error_code ec;
    facts.msrTscEvent = fs::exists("/sys/bus/event_source/devices/msr/events/tsc", ec);
    facts.hardwarePmu =
        fs::exists("/sys/bus/event_source/devices/cpu", ec) || fs::exists("/sys/bus/event_source/devices/cpu_core", ec);
    return facts;
}

std::vector<int> parseCpuList(const std::string& text, bool* ok)
{
    if (ok != nullptr) {
        *ok = false;
    }
    std::string_view rest = trim(text);
    if (rest.empty()) {
        return {};
    }
    std::vector<int> cpus;
    while (true) {
        const auto comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        const auto dash = item.find('-');
        int first = 0;
        int last = 0;
        if (!parseInt(item.substr(0, dash), &first)) {
            return {};
        }
        last = first;
        if (dash != std::string_view::npos && !parseInt(item.substr(dash + 1), &last)) {
            return {};
        }
        if (first < 0 || last < first || last >= kMaxCpuId) {
            return {};
        }
        for (int cpu = first; cpu <= last; ++cpu) {
            cpus.push_back(cpu);
        }
        if (comma == std::string_view::npos) {
            break;
        }
        rest.remove_prefix(comma + 1);
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    if (ok != nullptr) {
        *ok = true;
    }
    return cpus;
}

std::string formatCpuList(const std::vector<int>& cpus)
{
    std::vector<int> sorted = cpus;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::string out;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) {
            ++j;
        }
        if (!out.empty()) {
            out += ',';
        }
        out += std::to_string(sorted[i]);
        if (j > i) {
            out += '-' + std::to_string(sorted[j]);
        }
        i = j + 1;
    }
    return out;
}

}  // namespace nf::base
