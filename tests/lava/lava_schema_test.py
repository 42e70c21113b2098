#!/usr/bin/python3
"""The jobs `noisefloor lava job` writes pass LAVA's own schema checks.

Both checks a submission meets (Debian's LAVA 2023.01): lava-server's validate_submission (its
scheduler's schema, stricter about test definitions; from the lava-server package scripts/setup-lava
unpacks) and lava_common.schemas.validate (the dispatcher's, strict), on the job of each kind: ssh devices without a deploy,
a kernel deployed over tftp (ramdisk, then an NFS root), a kernel kexec'd on an ssh device, and
iface-rx's generator started through the MultiNode API. The same check refuses a job with one key
broken, so a pass means the schema was applied. Bad recipes are refused by noisefloor itself, with
one line and exit status 2.

Usage: lava_schema_test.py NOISEFLOOR
"""

import subprocess
import sys

import copy
import os

import yaml
from lava_common.schemas import validate

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lava_lab import lava_server  # noqa: E402 (the unpacked lava-server, as the lab imports it)

validate_submission, _ = lava_server()
NOISEFLOOR = sys.argv[1]

JOBS = {
    "ssh pair, udp-rx": [
        "--artifacts", "lab-store:/srv/noisefloor", "--",
        "run", "udp-rx", "-p", "iface=eth1", "--variant", "a:batch=1", "--variant", "b:batch=64"],
    "tftp kernel, ramdisk": [
        "--artifacts", "https://lab.example/upload/", "--deploy", "tftp",
        "--kernel", "https://lab.example/kernels/patched/bzImage", "--kernel-type", "zimage",
        "--ramdisk", "https://lab.example/kernels/patched/initrd.cpio.gz",
        "--device-type", "dut=x86", "--tag", "pair-3", "--",
        "run", "udp-rx", "-p", "iface=eth1", "--label", "patched"],
    "tftp kernel, nfs root": [
        "--artifacts", "https://lab.example/upload/", "--deploy", "tftp", "--boot-method", "u-boot",
        "--kernel", "https://lab.example/kernels/Image", "--kernel-type", "image",
        "--rootfs", "https://lab.example/rootfs.tar.xz", "--dtb", "https://lab.example/board.dtb",
        "--modules", "https://lab.example/modules.tar.xz", "--device-type", "dut=bcm2711-rpi-4-b", "--",
        "run", "xdp-rx", "-p", "iface=eth0"],
    "kexec kernel": [
        "--artifacts", "scp://uploader@lab-store:2222/srv/noisefloor", "--deploy", "kexec",
        "--kernel", "https://lab.example/kernels/vanilla/bzImage",
        "--ramdisk", "https://lab.example/kernels/vanilla/initrd.img", "--",
        "run", "udp-rx", "-p", "iface=enp1s0f0", "--label", "vanilla"],
    "iface-rx through lava-send": [
        "--artifacts", "lab-store:/srv/noisefloor", "--tx-iface", "eth1", "--",
        "run", "iface-rx", "-p", "iface=eth1", "--reps", "5"],
}

REFUSED = {
    "a model, not a pair": ["--artifacts", "h:/d", "--", "run", "spin"],
    "no rx interface": ["--artifacts", "h:/d", "--", "run", "udp-rx"],
    "tx_host set by hand": ["--artifacts", "h:/d", "--", "run", "udp-rx", "-p", "iface=e", "-p", "tx_host=g"],
    "--db in the recipe": ["--artifacts", "h:/d", "--", "run", "udp-rx", "-p", "iface=e", "--db", "x.db"],
    "kernel without deploy": ["--artifacts", "h:/d", "--kernel", "http://k", "--", "run", "udp-rx", "-p", "iface=e"],
    "deploy without kernel": ["--artifacts", "h:/d", "--deploy", "tftp", "--", "run", "udp-rx", "-p", "iface=e"],
    "unknown deploy": ["--artifacts", "h:/d", "--deploy", "nfs", "--kernel", "http://k", "--",
                       "run", "udp-rx", "-p", "iface=e"],
    "artefacts nowhere": ["--artifacts", "ftp://x/y", "--", "run", "udp-rx", "-p", "iface=e"],
    "iface-rx without its sender": ["--artifacts", "h:/d", "--", "run", "iface-rx", "-p", "iface=e"],
    "a path as udp-rx's noisefloor": ["--artifacts", "h:/d", "--noisefloor", "/opt/nf/noisefloor", "--",
                                      "run", "udp-rx", "-p", "iface=e"],
    "an scp target without its directory": ["--artifacts", "store:", "--", "run", "udp-rx", "-p", "iface=e"],
    "a visibility LAVA has not": ["--artifacts", "h:/d", "--visibility", "secret", "--", "run", "udp-rx", "-p",
                                  "iface=e"],
    "a third role": ["--artifacts", "h:/d", "--device-type", "host=x86", "--", "run", "udp-rx", "-p", "iface=e"],
}


def job(args):
    out = subprocess.run([NOISEFLOOR, "lava", "job", *args], capture_output=True, text=True)
    return out


failures = 0
for name, args in JOBS.items():
    out = job(args)
    if out.returncode != 0:
        print(f"FAIL {name}: noisefloor lava job exited {out.returncode}: {out.stderr.strip()}")
        failures += 1
        continue
    data = yaml.safe_load(out.stdout)
    try:
        validate_submission(copy.deepcopy(data))
    except Exception as e:  # voluptuous.Invalid and LAVA's own errors
        print(f"FAIL {name}: lava-server refused the submission: {e}")
        failures += 1
        continue
    try:
        validate(copy.deepcopy(data), strict=True)
    except Exception as e:
        print(f"FAIL {name}: LAVA's schema refused it: {e}")
        failures += 1
        continue
    roles = data["protocols"]["lava-multinode"]["roles"]
    if sorted(roles) != ["dut", "generator"]:
        print(f"FAIL {name}: roles {sorted(roles)}")
        failures += 1
        continue
    # The same check, on the job with one action's key broken, must refuse it.
    broken = yaml.safe_load(out.stdout)
    broken["actions"][-1]["test"]["definitions"][0]["from"] = "nowhere"
    try:
        validate(broken, strict=True)
        print(f"FAIL {name}: LAVA's schema accepted a broken test definition, so it checked nothing")
        failures += 1
        continue
    except Exception:
        pass
    broken = yaml.safe_load(out.stdout)
    broken["actions"][-1]["test"]["definitions"][0]["repository"]["params"] = {"NOISEFLOOR": "noisefloor"}
    try:
        validate_submission(broken)
        print(f"FAIL {name}: lava-server accepted an inline definition it refuses, so it checked nothing")
        failures += 1
        continue
    except Exception:
        pass
    print(f"ok   {name}: lava-server and LAVA's schema accept it ({len(data['actions'])} actions)")

for name, args in REFUSED.items():
    out = job(args)
    lines = [l for l in out.stderr.splitlines() if l.strip()]
    if out.returncode != 2 or len(lines) != 1 or out.stdout:
        print(f"FAIL refused {name}: exit {out.returncode}, stderr {out.stderr!r}, stdout {len(out.stdout)} bytes")
        failures += 1
    else:
        print(f"ok   refused {name}: {lines[0]}")

sys.exit(1 if failures else 0)
