#!/usr/bin/python3
"""A job `noisefloor lava job` writes, run by real LAVA, and its run collected.

The job (udp-rx, two interleaved variants, the generator driven over ssh between the roles) is
checked and split by lava-server's code and run by lava-coordinator and two lava-dispatcher
processes (`lava-run`) against two ssh devices: tests/lava/lava_lab.py builds that lab (sshd in
two network namespaces, a veth cable between them for the traffic, a bridge for the dispatchers).
The dut uploads its run with scp to the generator device's sshd, into the lab's directory. Then:

- LAVA's results hold noisefloor-found, noisefloor-run and noisefloor-artifact (with the upload's
  reference), each variant's pps mean and the verdict between them;
- `noisefloor lava collect` merges the run with its job id, device and generator, and a second
  collect merges nothing;
- `noisefloor show` names the job and the pair.

With `iface-rx`, the pure-LAVA variant instead: no ssh between the roles; the generator role starts
`noisefloor generate` itself, to the MAC and address the dut sent with lava-send, and the dut
measures the interface's receive rate.

Usage: lava_job_test.py NOISEFLOOR [udp-rx|iface-rx]
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

NOISEFLOOR = os.path.abspath(sys.argv[1])
MODE = sys.argv[2] if len(sys.argv) > 2 else "udp-rx"
HERE = os.path.dirname(os.path.abspath(__file__))

failures = []


def check(ok, what):
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        failures.append(what)


def nf(*args):
    return subprocess.run([NOISEFLOOR, *args], capture_output=True, text=True)


tmp = tempfile.mkdtemp(prefix="nf-lava-job-")
lab = os.path.join(tmp, "lab")
job = os.path.join(tmp, "job.yaml")
# @WORKDIR@ and @BINDIR@ are the lab's directory and the build's, filled in by lava_lab.py.
common = ["lava", "job", "-o", job, "--artifacts", "root@10.77.0.2:@WORKDIR@", "--ssh-config",
          "@WORKDIR@/ssh_config_dut", "--noisefloor", "noisefloor", "--timeout", "10"]
if MODE == "udp-rx":
    made = nf(*common, "--name", "noisefloor CI: udp-rx between two LAVA ssh devices", "--",
              "run", "udp-rx", "-p", "iface=nfl-rx", "-p", "tx_iface=nfl-tx", "--variant", "b1:batch=1",
              "--variant", "b64:batch=64", "--reps", "2", "--duration", "2", "--warmup", "0.5", "--label", "lava-ci")
    VARIANTS = ("b1", "b64")
else:
    made = nf(*common, "--name", "noisefloor CI: iface-rx, its generator started through lava-send",
              "--tx-iface", "nfl-tx", "--", "run", "iface-rx", "-p", "iface=nfl-rx", "--reps", "3", "--duration",
              "1", "--label", "lava-ci")
    VARIANTS = ("default",)
check(made.returncode == 0, f"noisefloor lava job wrote the job ({made.stderr.strip()})")

lab_run = subprocess.run([sys.executable, os.path.join(HERE, "lava_lab.py"), "--job", job, "--workdir", lab,
                          "--bin-dir", os.path.dirname(NOISEFLOOR), "--timeout", "180"])
# lava_lab.py exits 1 when any result failed; here a verdict may fail for what it is: on this
# 2-core machine the generator and the receiver share the CPUs, and noisefloor calls such a live
# test invalid (receive CPU not saturated), which `lava results` reports as a failed comparison.
# Everything else must pass.

results = {}
try:
    with open(os.path.join(lab, "results.json"), encoding="utf-8") as f:
        results = json.load(f)
except OSError as e:
    check(False, f"results.json: {e}")


for role in ("generator", "dut"):
    r = results.get(role, {})
    check(r.get("exit") == 0 and r.get("completed") is True, f"{role}: lava-run exit {r.get('exit')}, job completed")
    failed = [c["name"] for c in r.get("cases", []) if c["result"] == "fail"]
    check(all("-vs-" in n for n in failed), f"{role}: failed results are verdicts only ({failed})")


def cases(role):
    return {c["name"]: c for c in results.get(role, {}).get("cases", [])}


dut = cases("dut")
gen = cases("generator")
for name in ("noisefloor-found", "noisefloor-run", "noisefloor-artifact"):
    check(dut.get(name, {}).get("result") == "pass", f"dut: {name} pass ({dut.get(name)})")
check(gen.get("noisefloor-found", {}).get("result") == "pass", "generator: noisefloor-found pass")
ref = dut.get("noisefloor-artifact", {}).get("reference") or ""
check(ref.startswith("root@10.77.0.2:") and ref.endswith(".db"), f"the upload's reference is recorded ({ref})")
for variant in VARIANTS:
    c = dut.get(f"pps.{variant}", {})
    value = float(c.get("measurement") or 0)
    check(c.get("result") == "pass" and value > 1000, f"dut: pps.{variant} = {value:.0f} {c.get('units')}")
if MODE == "udp-rx":
    verdicts = [n for n in dut if n == "pps.b64-vs-b1"]
    check(len(verdicts) == 1, f"dut: the verdict between the variants is a result ({verdicts})")
else:
    check(gen.get("noisefloor-generate", {}).get("result") == "pass", "generator: noisefloor-generate pass")
uploads = [f for f in os.listdir(lab) if f.startswith("noisefloor-") and f.endswith(".db")] if os.path.isdir(lab) else []
check(len(uploads) == 1, f"the dut uploaded one run database ({uploads})")
db = os.path.join(tmp, "here.db")
first = nf("--db", db, "lava", "collect", lab)
dut_job = str(results.get("dut", {}).get("job_id", ""))
check(first.returncode == 0 and f"job {dut_job} on nflava-gen+nflava-dut: merged as run 1" in first.stdout,
      f"lava collect merged the run with its job and pair ({first.stdout.strip()} {first.stderr.strip()})")
again = nf("--db", db, "lava", "collect", lab)
check(again.returncode == 0 and "0 merged, 1 not merged" in again.stdout,
      f"a second collect merges nothing ({again.stdout.strip()})")
show = nf("--db", db, "show", "1")
check(f"LAVA job {dut_job}, device under test nflava-dut, generator nflava-gen" in show.stdout,
      "show names the job, the dut and the generator")
compare = nf("--db", db, "compare", "1") if MODE == "udp-rx" else nf("--db", db, "show", "1")
check(compare.returncode == 0 and VARIANTS[-1] in compare.stdout, "the collected run reads back")

if failures:
    print(f"{len(failures)} failed; the lab's files are in {tmp}")
    sys.exit(1)
shutil.rmtree(tmp, ignore_errors=True)
