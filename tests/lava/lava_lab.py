#!/usr/bin/python3
"""Runs a LAVA MultiNode job on this machine, against two "ssh" devices that are sshd
instances in network namespaces, with LAVA's own coordinator and dispatcher.

    lava_lab.py --job JOB.yaml --workdir DIR [--keep] [--bin-dir DIR] [--timeout S]
    lava_lab.py --exec CMD --workdir DIR [--bin-dir DIR]     (the lab without LAVA)

The lab (all of it made here, all of it removed on exit, and nothing else):

  root namespace  bridge nflava-br 10.77.0.1/24: the dispatchers' side, where lava-coordinator
                  listens and both lava-run processes run
  nflava-gen      nfl-mgmt 10.77.0.2/24 (veth to the bridge, default route via 10.77.0.1),
                  nfl-tx 10.78.0.1/24, sshd on 10.77.0.2:22: the device for role "generator"
  nflava-dut      nfl-mgmt 10.77.0.3/24, nfl-rx 10.78.0.2/24, sshd on 10.77.0.3:22:
                  the device for role "dut"
  nfl-tx <-> nfl-rx  the veth cable between the two, for measurements

Each device's sshd runs in the mount namespace `ip netns exec` gives it (slave to the host's),
with its own /tmp (DIR/devices/NAME/tmp; DIR and --bin-dir stay visible at their own paths in
it) and its own /lava-JOBID (DIR/devices/NAME/lava-JOBID, bound over an empty directory this
run makes in / and removes), as two real devices would have: LAVA's MultiNode scripts keep their
message cache in /tmp/lava_multi_node_cache.txt, and LAVA's ssh deployment unpacks the test
overlay with `tar -C /` into /lava-JOBID. LAVA's scp leaves the tarball itself at
/lava-JOBID-overlay-LEVEL.tar.gz in the host's /: the lab refuses to start when anything named
/lava-JOBID* is there already, and removes those files at the end.

The dispatchers log in as root with DIR/ssh/lava_key. Commands on the dut reach the generator
with `ssh -F DIR/ssh_config_dut root@10.77.0.2` (key DIR/ssh/dut_key, known host checked):
noisefloor's udp-rx uses that as -p tx_host=root@10.77.0.2 -p ssh_config=DIR/ssh_config_dut.
The sshd sessions' PATH starts with --bin-dir, and each device's /usr/local/bin (a bind mount of its
own) links its noisefloor, so noisefloor is found as a device with it installed finds it, the
login shell LAVA's test shell runs in included.

The job file may use @WORKDIR@ and @BINDIR@, replaced by the absolute DIR and --bin-dir before
the job is submitted. The job is validated with lava_common's schema, split with lava-server's
split_multinode_yaml (the server's own code), and given the roles map the scheduler adds when a
group starts (sub-job id -> role). Sub-job ids are numbered as a fresh server numbers them:
integers from --first-job-id (display ids N.0, N.1 are the server's "sub_id").

DIR/results.json: {role: {device, job_id, sub_id, exit, completed, cases: [{suite, name,
result, measurement, units, reference}]}}. Exit 0 only when both lava-run exited 0 and both
sub-jobs' lava/job result is pass (LAVA calls such a job complete even when a test case in it
failed) and no recorded result is fail.
"""

import argparse
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import types
import uuid

import yaml

VERSION = "2023.01-2"
CACHE = os.environ.get("LAVA_CACHE", f"/var/cache/noisefloor/lava-{VERSION}")
ROOT = os.path.join(CACHE, "root")
DIST = os.path.join(ROOT, "usr/lib/python3/dist-packages")
DEVICE_TYPES = os.path.join(ROOT, "usr/share/lava-server/device-types")
LAVA_RUN = os.path.join(ROOT, "usr/bin/lava-run")
STUBS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stubs")
COORDINATOR_CONF = "/etc/lava-coordinator/lava-coordinator.conf"  # lava-run reads only this path
SSHD = "/usr/sbin/sshd"

