#!/usr/bin/env bash
# The `--until decided` runs of docs/benchmarks.md, on this machine: spin A/A (20 runs) and known
# 0.5% and 1% differences (spin work=1000 vs work=1005 / 1010), each run stopping when the
# confidence sequence decides or after --max-time seconds of measuring. Prints per run the
# decision, the estimate and interval, the units and the measuring time, then the share decided.
# Usage: bench/until_decided.sh [path/to/noisefloor] [max-time seconds (20)] [runs per difference (10)]
set -euo pipefail
nf=${1:-build/app/noisefloor}
max=${2:-20}
runs=${3:-10}
db=$(mktemp -d)/until.db
trap 'rm -rf "$(dirname "$db")"' EXIT

series() {  # series NAME COUNT VARIANT-B
  local name=$1 count=$2 b=$3 decided=0 total=0 n
  echo "== $name: spin --variant a:work=1000 --variant $b --until decided --max-time $max ($count runs)"
  for n in $(seq 1 "$count"); do
    "$nf" --db "$db" run spin --variant a:work=1000 --variant "$b" --until decided --max-time "$max" \
      --share-cpus --label "$name" >/dev/null 2>&1
    "$nf" --db "$db" compare last --format json | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)["sequential"]
print("  run %2s: %-12s %+.3f%% (95%% CS %+.3f..%+.3f%%) %6d chunk pairs %5.1f s  %s" % (
    sys.argv[1], s["decision"], s["estimate_pct"], s["ci_low_pct"] or float("nan"),
    s["ci_high_pct"] or float("nan"), s["units"], s["elapsed_s"], s["stop_reason"]))' "$n"
  done
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
series aa 20 b:work=1000
series half "$runs" b:work=1005
series one "$runs" b:work=1010
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
