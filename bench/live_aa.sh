#!/usr/bin/env bash
# Live A/A sensitivity (docs/benchmarks.md, "A quieter harness"): seeded A/A runs of a live workload,
# 60 s measured each (3 repetitions x 10 s x 2 identical variants, side by side in chunks), on a
# quiet machine and with another process busy (a shell loop, not pinned), for two builds of the
# tool in the same sitting, alternated run by run. Prints one line per run (pps: change, 95% CI,
# the smallest change the run could detect, the verdict the statistics give with --allow-invalid,
# the validity codes, the packets that fell in guards, and the harness's own cost where the build
# reports it) and a summary per workload, condition and build. Where the verdict rests on the
# setups (docs/measurement.md, "Setups as a factor"), the chunk pairs' analysis of the same run
# is printed beside it. Needs root (namespaces, veth, XDP).
# Usage: bench/live_aa.sh NEW_NF OLD_NF RUNS OLD_RUNS [workloads...]
#        (workloads: udp-rx xdp-rx; OLD_RUNS of the RUNS seeds also run OLD_NF; CONDITIONS="quiet busy";
#        RUN_ARGS, default "--reps 3 --duration 10 --warmup 0.5", e.g. "... --warmup 0.1 --setups 20")
set -euo pipefail
new=${1:?NEW_NF}
old=${2:?OLD_NF}
runs=${3:-10}
old_runs=${4:-5}
shift $(( $# < 4 ? $# : 4 ))
workloads=${*:-udp-rx xdp-rx}
conditions=${CONDITIONS:-quiet busy}
run_args=${RUN_ARGS:---reps 3 --duration 10 --warmup 0.5}
dir=$(mktemp -d)
results=$dir/results.tsv
busy_pid=
cleanup() {
  [ -n "$busy_pid" ] && kill "$busy_pid" 2>/dev/null
  cp "$results" "${KEEP_RESULTS:-/dev/null}" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

config() {  # the workload's configuration: udp-rx's is the one docs/measurement.md measured valid
  case $1 in
    udp-rx) echo "-p generator=xdp-live -p rcvbuf=8388608 -p batch=1 -p tx_cpu=0 -p rx_cpu=1" ;;
    xdp-rx) echo "-p tx_cpu=0 -p rx_cpu=1" ;;
  esac
}

one() {  # build-name nf workload condition seed
  local build=$1 nf=$2 workload=$3 condition=$4 seed=$5 db="$dir/$1.db" t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2046
  "$nf" --db "$db" run "$workload" $(config "$workload") --seed "$seed" --variant a --variant b \
    $run_args >/dev/null 2>&1 || { echo "$build $workload $condition seed $seed: run failed"; return; }
  t1=$(date +%s.%N)
  local harness guards
  harness=$("$nf" --db "$db" show last 2>/dev/null | grep -o 'harness .*' | sed 's/.*: //' || true)
  guards=$("$nf" --db "$db" show last 2>/dev/null | grep -o '[0-9.]*% of packets at switches' | cut -d% -f1 || true)
  "$nf" --db "$db" compare last --format json --allow-invalid | python3 -c '
import json, sys
build, workload, condition, seed, wall, harness, guards, results = sys.argv[1:9]
d = json.load(sys.stdin)
pairs = [c for c in d["comparisons"] if c["metric"] == "pps" and c["design"] == "paired"]
for c in d["comparisons"]:
    if c["metric"] != "pps" or not c.get("primary"):  # the design of the verdict, not the analyses beside it
        continue
    beside = pairs[0] if pairs and c["design"] != "paired" else None
    for x in (c, beside) if beside else (c,):  # an interval that could not be formed is null
        for k in ("delta_pct", "ci_low_pct", "ci_high_pct", "mde_pct"):
            x[k] = float("nan") if x.get(k) is None else x[k]
    codes = ",".join(sorted({r["code"] for r in (c.get("validity") or {}).get("reasons", [])})) or "valid"
    line = [build, workload, condition, seed, "%.1f" % float(wall), "%+.3f" % c["delta_pct"],
            "%+.3f" % c["ci_low_pct"], "%+.3f" % c["ci_high_pct"], "%.3f" % c["mde_pct"], c["verdict"], codes,
            harness or "-", guards or "-", c["design"],
            "%.3f" % beside["mde_pct"] if beside else "-", beside["verdict"] if beside else "-"]
    with open(results, "a") as f:
        f.write("\t".join(line) + "\n")
    print("%-4s %-6s %-5s seed %-2s wall %5.1f s  pps %+6.2f%% [%+6.2f, %+6.2f]  mde %5.2f%%  %-12s %s  "
          "guards %s%%  %s  %s%s" % (build, workload, condition, seed, float(wall), c["delta_pct"], c["ci_low_pct"],
                                     c["ci_high_pct"], c["mde_pct"], c["verdict"], codes, guards, harness, c["design"],
                                     "; chunk pairs alone: mde %.2f%% %s" % (beside["mde_pct"], beside["verdict"])
                                     if beside else ""))' \
    "$build" "$workload" "$condition" "$seed" "$(echo "$t1 - $t0" | bc)" "$harness" "$guards" "$results"
}

echo "load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; new $new, old $old"
for workload in $workloads; do
  for condition in $conditions; do
    if [ "$condition" = busy ]; then
      sh -c 'while :; do :; done' &
      busy_pid=$!
    fi
    for seed in $(seq 1 "$runs"); do
      if [ "$seed" -le "$old_runs" ]; then
        one old "$old" "$workload" "$condition" "$seed"
      fi
      one new "$new" "$workload" "$condition" "$seed"
    done
    if [ -n "$busy_pid" ]; then
      kill "$busy_pid"
      wait "$busy_pid" 2>/dev/null || true
      busy_pid=
    fi
  done
done

# Per workload, condition and build: the detectable difference (median, largest) and the verdicts.
python3 - "$results" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
groups = {}
for r in rows:
    groups.setdefault((r[1], r[2], r[0]), []).append(r)
print("\nworkload condition build runs  mde median  mde max  verdicts (statistics, --allow-invalid)  validity  "
      "[chunk pairs alone: mde median, verdicts]")
for (workload, condition, build), rs in sorted(groups.items()):
    mde = [float(r[8]) for r in rs]
    verdicts = {}
    codes = {}
    for r in rs:
        verdicts[r[9]] = verdicts.get(r[9], 0) + 1
        codes[r[10]] = codes.get(r[10], 0) + 1
    beside = [r for r in rs if len(r) > 14 and r[14] != "-"]
    pairs = ""
    if beside:
        pv = {}
        for r in beside:
            pv[r[15]] = pv.get(r[15], 0) + 1
        pairs = "  [%.2f%%, %s]" % (statistics.median(float(r[14]) for r in beside),
                                   ", ".join("%s %d" % kv for kv in sorted(pv.items())))
    print("%-8s %-9s %-5s %4d  %9.2f%%  %6.2f%%  %s  %s%s" % (
        workload, condition, build, len(rs), statistics.median(mde), max(mde),
        ", ".join("%s %d" % kv for kv in sorted(verdicts.items())),
        ", ".join("%s %d" % kv for kv in sorted(codes.items())), pairs))
EOF