BRIDGE = "nflava-br"
NET = "10.77.0"
DISPATCHER_IP = f"{NET}.1"
# role -> device (namespace name, management address, root-side veth, cable interface, address)
DEVICES = {
    "generator": {"name": "nflava-gen", "ip": f"{NET}.2", "peer": "nflava-gen0", "cable": "nfl-tx",
                  "cable_ip": "10.78.0.1"},
    "dut": {"name": "nflava-dut", "ip": f"{NET}.3", "peer": "nflava-dut0", "cable": "nfl-rx",
            "cable_ip": "10.78.0.2"},
}


class Stop(Exception):
    """A signal asked the lab to stop."""


def log(msg):
    print(f"lava-lab: {msg}", flush=True)


def sh(*args, check=True, capture=False):
    r = subprocess.run(list(args), check=False, text=True,
                       stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.PIPE if capture else None)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({r.returncode}): {r.stderr or ''}".strip())
    return r


def link_exists(name, netns=None):
    args = ["ip"] + (["-n", netns] if netns else []) + ["link", "show", name]
    return subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def netns_exists(name):
    return os.path.exists(f"/run/netns/{name}")


def lava_server():
    """lava-server's own submission check and MultiNode split (lava_scheduler_app.schema.
    validate_submission, lava_scheduler_app.utils.split_multinode_yaml), imported from the
    unpacked package. lava_scheduler_app imports django: its __init__ checks django.VERSION, and
    schema.py reads settings.EXTRA_CONTEXT_VARIABLES when it is imported (utils.py imports
    django.conf.settings too, and reads it only in its LDAP helpers). Django is not installed:
    a stand-in module gives that one setting lava-server's default (lava_server/settings/
    common.py: []) and raises on any other, so any further use fails loudly."""
    if "django" not in sys.modules:
        class _Settings:
            EXTRA_CONTEXT_VARIABLES = []

            def __getattr__(self, name):
                raise RuntimeError(f"django settings stand-in: {name} read by lava-server code")
        django = types.ModuleType("django")
        django.VERSION = (3, 2, 0, "final", 0)
        conf = types.ModuleType("django.conf")
        conf.settings = _Settings()
        django.conf = conf
        sys.modules["django"] = django
        sys.modules["django.conf"] = conf
    if DIST not in sys.path:
        sys.path.append(DIST)
    from lava_scheduler_app.schema import validate_submission
    from lava_scheduler_app.utils import split_multinode_yaml
    return validate_submission, split_multinode_yaml


def render_device(name, ip, key):
    """The device dictionary as lava-server renders it: the device's jinja2 file extends the
    device-type template, looked up in the device-types directory."""
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([DEVICE_TYPES]), autoescape=False,
                             trim_blocks=True)
    source = ("{% extends 'ssh.jinja2' %}\n"
              f"{{% set ssh_host = '{ip}' %}}\n"
              "{% set ssh_port = 22 %}\n"
              "{% set ssh_user = 'root' %}\n"
              f"{{% set ssh_identity_file = '{key}' %}}\n"
              "{% set schroot_name_list = [] %}\n")
    template = env.from_string(source)
    rendered = template.render()
    yaml.safe_load(rendered)  # must be valid YAML
    return source, rendered


def parse_log(path):
    """lava-run's log: one YAML line per record (`- {dt, lvl, msg}`); results are lvl: results."""
    cases = []
    job_result = None
    if not os.path.exists(path):
        return cases, job_result
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if '"lvl": "results"' not in line:
                continue
            text = line[2:] if line.startswith("- ") else line
            try:
                rec = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            except yaml.YAMLError:
                continue
            msg = rec.get("msg") if isinstance(rec, dict) else None
            if not isinstance(msg, dict):
                continue
            case = {"suite": msg.get("definition"), "name": msg.get("case"),
                    "result": msg.get("result"), "measurement": msg.get("measurement"),
                    "units": msg.get("units"), "reference": msg.get("reference")}
            if msg.get("set"):
                case["set"] = msg["set"]
            cases.append(case)
            if msg.get("definition") == "lava" and msg.get("case") == "job":
                job_result = msg.get("result")
    return cases, job_result


