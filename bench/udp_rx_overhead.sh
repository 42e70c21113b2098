#!/usr/bin/env bash
# udp-rx against the smallest receiver there is, fed by the same generator on the same cores:
# does the tool's receiver (and its sampling and counters) cost packets? Per generator, N rounds;
# each round runs the minimal recvmmsg loop (udp_rx_baseline) and `noisefloor run udp-rx` for the
# same D seconds, alternating which goes first. Prints per round and the ratio of means, each
# side's run-to-run CV and each generator's rate. Needs root (namespaces, veth, XDP).
# Usage: bench/udp_rx_overhead.sh [build-dir] [rounds] [seconds]   (defaults: build 8 2)
set -euo pipefail
build=${1:-build}
rounds=${2:-8}
seconds=${3:-2}
nf=$build/app/noisefloor
baseline=$build/tests/engine/udp_rx_baseline
tx_cpu=0
rx_cpu=1
db=$(mktemp -d)/udp.db
trap 'rm -rf "$(dirname "$db")"' EXIT

tool_round() {  # prints "pps offered_pps" of one udp-rx repetition
  "$nf" --db "$db" run udp-rx -p generator="$1" -p tx_cpu=$tx_cpu -p rx_cpu=$rx_cpu -p counter_cpus=none \
    --reps 1 --duration "$seconds" --interval 0.5 --warmup 0.2 >/dev/null
  "$nf" --db "$db" show last --format json | python3 -c '
import json, sys
s = {m["metric"]: m["variants"][0]["mean"] for m in json.load(sys.stdin)["summary"]}
print("%.0f %.0f" % (s["pps"], s["offered_pps"]))'
}

summarise() {  # reads "base_pps base_gen tool_pps tool_gen" lines
  python3 -c '
import statistics as st, sys
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
b = [r[0] for r in rows]; t = [r[2] for r in rows]; bg = [r[1] for r in rows]; tg = [r[3] for r in rows]
cv = lambda xs: st.stdev(xs) / st.mean(xs) * 100
print("  minimal loop: mean %.0f pps (CV %.1f%%); generator %.0f pps (CV %.1f%%)" % (st.mean(b), cv(b), st.mean(bg), cv(bg)))
print("  udp-rx:       mean %.0f pps (CV %.1f%%); generator %.0f pps (CV %.1f%%)" % (st.mean(t), cv(t), st.mean(tg), cv(tg)))
ratios = [x / y for x, y in zip(t, b)]
print("  udp-rx / minimal: %.3f (ratio of means); per round median %.3f, range %.3f..%.3f" % (
    st.mean(t) / st.mean(b), st.median(ratios), min(ratios), max(ratios)))'
}

for gen in sendmmsg xdp-live; do
  echo "== generator=$gen, tx_cpu $tx_cpu, rx_cpu $rx_cpu, $rounds rounds x $seconds s"
  results=""
  for i in $(seq 1 "$rounds"); do
    if [ $((i % 2)) -eq 1 ]; then
      base=$("$baseline" "$gen" $tx_cpu $rx_cpu "$seconds" | awk '{print $2, $4}')
      tool=$(tool_round "$gen")
    else
      tool=$(tool_round "$gen")
      base=$("$baseline" "$gen" $tx_cpu $rx_cpu "$seconds" | awk '{print $2, $4}')
    fi
    echo "  round $i: minimal $base  udp-rx $tool  (pps offered_pps)"
    results+="$base $tool"$'\n'
  done
  echo -n "$results" | summarise
done
