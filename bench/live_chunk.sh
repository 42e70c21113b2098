#!/usr/bin/env bash
# Live A/B at chunk resolution (docs/benchmarks.md): udp-rx variants side by side on one veth
# testbed (WORKLOAD=xdp-rx: xdp-rx variants on a testbed each), alternated in chunks and analysed
# as chunk pairs, against interleaved repetitions (--chunk 0) in the same sitting. Needs root
# (namespaces, veth, XDP).
#   aa      two identical variants (batch=64 twice): the detectable difference (mde_pct) and the
#           verdict, chunks then repetitions, each for `reps` x `duration` s per variant
#   known   a known difference, variants A:$KNOWN_A and B:$KNOWN_B, both designs
#   false   `runs` seeded A/A runs in chunks (reps x duration each): how often "different", what
#           the places the variants traded received, and the mean change of b against a
#   chunk   A/A at chunk lengths 10, 25, 50, 100, 200 ms: mde_pct per run time
# Usage: bench/live_chunk.sh [build-dir] [reps] [duration] [runs] [parts...]
#        (defaults: build 3 10 20, all parts)
set -euo pipefail
build=${1:-build}
reps=${2:-3}
duration=${3:-10}
runs=${4:-20}
shift $(( $# < 4 ? $# : 4 ))
parts=${*:-aa known false chunk}
KNOWN_A=${KNOWN_A:-batch=8}
KNOWN_B=${KNOWN_B:-batch=64}
nf=$build/app/noisefloor
workload=${WORKLOAD:-udp-rx}
db=$(mktemp -d)/chunk.db
trap 'rm -rf "$(dirname "$db")"' EXIT
common=(-p generator=xdp-live -p tx_cpu=0 -p rx_cpu=1 -p counter_cpus=none --share-cpus --warmup 0.5)

# One run; prints its wall time, then pps: delta, CI, detectable difference, verdict and p.
one() {  # label, run arguments...
  local label=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$nf" --db "$db" run "$workload" "${common[@]}" "$@" >/dev/null
  t1=$(date +%s.%N)
  "$nf" --db "$db" compare last --format json | python3 -c '
import json, sys
label, wall = sys.argv[1], float(sys.argv[2])
for c in json.load(sys.stdin)["comparisons"]:
    if c["metric"] == "pps" and c["mde_pct"] is not None:
        holm = c.get("p_adjusted")
        print("%-22s wall %5.1f s  %-11s n=%-4d delta %+6.2f%% [%+6.2f, %+6.2f]  mde %5.2f%%  p %.3g%s  %s" % (
            label, wall, c["design"], c["n"], c["delta_pct"], c["ci_low_pct"], c["ci_high_pct"], c["mde_pct"],
            c["p"], " (Holm %.3g)" % holm if holm is not None else "", c["verdict"]))' "$label" "$(echo "$t1 - $t0" | bc)"
  "$nf" --db "$db" show last | grep -o 'live design.*' || true
  # Each variant's rates over its samples (packets, the generator's, drops) and the guards' packets.
  "$nf" --db "$db" export last --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
sums, guard = {}, 0.0
for s in d["samples"]:
    q = s["quantities"]
    t = sums.setdefault(s["variant_name"], [0.0, 0.0, 0.0, 0.0])
    for i, k in enumerate(("packets", "offered_packets", "drops")):
        t[i] += q.get(k) or 0
    t[3] += s["duration_s"]
    guard += q.get("guard_packets") or 0
received = sum(t[0] for t in sums.values())
print("  " + "; ".join("%s: pps %.0f, offered_pps %.0f, drops/s %.0f" % (v, t[0] / t[3], t[1] / t[3], t[2] / t[3])
                       for v, t in sums.items()) +
      ("; guards %.0f packets (%.2f%% of received)" % (guard, 100 * guard / (guard + received)) if guard else ""))' \
    2>/dev/null || true
}

echo "load average $(cut -d' ' -f1-3 /proc/loadavg); reps $reps x duration $duration s per variant"
for part in $parts; do
  case $part in
    aa)
      one "A/A chunks" --variant a:batch=64 --variant b:batch=64 --reps "$reps" --duration "$duration"
      one "A/A repetitions" --chunk 0 --interval 1 --variant a:batch=64 --variant b:batch=64 --reps "$reps" \
        --duration "$duration" ;;
    known)
      one "known chunks" --variant "a:$KNOWN_A" --variant "b:$KNOWN_B" --reps "$reps" --duration "$duration"
      one "known repetitions" --chunk 0 --interval 1 --variant "a:$KNOWN_A" --variant "b:$KNOWN_B" --reps "$reps" \
        --duration "$duration" ;;
    false)
      different=0
      deltas=()
      for seed in $(seq 1 "$runs"); do
        out=$(one "A/A seed $seed" --seed "$seed" --variant a:batch=64 --variant b:batch=64 --reps "$reps" \
          --duration "$duration")
        line=${out%%$'\n'*}  # the compare line
        # and what the places (ports, testbeds) the variants traded received, from the design line
        echo "$line  [$(grep -o 'pps against place 1: [^)]*' <<<"$out" || echo 'no places')]"
        case $line in *" different" | *" negligible") different=$((different + 1)) ;; esac
        deltas+=("$(sed -E 's/.*delta +([-+0-9.]+)%.*/\1/' <<<"$line")")
      done
      echo "A/A in chunks: $different of $runs runs called different or negligible"
      printf '%s\n' "${deltas[@]}" | python3 -c '
import statistics, sys
d = [float(x) for x in sys.stdin]
print("changes b against a: mean %+.2f%%, sd %.2f%%, one-sample t %.2f" % (
    statistics.mean(d), statistics.stdev(d), statistics.mean(d) / (statistics.stdev(d) / len(d) ** 0.5)))' ;;
    chunk)
      for chunk in 0.01 0.025 0.05 0.1 0.2; do
        line=$(one "A/A chunk $chunk s" --chunk "$chunk" --variant a:batch=64 --variant b:batch=64 --reps "$reps" \
          --duration "$duration")
        echo "${line%%$'\n'*}"
      done ;;
  esac
done
