#!/usr/bin/env bash
# xdp-rx against the smallest AF_XDP rxdrop loop there is, fed by the same generator on the same
# cores: does the tool's application thread (and its sampling and counters) cost packets? Then the
# A/B comparisons the workload exists for, with verdicts from `noisefloor compare`: skb vs native
# mode, busy_poll on vs off. Needs root (namespaces, veth, XDP).
# Usage: bench/xdp_rx_overhead.sh [build-dir] [rounds] [seconds]   (defaults: build 8 2)
set -euo pipefail
build=${1:-build}
rounds=${2:-8}
seconds=${3:-2}
nf=$build/app/noisefloor
baseline=$build/tests/engine/xdp_rx_baseline
tx_cpu=0
rx_cpu=1
db=$(mktemp -d)/xdp.db
trap 'rm -rf "$(dirname "$db")"' EXIT

tool_round() {  # prints "pps offered_pps" of one xdp-rx repetition in mode $1
  "$nf" --db "$db" run xdp-rx -p xdp_mode="$1" -p tx_cpu=$tx_cpu -p rx_cpu=$rx_cpu -p counter_cpus=none \
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
print("  xdp-rx:       mean %.0f pps (CV %.1f%%); generator %.0f pps (CV %.1f%%)" % (st.mean(t), cv(t), st.mean(tg), cv(tg)))
ratios = [x / y for x, y in zip(t, b)]
print("  xdp-rx / minimal: %.3f (ratio of means); per round median %.3f, range %.3f..%.3f" % (
    st.mean(t) / st.mean(b), st.median(ratios), min(ratios), max(ratios)))'
}

for mode in native skb; do
  echo "== rxdrop, xdp_mode=$mode, generator xdp-live, tx_cpu $tx_cpu, rx_cpu $rx_cpu, $rounds rounds x $seconds s"
  results=""
  for i in $(seq 1 "$rounds"); do
    if [ $((i % 2)) -eq 1 ]; then
      base=$("$baseline" xdp-live $tx_cpu $rx_cpu "$seconds" "$mode" 0 | awk '{print $2, $4}')
      tool=$(tool_round "$mode")
    else
      tool=$(tool_round "$mode")
      base=$("$baseline" xdp-live $tx_cpu $rx_cpu "$seconds" "$mode" 0 | awk '{print $2, $4}')
    fi
    echo "  round $i: minimal $base  xdp-rx $tool  (pps offered_pps)"
    results+="$base $tool"$'\n'
  done
  echo -n "$results" | summarise
done

ab() {  # one interleaved A/B run of xdp-rx and its comparison
  echo "== $*"
  "$nf" --db "$db" run xdp-rx -p tx_cpu=$tx_cpu -p rx_cpu=$rx_cpu -p counter_cpus=none \
    --reps "$rounds" --duration "$seconds" --interval 0.5 --warmup 0.2 "$@" >/dev/null
  "$nf" --db "$db" compare last
}
ab --variant native:xdp_mode=native --variant skb:xdp_mode=skb
ab --variant off:busy_poll=0 --variant on:busy_poll=1
