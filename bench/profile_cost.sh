#!/usr/bin/env bash
# What --profile costs (docs/benchmarks.md, "What profiling costs"): ROUNDS rounds, each of an
# in-process run (indirect-call, the measuring thread's CPU sampled) and a live udp-rx run (both
# CPUs sampled, the ring reader on a measured CPU where the machine has no other), once without and
# once with --profile=HZ, in alternating order so that drift over the sitting falls on both. Prints
# each pair and the median ratio of the primary metric (profiled / plain; tsc_per_op: above 1 is
# slower, pps: below 1 is slower), and the profile's own figures: samples a second, samples between
# chunks, lost records, the reader's CPU time. Needs root.
# Usage: bench/profile_cost.sh [NF] [ROUNDS] [HZ]
set -euo pipefail
nf=${1:-build/app/noisefloor}
rounds=${2:-5}
hz=${3:-1999}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db=$dir/runs.db

mean() {  # the first variant's mean of the primary metric in the last run
  "$nf" --db "$db" compare last --format json | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["variants"][0]["mean"])'
}

profile() {  # the last run's profile summary
  "$nf" --db "$db" compare last --format json | python3 -c '
import json, sys
p = json.load(sys.stdin)["profile"]
print("samples %d, between chunks %d, lost %d, reader %.3f s%s" % (p["samples"], p["outside_chunks"], p["lost"],
      p["reader_cpu_s"], " (on a measured CPU)" if p["reader_on_measured_cpu"] else ""))'
}

declare -A args=(
  [indirect-call]="--variant a:call=indirect --reps 3 --duration 2 --warmup 0.2 --layouts 0"
  [udp-rx]="--variant a -p generator=xdp-live -p rcvbuf=8388608 -p batch=1 -p tx_cpu=0 -p rx_cpu=1 --reps 3 --duration 3 --warmup 0.5"
)
for workload in indirect-call udp-rx; do
  ratios=()
  for ((round = 1; round <= rounds; round++)); do
    order=("plain" "profiled")
    ((round % 2 == 0)) && order=("profiled" "plain")
    declare -A value=()
    for kind in "${order[@]}"; do
      extra=()
      [ "$kind" = profiled ] && extra=(--profile="$hz")
      # shellcheck disable=SC2086
      "$nf" --db "$db" run "$workload" ${args[$workload]} "${extra[@]}" >/dev/null 2>&1
      value[$kind]=$(mean)
      [ "$kind" = profiled ] && summary=$(profile)
    done
    ratio=$(python3 -c "print(${value[profiled]} / ${value[plain]})")
    ratios+=("$ratio")
    printf '%s round %d: plain %.4g, profiled %.4g, ratio %.4f; %s\n' "$workload" "$round" "${value[plain]}" \
      "${value[profiled]}" "$ratio" "$summary"
    unset value
  done
  python3 -c "
import statistics, sys
r = [float(x) for x in sys.argv[1:]]
print('%s: median ratio profiled/plain %.4f (%d rounds, range %.4f-%.4f)' % ('$workload', statistics.median(r), len(r), min(r), max(r)))
" "${ratios[@]}"
done
