#!/usr/bin/env bash
# Live tests at the speed the kernel can go: each part of the live path against a minimal program
# measured in the same sitting, on the same CPUs (generator on CPU 0, receiver on CPU 1), in
# alternating rounds (which side goes first alternates too). Needs root (namespaces, veth, XDP).
#   gen     xdp-live's generator vs the minimal BPF_PROG_RUN live-frames generator
#           (tests/engine/min_xdp_gen.h), each alone into XDP_DROP            goal >= 0.95x
#   rxdrop  `noisefloor run xdp-rx` (native, copy) vs the minimal AF_XDP rxdrop loop, both fed by
#           the tool's generator                                               goal >= 0.98x
#   chain   `noisefloor run xdp-rx` with its defaults vs the minimal generator feeding the
#           minimal rxdrop loop                                                goal >= 0.9x
#   udp     `noisefloor run udp-rx` vs the minimal recvmmsg loop, same generator   goal >= 0.98x
#   rate    xdp-rx at set rates: offered rate against the target, CV between repetitions
# Usage: bench/live_speed.sh [build-dir] [rounds] [seconds] [parts...]  (defaults: build 6 2, all)
set -euo pipefail
build=${1:-build}
rounds=${2:-6}
seconds=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
parts=${*:-gen rxdrop chain udp rate}
nf=$build/app/noisefloor
tests=$build/tests/engine
tx_cpu=0
rx_cpu=1
db=$(mktemp -d)/live.db
trap 'rm -rf "$(dirname "$db")"' EXIT

means() {  # the means of pps and offered_pps of the last run
  "$nf" --db "$db" show last --format json | python3 -c '
import json, sys
s = {m["metric"]: m["variants"][0]["mean"] for m in json.load(sys.stdin)["summary"]}
print("%.0f %.0f" % (s["pps"], s["offered_pps"]))'
}
xdp_rx() {  # "pps offered_pps" of one xdp-rx repetition; extra -p options as arguments
  "$nf" --db "$db" run xdp-rx -p tx_cpu=$tx_cpu -p rx_cpu=$rx_cpu "$@" \
    --reps 1 --duration "$seconds" --interval 0.5 --warmup 0.2 >/dev/null
  means
}
udp_rx() {
  "$nf" --db "$db" run udp-rx -p generator=xdp-live -p tx_cpu=$tx_cpu -p rx_cpu=$rx_cpu -p counter_cpus=none \
    --reps 1 --duration "$seconds" --interval 0.5 --warmup 0.2 >/dev/null
  means
}

# Rounds of "reference; tool", alternating which runs first; each command prints numbers whose
# field $col is the figure compared. Prints every round, then the means, CVs and ratio.
compare() {  # name col reference-command tool-command
  local name=$1 col=$2 ref=$3 tool=$4 rows="" a b
  echo "== $name: $rounds rounds x $seconds s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  for i in $(seq 1 "$rounds"); do
    if [ $((i % 2)) -eq 1 ]; then a=$(eval "$ref"); b=$(eval "$tool"); else b=$(eval "$tool"); a=$(eval "$ref"); fi
    a=$(echo "$a" | awk -v c="$col" '{print $c}'); b=$(echo "$b" | awk -v c="$col" '{print $c}')
    echo "  round $i: minimal $a  tool $b"
    rows+="$a $b"$'\n'
  done
  echo -n "$rows" | python3 -c '
import statistics as st, sys
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
a = [r[0] for r in rows]; b = [r[1] for r in rows]
cv = lambda xs: st.stdev(xs) / st.mean(xs) * 100 if len(xs) > 1 else 0
r = [y / x for x, y in zip(a, b)]
print("  minimal %.3f Mpps (CV %.1f%%), tool %.3f Mpps (CV %.1f%%); tool/minimal %.3f (ratio of means), per round median %.3f, range %.3f..%.3f" % (
    st.mean(a) / 1e6, cv(a), st.mean(b) / 1e6, cv(b), st.mean(b) / st.mean(a), st.median(r), min(r), max(r)))'
}

for part in $parts; do
  case $part in
    gen) compare "generator alone into XDP_DROP (offered_pps)" 2 \
           "$tests/xdp_gen_baseline min $tx_cpu $seconds" "$tests/xdp_gen_baseline tool $tx_cpu $seconds" ;;
    rxdrop) compare "rxdrop native, copy, fed by xdp-live (pps)" 2 \
              "$tests/xdp_rx_baseline xdp-live $tx_cpu $rx_cpu $seconds native 0" \
              "xdp_rx -p xdp_mode=native -p counter_cpus=none | sed 's/^/pps /'" ;;
    chain) compare "whole chain: minimal generator + minimal rxdrop vs noisefloor run xdp-rx defaults (pps)" 2 \
             "$tests/xdp_rx_baseline min $tx_cpu $rx_cpu $seconds native 0" "xdp_rx | sed 's/^/pps /'" ;;
    udp) compare "udp-rx vs minimal recvmmsg loop, xdp-live generator (pps)" 2 \
           "$tests/udp_rx_baseline xdp-live $tx_cpu $rx_cpu $seconds" "udp_rx | sed 's/^/pps /'" ;;
    rate)
      echo "== offered rate at a set rate= (xdp-rx, $rounds repetitions x $seconds s each)"
      for rate in 50000 200000 500000 1000000; do
        "$nf" --db "$db" run xdp-rx -p tx_cpu=$tx_cpu -p rx_cpu=$rx_cpu -p counter_cpus=none -p rate=$rate \
          --reps "$rounds" --duration "$seconds" --interval 0.5 --warmup 0.2 >/dev/null
        "$nf" --db "$db" export last --format json | python3 -c '
import json, statistics as st, sys
rate = float(sys.argv[1])
reps = {}
for s in json.load(sys.stdin)["samples"]:
    q = s["quantities"]; reps.setdefault(s["repetition"], [0, 0])
    reps[s["repetition"]][0] += q["offered_packets"]; reps[s["repetition"]][1] += s["duration_s"]
r = [p / d for p, d in reps.values()]
print("  rate=%d: offered %.0f pps (%+.2f%% of target), CV between repetitions %.2f%%" % (
    rate, st.mean(r), (st.mean(r) / rate - 1) * 100, st.stdev(r) / st.mean(r) * 100 if len(r) > 1 else 0))' "$rate"
      done ;;
    *) echo "unknown part $part (gen rxdrop chain udp rate)" >&2; exit 2 ;;
  esac
done
