#!/usr/bin/env bash
# Peak RSS and time of `noisefloor import` on inputs at and past its limits (docs/benchmarks.md):
# a 60 MiB sar -f history, a 60 MiB perf stat -x, file of appended runs (refused past 10,000
# runs), a sparse 1 GiB file, /dev/zero, 1 GiB of text through a pipe, 60 MiB of perf script
# (FlameGraph's real iperf recording repeated, its times moved on); against `cat` of the same
# input as the reference that only reads it.
# Run: bench/import_memory.sh [build/app/noisefloor]
set -euo pipefail
nf=${1:-build/app/noisefloor}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" "$(dirname "$0")/../tests/data/import/real/perf-script_iperf_pid-tid_flamegraph.txt" <<'PY'
import random, sys
d = sys.argv[1]
random.seed(1)
with open(f"{d}/sar.txt", "w") as f:
    f.write("Linux 6.1.0 (host) \t11/30/26 \t_x86_64_\t(2 CPU)\n\n00:00:00        IFACE   rxpck/s   txpck/s"
            "    rxkB/s    txkB/s   rxcmp/s   txcmp/s  rxmcst/s   %ifutil\n")
    t = 0
    while f.tell() < 60 << 20:
        t += 1
        h, m, s = (t // 3600) % 24, (t // 60) % 60, t % 60
        for iface in ("eth0", "lo"):
            f.write(f"{h:02d}:{m:02d}:{s:02d}    {iface:>9} {random.uniform(0, 1e6):9.2f}" + " {:9.2f}" .format(1.0) * 7 + "\n")
with open(f"{d}/perf.csv", "w") as f:
    while f.tell() < 60 << 20:
        f.write("# started on Mon Dec  1 00:00:00 2026\n\n0.55,msec,task-clock,546000,100.00,0.4,CPUs utilized\n"
                "1,,context-switches,546000,100.00,1.8,K/sec\n50,,page-faults,546000,100.00,91.5,K/sec\n\n")
real = open(sys.argv[2]).read().split("\n\n")
with open(f"{d}/perf.script", "w") as f:
    t = 0.0
    while f.tell() < 60 << 20:
        for block in real:
            lines = block.strip("\n").split("\n")
            if not lines or not lines[0]:
                continue
            head = lines[0].split()
            t += 0.001
            f.write(f"{head[0]} {head[1]} {head[2]} {t:.6f}: cpu-clock: \n" + "\n".join(lines[1:]) + "\n\n")
PY
head -c 1400000 "$dir/perf.csv" > "$dir/perf-small.csv"
truncate -s 1G "$dir/sparse.txt"
measure() {  # name, command...
    local name=$1
    shift
    local out
    out=$( { /usr/bin/time -f "%M %e" "$@" > /dev/null 2> "$dir/err"; } 2>&1 || true)
    out=$(tail -1 "$dir/err")
    local said=ok
    [ "$(wc -l < "$dir/err")" -gt 1 ] && said=$(head -1 "$dir/err" | sed "s|$dir/||" | cut -c1-60)
    printf '%-44s %8s KiB %6s s  %s\n' "$name" "${out%% *}" "${out##* }" "$said"
}
db="$dir/runs.db"
measure "cat sar 60 MiB (reference)" cat "$dir/sar.txt"
measure "import sar 60 MiB, --iface eth0" "$nf" --db "$db" import sar "$dir/sar.txt" --iface eth0 --label m --kernel k
measure "import perf -x, 60 MiB (refused)" "$nf" --db "$db" import "$dir/perf.csv" --label m --kernel k
measure "import perf -x, 1.4 MiB (~7000 runs)" "$nf" --db "$db" import "$dir/perf-small.csv" --label m --kernel k
measure "cat perf script 60 MiB (reference)" cat "$dir/perf.script"
measure "import perf script 60 MiB, --slice 10" "$nf" --db "$db" import perf-script "$dir/perf.script" --slice 10 \
    --label p --kernel k
measure "import sparse 1 GiB file (refused)" "$nf" --db "$db" import "$dir/sparse.txt" --label m
measure "import /dev/zero (refused)" "$nf" --db "$db" import /dev/zero --label m
measure "cat 1 GiB of text (reference)" bash -c "yes 'Summary 1 rx/s' | head -c 1G | cat > /dev/null"
measure "import 1 GiB of text from a pipe (refused)" bash -c \
    "yes 'Summary                 1 rx/s' | head -c 1G | '$nf' --db '$db' import /dev/stdin --label m"