class Lab:
    def __init__(self, workdir, bin_dir, keep):
        self.dir = workdir
        self.bin_dir = bin_dir
        self.keep = keep
        self.undo = []  # (description, callable), run in reverse
        self.job_ids = {}  # role -> sub-job id
        self.runs = {}
        self.collected = False
        self.procs = {}  # name -> Popen (each its own process group)

    # --- network -----------------------------------------------------------------------------
    def check_free(self):
        taken = [n for n in (d["name"] for d in DEVICES.values()) if netns_exists(n)]
        taken += [n for n in [BRIDGE] + [d["peer"] for d in DEVICES.values()] if link_exists(n)]
        for i in self.job_ids.values():
            taken += glob.glob(f"/lava-{i}") + glob.glob(f"/lava-{i}-*")
        if taken:
            raise RuntimeError(f"already exist (not made by this run; remove them yourself): {', '.join(taken)}")

    def build_network(self):
        self.check_free()
        sh("ip", "link", "add", BRIDGE, "type", "bridge")
        self.undo.append((f"bridge {BRIDGE}", lambda: sh("ip", "link", "del", BRIDGE, check=False)))
        sh("ip", "addr", "add", f"{DISPATCHER_IP}/24", "dev", BRIDGE)
        sh("ip", "link", "set", BRIDGE, "up")
        for dev in DEVICES.values():
            ns, peer = dev["name"], dev["peer"]
            sh("ip", "netns", "add", ns)
            self.undo.append((f"namespace {ns}", lambda ns=ns: self.delete_netns(ns)))
            sh("ip", "link", "add", peer, "type", "veth", "peer", "name", "nfl-mgmt", "netns", ns)
            self.undo.append((f"veth {peer}", lambda peer=peer: link_exists(peer) and
                              sh("ip", "link", "del", peer, check=False)))
            sh("ip", "link", "set", peer, "master", BRIDGE, "up")
            sh("ip", "-n", ns, "addr", "add", f"{dev['ip']}/24", "dev", "nfl-mgmt")
            sh("ip", "-n", ns, "link", "set", "nfl-mgmt", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "route", "add", "default", "via", DISPATCHER_IP)
        gen, dut = DEVICES["generator"], DEVICES["dut"]
        sh("ip", "link", "add", gen["cable"], "netns", gen["name"], "type", "veth", "peer", "name",
           dut["cable"], "netns", dut["name"])  # goes with the namespaces
        for dev in (gen, dut):
            sh("ip", "-n", dev["name"], "addr", "add", f"{dev['cable_ip']}/24", "dev", dev["cable"])
            sh("ip", "-n", dev["name"], "link", "set", dev["cable"], "up")
        log(f"network: bridge {BRIDGE} {DISPATCHER_IP}/24; "
            + "; ".join(f"{d['name']} {d['ip']} + {d['cable']} {d['cable_ip']}" for d in DEVICES.values()))

    def delete_netns(self, ns):
        if not netns_exists(ns):
            return
        pids = sh("ip", "netns", "pids", ns, check=False, capture=True).stdout.split()
        for pid in pids:  # whatever is still running in the namespace this run made
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        for _ in range(50):
            if not sh("ip", "netns", "pids", ns, check=False, capture=True).stdout.split():
                break
            time.sleep(0.05)
        sh("ip", "netns", "del", ns, check=False)

    # --- ssh ---------------------------------------------------------------------------------
    def keygen(self, path):
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "noisefloor-lava-lab", "-f", path)
        with open(path + ".pub", encoding="utf-8") as f:
            return f.read().strip()

    def start_sshd(self):
        sshdir = os.path.join(self.dir, "ssh")
        os.makedirs(sshdir, mode=0o700)
        lava_pub = self.keygen(os.path.join(sshdir, "lava_key"))
        dut_pub = self.keygen(os.path.join(sshdir, "dut_key"))
        if not os.path.isdir("/run/sshd"):  # sshd's privilege-separation directory
            os.makedirs("/run/sshd", mode=0o755)
            self.undo.append(("/run/sshd", lambda: shutil.rmtree("/run/sshd", ignore_errors=True)))
        path = ":".join(([self.bin_dir] if self.bin_dir else []) + ["/usr/sbin", "/usr/bin", "/sbin", "/bin"])
        known = []
        for role, dev in DEVICES.items():
            name = dev["name"]
            host_pub = self.keygen(os.path.join(sshdir, f"{name}_host_key"))
            known.append(f"{dev['ip']} {host_pub}")
            auth = os.path.join(sshdir, f"{name}_authorized_keys")
            with open(auth, "w", encoding="utf-8") as f:
                f.write(lava_pub + "\n" + (dut_pub + "\n" if role == "generator" else ""))
            conf = os.path.join(sshdir, f"{name}_sshd_config")
            with open(conf, "w", encoding="utf-8") as f:
                f.write(f"Port 22\nListenAddress {dev['ip']}\nHostKey {sshdir}/{name}_host_key\n"
                        f"AuthorizedKeysFile {auth}\nPidFile none\nPermitRootLogin prohibit-password\n"
                        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
                        f"StrictModes no\nSetEnv PATH={path}\nSubsystem sftp internal-sftp\n")
            # The device's private /tmp, with DIR and the bin dir visible at their own paths.
            tmp = os.path.join(self.dir, "devices", name, "tmp")
            os.makedirs(tmp)
            os.chmod(tmp, 0o1777)
            binds = []
            for keep in {self.dir, self.bin_dir} - {None}:
                if keep == "/tmp" or keep.startswith("/tmp/"):
                    inner = os.path.join(tmp, os.path.relpath(keep, "/tmp"))
                    os.makedirs(inner, exist_ok=True)
                    binds.append(f'mount --bind "{keep}" "{inner}"')
            # noisefloor "installed" on the device: its own /usr/local/bin (on every shell's PATH,
            # the login shell LAVA's test shell runs in included, which /etc/profile gives its own
            # PATH) holds a link to the bin dir's noisefloor.
            if self.bin_dir and os.path.exists(os.path.join(self.bin_dir, "noisefloor")):
                local_bin = os.path.join(self.dir, "devices", name, "usr-local-bin")
                os.makedirs(local_bin)
                os.symlink(os.path.join(self.bin_dir, "noisefloor"), os.path.join(local_bin, "noisefloor"))
                binds.append(f'mount --bind "{local_bin}" /usr/local/bin')
            # LAVA's ssh deployment unpacks the overlay with `tar -C /`, so the test shell lives in
            # /lava-JOBID on the device's /: an empty mount point there (made here, removed at
            # the end) gets the device's own DIR/devices/NAME/lava-JOBID in its mount namespace.
            if role not in self.job_ids:  # --exec: no job
                results = None
            else:
                results = f"/lava-{self.job_ids[role]}"
            if results:
                own = os.path.join(self.dir, "devices", name, results.lstrip("/"))
                os.makedirs(own)
                os.mkdir(results)
                self.undo.append((results, lambda r=results: os.rmdir(r)))
                # LAVA's scp puts the overlay tarball next to it, at /lava-JOBID-overlay-LEVEL.tar.gz
                # in the host's / (nothing of that name was there at the start).
                self.undo.append((f"{results}-overlay-*.tar.gz", lambda r=results: [
                    os.remove(f) for f in glob.glob(f"{r}-overlay-*.tar.gz") if os.path.isfile(f)]))
                binds.append(f'mount --bind "{own}" "{results}"')
            # Each device has its own host name (its own UTS namespace), as a lab's machines do:
            # the job names the dut and the generator by `uname -n`.
            script = " && ".join([f"hostname {name}"] + binds + [f'mount --rbind "{tmp}" /tmp',
                                                                 f'exec {SSHD} -D -e -f "{conf}"'])
            err = open(os.path.join(self.dir, f"{name}-sshd.log"), "w")
            # ip netns exec gives the process its own mount namespace (slave to the host's), so
            # the binds stay inside it.
            self.procs[f"sshd-{name}"] = subprocess.Popen(
                ["ip", "netns", "exec", name, "unshare", "--uts", "/bin/sh", "-c", script], stdin=subprocess.DEVNULL,
                stdout=err, stderr=err, start_new_session=True)
        with open(os.path.join(sshdir, "known_hosts"), "w", encoding="utf-8") as f:
            f.write("\n".join(known) + "\n")
        gen = DEVICES["generator"]["ip"]
        self.ssh_config_dut = os.path.join(self.dir, "ssh_config_dut")
        with open(self.ssh_config_dut, "w", encoding="utf-8") as f:
            f.write(f"Host {gen} gen\n  HostName {gen}\n  User root\n  IdentityFile {sshdir}/dut_key\n"
                    f"  IdentitiesOnly yes\n  UserKnownHostsFile {sshdir}/known_hosts\n"
                    "  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  BatchMode yes\n"
                    "  ConnectTimeout 10\n")
        # Both answer the dispatcher's key, and the dut reaches the generator with its own.
        probes = [["ssh", "-i", f"{sshdir}/lava_key", "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
                   "-o", f"UserKnownHostsFile={sshdir}/known_hosts", "-o", "StrictHostKeyChecking=yes",
                   "-o", "ConnectTimeout=2", f"root@{d['ip']}", "true"] for d in DEVICES.values()]
        probes.append(["ip", "netns", "exec", DEVICES["dut"]["name"], "ssh", "-F", self.ssh_config_dut,
                       f"root@{gen}", "true"])
        for probe in probes:
            for _ in range(100):
                for pname, p in self.procs.items():
                    if p.poll() is not None:
                        raise RuntimeError(f"{pname} exited {p.returncode}; see {self.dir}/*-sshd.log")
                if subprocess.run(probe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
                    break
                time.sleep(0.05)
            else:
                raise RuntimeError(f"ssh did not answer: {' '.join(probe)}")
        log(f"sshd: root@{DEVICES['generator']['ip']} and root@{DEVICES['dut']['ip']} answer; "
            f"dut -> generator with -F {self.ssh_config_dut}")

    # --- coordinator -------------------------------------------------------------------------
    def start_coordinator(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((DISPATCHER_IP, 0))
        port = s.getsockname()[1]
        s.close()
        self.coordinator_conf = os.path.join(self.dir, "lava-coordinator.conf")
        with open(self.coordinator_conf, "w", encoding="utf-8") as f:
            json.dump({"port": port, "blocksize": 4096, "poll_delay": 1,
                       "coordinator_hostname": DISPATCHER_IP}, f, indent=2)
        self.procs["coordinator"] = subprocess.Popen(
            ["/usr/bin/python3", "/usr/bin/lava-coordinator", "--config", self.coordinator_conf,
             "--logfile", os.path.join(self.dir, "lava-coordinator.log"), "--loglevel", "DEBUG"],
            stdin=subprocess.DEVNULL, start_new_session=True)
        for _ in range(200):
            if self.procs["coordinator"].poll() is not None:
                raise RuntimeError(f"lava-coordinator exited {self.procs['coordinator'].returncode}")
            try:
                socket.create_connection((DISPATCHER_IP, port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("lava-coordinator did not listen")
        log(f"lava-coordinator: pid {self.procs['coordinator'].pid} on {DISPATCHER_IP}:{port}")

    # --- the job -----------------------------------------------------------------------------
    def prepare_job(self, job_path, first_id):
        """Checks and splits the submission as lava-server does, and numbers the sub-jobs."""
        with open(job_path, encoding="utf-8") as f:
            text = f.read()
        if "@BINDIR@" in text and not self.bin_dir:
            raise RuntimeError(f"{job_path} uses @BINDIR@: give --bin-dir")
        text = text.replace("@WORKDIR@", self.dir).replace("@BINDIR@", self.bin_dir or "")
        submission = yaml.safe_load(text)
        validate_submission, split_multinode_yaml = lava_server()
        validate_submission(submission)  # as the server checks a submission
        from lava_common.schemas import validate
        validate(submission, strict=False)  # as lava-run checks a job
        target_group = str(uuid.uuid4())  # as the server makes one
        split = split_multinode_yaml(submission, target_group)
        if not split:
            raise RuntimeError("split_multinode_yaml returned nothing")
        unknown = set(split) - set(DEVICES)
        if unknown:
            raise RuntimeError(f"roles this lab has no device for: {sorted(unknown)} (has {sorted(DEVICES)})")
        subjobs = []  # (role, job_id, sub_id, definition)
        next_id = first_id
        for role, jobs in split.items():
            if len(jobs) != 1:
                raise RuntimeError(f"role {role}: count {len(jobs)}, this lab has one device per role")
            job = jobs[0]
            sub = job["protocols"]["lava-multinode"]["sub_id"]
            subjobs.append((role, next_id, f"{first_id}.{sub}", job))
            next_id += 1
        self.subjobs = subjobs
        self.job_ids = {role: job_id for role, job_id, _, _ in subjobs}
        # lava-run keeps its downloads and overlay in /var/lib/lava/dispatcher/tmp/PREFIXJOBID:
        # a prefix of this run's own keeps two labs (or a real worker) apart.
        self.prefix = f"nflava-{target_group[:8]}-"
        log(f"job: {', '.join(f'{r} -> {i} ({s})' for r, i, s, _ in subjobs)}, group {target_group}")

    def run_job(self, timeout):
        subjobs = self.subjobs
        # What the scheduler adds when the whole group is scheduled: every sub-job id -> role.
        roles = {str(job_id): role for role, job_id, _, _ in subjobs}
        with open(os.path.join(self.dir, "dispatcher.yaml"), "w", encoding="utf-8") as f:
            yaml.safe_dump({"dispatcher_ip": DISPATCHER_IP, "prefix": self.prefix}, f)
        base = "/var/lib/lava/dispatcher/tmp"
        for _, job_id, _, _ in subjobs:
            d = os.path.join(base, f"{self.prefix}{job_id}")
            self.undo.append((d, lambda d=d: shutil.rmtree(d, ignore_errors=True)))
        env = dict(os.environ)
        env["PYTHONPATH"] = ":".join([DIST, STUBS])
        env["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin"
        env.pop("PYTHONHOME", None)
        self.runs = {}
        for role, job_id, sub_id, job in subjobs:
            dev = DEVICES[role]
            out = os.path.join(self.dir, "jobs", str(job_id))
            os.makedirs(out)
            job["protocols"]["lava-multinode"]["roles"] = roles
            with open(os.path.join(out, "job.yaml"), "w", encoding="utf-8") as f:
                yaml.safe_dump(job, f, sort_keys=False)
            source, rendered = render_device(dev["name"], dev["ip"], os.path.join(self.dir, "ssh", "lava_key"))
            with open(os.path.join(out, f"{dev['name']}.jinja2"), "w", encoding="utf-8") as f:
                f.write(source)
            with open(os.path.join(out, "device.yaml"), "w", encoding="utf-8") as f:
                f.write(rendered)
            # lava-run reads the coordinator's address from COORDINATOR_CONF only: bind this
            # lab's file over it in a mount namespace of lava-run's own.
            cmd = ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                   'mount --bind "$0" "$1" && shift 2 && exec "$@"', self.coordinator_conf, COORDINATOR_CONF,
                   "nice", LAVA_RUN, f"--job-id={job_id}", f"--output-dir={out}/tmp",
                   f"--device={out}/device.yaml", f"--dispatcher={self.dir}/dispatcher.yaml", f"{out}/job.yaml"]
            with open(os.path.join(out, "command"), "w", encoding="utf-8") as f:
                f.write(" ".join(cmd) + "\n")
            logf = open(os.path.join(out, "log.yaml"), "w")
            outf = open(os.path.join(out, "stdout"), "w")
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=outf, stderr=logf, env=env,
                                 start_new_session=True)
            self.procs[f"lava-run-{job_id}"] = p
            self.runs[role] = {"device": dev["name"], "job_id": job_id, "sub_id": sub_id, "proc": p, "dir": out}
            log(f"lava-run {job_id} ({sub_id}, role {role}, device {dev['name']}): pid {p.pid}, log {out}/log.yaml")
        deadline = time.monotonic() + timeout
        timed_out = False
        while any(r["proc"].poll() is None for r in self.runs.values()):
            if time.monotonic() > deadline:
                timed_out = True
                log(f"timeout after {timeout} s: stopping lava-run")
                for r in self.runs.values():
                    self.stop_proc(f"lava-run-{r['job_id']}", grace=10)
                break
            time.sleep(0.2)
        return self.collect() and not timed_out

    def collect(self):
        """Writes DIR/results.json from each lava-run's log (also after a stop or a timeout)."""
        results = {}
        ok = True
        for role, r in self.runs.items():
            cases, job_result = parse_log(os.path.join(r["dir"], "log.yaml"))
            rc = r["proc"].returncode
            results[role] = {"device": r["device"], "job_id": r["job_id"], "sub_id": r["sub_id"], "exit": rc,
                             "completed": job_result == "pass", "cases": cases}
            failed = [f"{c['suite']}/{c['name']}" for c in cases if c["result"] == "fail"]
            ok = ok and rc == 0 and job_result == "pass" and not failed
            log(f"{role}: lava-run exit {rc}, lava/job {job_result}, {len(cases)} results"
                + (f", failed: {' '.join(failed)}" if failed else ""))
        with open(os.path.join(self.dir, "results.json"), "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
        self.collected = True
        return ok

    def run_command(self, command, timeout):
        env = dict(os.environ, LAB_DIR=self.dir)
        p = subprocess.Popen(["/bin/sh", "-c", command], env=env, start_new_session=True)
        self.procs["command"] = p
        try:
            rc = p.wait(timeout)
        except subprocess.TimeoutExpired:
            log(f"timeout after {timeout} s: stopping the command")
            self.stop_proc("command")
            return False
        log(f"command exited {rc}")
        return rc == 0

    # --- teardown ----------------------------------------------------------------------------
    def stop_proc(self, name, grace=5.0):
        p = self.procs.get(name)
        if p is None or p.poll() is not None:
            return
        try:
            os.killpg(p.pid, signal.SIGTERM)  # each was started as its own session and group
        except ProcessLookupError:
            return
        try:
            p.wait(grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()

    def teardown(self):
        for name in [n for n in self.procs if n.startswith("lava-run")] + ["command", "coordinator"] + \
                [n for n in self.procs if n.startswith("sshd")]:
            if name in self.procs:
                self.stop_proc(name)
                # a group member may outlive its leader (ssh started by lava-run)
                try:
                    os.killpg(self.procs[name].pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        while self.undo:
            what, fn = self.undo.pop()
            try:
                fn()
            except Exception as exc:  # keep undoing the rest
                log(f"teardown: {what}: {exc}")
        log("teardown: done")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--job", help="MultiNode job definition (YAML)")
    what.add_argument("--exec", dest="command", metavar="CMD",
                      help="no LAVA: build the lab, run CMD with sh in the root namespace (LAB_DIR is DIR), "
                           "exit with its status")
    ap.add_argument("--workdir", required=True, help="directory for the lab's files (created; must be empty)")
    ap.add_argument("--keep", action="store_true",
                    help="keep DIR's keys and device directories after a pass too (logs, sub-jobs and "
                         "results.json are always kept; after a failure everything is; the lab itself "
                         "is always removed)")
    ap.add_argument("--bin-dir", default=None, help="directory put first on the devices' ssh PATH (@BINDIR@)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds for both lava-run together")
    ap.add_argument("--first-job-id", type=int, default=1)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("lava-lab: needs root (namespaces, veths, a bridge, sshd)", file=sys.stderr)
        return 2
    if not os.path.exists(LAVA_RUN):
        print(f"lava-lab: no {LAVA_RUN}: run scripts/setup-lava", file=sys.stderr)
        return 2
    workdir = os.path.abspath(args.workdir)
    if os.path.exists(workdir) and os.listdir(workdir):
        print(f"lava-lab: {workdir} is not empty", file=sys.stderr)
        return 2
    os.makedirs(workdir, exist_ok=True)
    bin_dir = os.path.abspath(args.bin_dir) if args.bin_dir else None

    def on_signal(signum, _frame):
        raise Stop(signal.Signals(signum).name)

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    lab = Lab(workdir, bin_dir, args.keep)
    ok = False
    started = time.monotonic()
    try:
        if args.job:
            lab.prepare_job(os.path.abspath(args.job), args.first_job_id)
        lab.build_network()
        lab.start_sshd()
        if args.job:
            lab.start_coordinator()
            ok = lab.run_job(args.timeout)
        else:
            ok = lab.run_command(args.command, args.timeout)
    except Stop as exc:
        log(f"stopped by {exc}")
    except Exception as exc:
        log(f"error: {exc}")
    finally:
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)  # teardown runs to its end
        lab.teardown()
        if lab.runs and not lab.collected:
            lab.collect()
        if not args.keep and ok:
            for sub in ("ssh", "devices"):
                shutil.rmtree(os.path.join(workdir, sub), ignore_errors=True)
    log(f"{'PASS' if ok else 'FAIL'} in {time.monotonic() - started:.1f} s; results {workdir}/results.json")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
