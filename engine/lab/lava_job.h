#pragma once
// A LAVA MultiNode job (Linaro's Automated Validation Architecture, KernelCI's device layer) that
// measures one noisefloor experiment on a lab pair: role `generator` sends, role `dut` receives and
// measures. LAVA reserves both devices, deploys and boots them (and, when asked, the kernel under
// test on the dut), and synchronises the roles through its coordinator; noisefloor measures, and
// the dut uploads the run as a one-run database (LAVA keeps no files from a device) and reports
// each metric through lava-test-case.
//
// Two ways to drive the generator, chosen by the workload:
// - udp-rx, xdp-rx: the dut's engine starts `noisefloor generate` on the generator over ssh
//   (-p tx_host), start and stop per chunk, so variants interleave; the generator role only says
//   where it is (lava-send) and waits.
// - iface-rx: the generator role starts a free-running `noisefloor generate` itself, to the MAC and
//   address the dut sent (lava-send/lava-wait), with no ssh between the roles.
// Either way the dut stays quiet while it measures: the roles synchronise before and after the
// measured phase, not during, and the run's output goes to a file that is printed afterwards.

#include <map>
#include <string>
#include <vector>

#include "base/result.h"

namespace nf::engine::lab {

// The kernel under test, put on the dut by LAVA before the test: `tftp` (the dut boots it over the
// network with `bootMethod`, e.g. ipxe, u-boot or grub) or `kexec` (the dut, reached over ssh,
// fetches it from the dispatcher and kexecs into it). `method` empty: the dut runs what it runs.
struct KernelDeploy {
    std::string method;      // "", "tftp" or "kexec"
    std::string kernel;      // URL
    std::string kernelType;  // tftp: image, zimage or uimage ("" = LAVA's default)
    std::string ramdisk;     // URL, optional
    std::string rootfs;      // tftp: the NFS root's URL (tar), optional
    std::string modules;     // URL, optional
    std::string dtb;         // URL, optional
    std::string bootMethod;  // tftp: the boot action's method (default ipxe)
};

struct LavaJobSpec {
    std::string name;                   // job_name
    std::string generatorType = "ssh";  // device types of the two roles
    std::string dutType = "ssh";
    std::vector<std::string> tags;          // on both roles: the pair's tag pins the job to one pair
    std::vector<std::string> recipe;        // `run WORKLOAD ...`, the words as the dut runs them
    std::string artifacts;                  // where the dut uploads its run: http(s):// (PUT) or scp target
    std::string noisefloor = "noisefloor";  // the command on both devices (found on PATH)
    std::string install;                    // shell command run when it is not found ("" = fail)
    std::string generatorLogin = "root";    // udp-rx/xdp-rx: the user the dut's ssh logs in as
    std::string txIface;                    // iface-rx: the generator's sending interface
    std::string sshConfig;                  // on the dut: ssh -F for its scp upload and its udp-rx/xdp-rx generator
    std::string controlIface;               // the generator's address for ssh: this device's ("" = default route's)
    KernelDeploy kernel;
    int timeoutMinutes = 30;                      // the whole job
    std::string visibility = "public";            // public or personal (the job's results, the upload's link)
    std::map<std::string, std::string> metadata;  // more of the job's metadata (a campaign's boot)
};

// The job definition, as YAML that LAVA's schema accepts (lava_common.schemas.validate). Refuses a
// recipe that is not `run udp-rx|xdp-rx|iface-rx ...`, one that names what the job sets itself
// (--db, tx_host, --dry-run), a missing rx interface, an artefact target that is neither http(s)
// nor scp, and a kernel deploy without a kernel.
Result<std::string> lavaJobYaml(const LavaJobSpec& spec);

// The role names, as the job and its test definitions name them.
inline constexpr const char* kGeneratorRole = "generator";
inline constexpr const char* kDutRole = "dut";

}  // namespace nf::engine::lab
