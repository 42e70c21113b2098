#include "probes/kernel_identity.h"

#include <openssl/evp.h>
#include <zlib.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <vector>

#include "probes/kernel_image.h"

namespace nf::probes {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxConfigBytes = 16u << 20;  // a .config is about 300 KiB

// `path` under the identity root when it exists there, else the real one.
std::string located(const std::string& path)
{
    const std::string root = identityRoot();
    if (!root.empty()) {
        std::error_code ec;
        std::string under = root + path;
        if (fs::exists(under, ec)) {
            return under;
        }
    }
    return path;
}

// At most `limit` bytes of the file at `path` as it is named; "" when it cannot be read.
std::string readFile(const std::string& path, std::size_t limit)
{
    std::ifstream in(path, std::ios::binary);
    std::string text;
    if (!in) {
        return text;
    }
    text.resize(limit);
    in.read(text.data(), static_cast<std::streamsize>(limit));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

// The file `path` names under the identity root (located()).
std::string readWhole(const std::string& path, std::size_t limit = 1u << 20)
{
    return readFile(located(path), limit);
}

std::string trimmed(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\0')) {
        text.pop_back();
    }
    return text;
}

std::string readLine(const std::string& path)
{
    return trimmed(readWhole(path, 64u << 10));
}

// The text of a gzip file, "" when it cannot be read or is larger than kMaxConfigBytes.
std::string gunzipped(const std::string& path)
{
    const std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
    if (!file) {
        return {};
    }
    std::string text;
    std::array<char, 64u << 10> buffer{};
    for (;;) {
        const int n = gzread(file.get(), buffer.data(), buffer.size());
        if (n < 0 || text.size() + static_cast<std::size_t>(n) > kMaxConfigBytes) {
            return {};
        }
        if (n == 0) {
            return text;
        }
        text.append(buffer.data(), static_cast<std::size_t>(n));
    }
}

std::string sha256Hex(const std::string& bytes)
{
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1) {
        return {};
    }
    return hexBytes(std::string_view(reinterpret_cast<const char*>(digest.data()), size));
}

// The .config: /proc/config.gz (CONFIG_IKCONFIG_PROC), else /boot/config-RELEASE as distributions
// install it. A tree under the identity root that holds either is not mixed with the real system's,
// which belongs to another kernel.
void readConfig(KernelIdentity& id)
{
    const std::string root = identityRoot();
    const std::string boot = "/boot/config-" + id.release;
    std::vector<std::string> bases = {root};
    if (!root.empty()) {
        bases.emplace_back();
    }
    for (const auto& base : bases) {
        std::error_code ec;
        if (fs::exists(base + "/proc/config.gz", ec)) {
            const std::string text = gunzipped(base + "/proc/config.gz");
            if (!text.empty()) {
                id.configSha256 = sha256Hex(text);
                id.configSource = "/proc/config.gz";
                return;
            }
        }
        if (!id.release.empty() && fs::exists(base + boot, ec)) {
            const std::string text = readFile(base + boot, kMaxConfigBytes);
            if (!text.empty()) {
                id.configSha256 = sha256Hex(text);
                id.configSource = boot;
                return;
            }
        }
    }
}

std::string firstMicrocode()
{
    std::istringstream in(readWhole("/proc/cpuinfo", 4u << 20));
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("microcode", 0) == 0) {
            const auto colon = line.find(':');
            return colon == std::string::npos ? std::string()
                                              : trimmed(line.substr(line.find_first_not_of(" \t", colon + 1)));
        }
    }
    return {};
}

std::map<std::string, std::string> vulnerabilities()
{
    std::map<std::string, std::string> out;
    const std::string dir = "/sys/devices/system/cpu/vulnerabilities";
    std::error_code ec;
    for (const std::string& where : {identityRoot().empty() ? std::string() : identityRoot() + dir, dir}) {
        if (where.empty() || !fs::is_directory(where, ec)) {
            continue;
        }
        for (const auto& entry : fs::directory_iterator(where, ec)) {
            const std::string name = entry.path().filename().string();
            if (!out.contains(name)) {
                out[name] = readLine(dir + "/" + name);
            }
        }
    }
    return out;
}

}  // namespace

std::string identityRoot()
{
    const char* root = std::getenv("NOISEFLOOR_SYSROOT");
    std::string path = root != nullptr ? root : "";
    while (path.size() > 1 && path.back() == '/') {
        path.pop_back();
    }
    return path == "/" ? std::string() : path;
}

std::string KernelIdentity::spectreV2() const
{
    const auto it = vulnerabilities.find("spectre_v2");
    if (it == vulnerabilities.end()) {
        return {};
    }
    return it->second.find("Retpolines") != std::string::npos ? "retpolines" : it->second;
}

std::string KernelIdentity::describe() const
{
    std::string text = release.empty() ? std::string("unknown release") : release;
    text += buildId.empty() ? " (build id unknown)" : " build " + buildId;
    if (!configSha256.empty()) {
        text += " (config sha256 " + configSha256.substr(0, 12) + ")";
    }
    return text;
}

KernelIdentity readKernelIdentity()
{
    KernelIdentity id;
    id.sysroot = identityRoot();
    id.buildId = buildIdFromNotes(readWhole("/sys/kernel/notes"));
    id.bootId = readLine("/proc/sys/kernel/random/boot_id");
    id.release = readLine("/proc/sys/kernel/osrelease");
    id.version = readLine("/proc/version");
    id.cmdline = readLine("/proc/cmdline");
    id.microcode = firstMicrocode();
    id.vulnerabilities = vulnerabilities();
    readConfig(id);
    return id;
}

}  // namespace nf::probes
