#!/usr/bin/env bash
# The synthetic kernel fast-path workloads of docs/benchmarks.md, on this machine, each with the
# verdict from `compare` and the code size of each variant:
#  1. page-pool late vs early check at zero_size_pct 0, 1 and 100 (one sweep);
#  2. page-frag monolithic vs split, non-aligned (align=0) and aligned (align=64);
#  3. indirect-call direct / indirect / retpoline.
# Usage: bench/workloads.sh [path/to/noisefloor]   (default: build/app/noisefloor)
set -euo pipefail
nf=${1:-build/app/noisefloor}
db=$(mktemp -d)/workloads.db
trap 'rm -rf "$(dirname "$db")"' EXIT
reps=${REPS:-5}
duration=${DURATION:-1}

code() {  # code size per variant of the last run
  "$nf" --db "$db" show last | sed -n '/code size of each variant/,/counters on/p' | grep -v 'counters on'
}
verdicts() {  # the primary verdict lines of the last run
  "$nf" --db "$db" compare last --metric tsc_per_op | grep -A2 'verdict:' | sed 's/^ *//'
}

echo "== page-pool: late vs early, --sweep zero_size_pct=0,1,100 --reps $reps --duration $duration"
"$nf" --db "$db" run page-pool --variant late:check=late --variant early:check=early \
  --sweep zero_size_pct=0,1,100 --reps "$reps" --duration "$duration" | sed -n '/^Sweep of/,$p'
code

for align in 0 64; do
  echo
  echo "== page-frag: monolithic vs split, -p align=$align --reps $reps --duration $duration"
  "$nf" --db "$db" run page-frag --variant monolithic:impl=monolithic --variant split:impl=split \
    -p align="$align" --reps "$reps" --duration "$duration" >/dev/null
  verdicts
  code
done

echo
echo "== indirect-call: direct / indirect / retpoline --reps $reps --duration $duration"
"$nf" --db "$db" run indirect-call --variant direct:call=direct --variant indirect:call=indirect \
  --variant retpoline:call=retpoline --reps "$reps" --duration "$duration" >/dev/null
verdicts
code
