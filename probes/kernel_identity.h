#pragma once
// Which kernel is running, as a comparison across boots needs to know it: two kernels built without
// LOCALVERSION print the same `uname -r`, so the kernel is named by its GNU build id, with the hash
// of its .config, the boot it is in, and the facts that change what the same code costs (the
// command line, the CPU vulnerability mitigations, the microcode).
//
// Every fact is read through one root directory: "/" on a real machine, or the directory that
// NOISEFLOOR_SYSROOT names, which tests fill with a fake boot (sys/kernel/notes,
// proc/sys/kernel/random/boot_id, proc/version, proc/config.gz, ...). A file absent under that root
// is read from the real system.

#include <map>
#include <string>

namespace nf::probes {

struct KernelIdentity {
    std::string buildId;       // hex, from the NT_GNU_BUILD_ID note of /sys/kernel/notes; "" unknown
    std::string bootId;        // /proc/sys/kernel/random/boot_id
    std::string release;       // /proc/sys/kernel/osrelease (uname -r)
    std::string version;       // /proc/version, whole
    std::string configSha256;  // of the .config text; "" when neither source below exists
    std::string configSource;  // "/proc/config.gz" or "/boot/config-RELEASE"
    std::string cmdline;       // /proc/cmdline
    std::string microcode;     // /proc/cpuinfo "microcode" of the first CPU; "" in most VMs
    std::map<std::string, std::string> vulnerabilities;  // /sys/devices/system/cpu/vulnerabilities/*
    std::string sysroot;                                 // NOISEFLOOR_SYSROOT when set, else ""

    // "retpolines" when vulnerabilities["spectre_v2"] names them, else its text ("" unknown).
    std::string spectreV2() const;
    // "6.1.0-18-amd64 build 3f2a...c1 (config 9d1e...)": what a person reads.
    std::string describe() const;
};

// Reads the running kernel's identity (through NOISEFLOOR_SYSROOT when set). Never fails: what
// cannot be read is left empty.
KernelIdentity readKernelIdentity();

// The root the identity is read from: NOISEFLOOR_SYSROOT, or "" for the real system.
std::string identityRoot();

}  // namespace nf::probes
