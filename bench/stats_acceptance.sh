#!/usr/bin/env bash
# The statistics acceptance runs of docs/benchmarks.md, on this machine:
#  1. 20 A/A runs of spin with default settings: how many say `different` (alpha 0.05)?
#  2. a known 0.5% difference (spin work=1000 vs work=1005) in about 10 s of run time: found, and
#     with what estimate — beside what the independent analysis of the same data says.
# Usage: bench/stats_acceptance.sh [path/to/noisefloor]   (default: build/app/noisefloor)
set -euo pipefail
nf=${1:-build/app/noisefloor}
db=$(mktemp -d)/acceptance.db
trap 'rm -rf "$(dirname "$db")"' EXIT

field() {  # field NAME from the CSV header line and a row
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }'
}

echo "== 20 A/A runs: spin --variant a --variant b (defaults: 5 reps x 1 s, 2 ms chunks)"
different=0
for i in $(seq 1 20); do
  "$nf" --db "$db" run spin --variant a --variant b --label aa >/dev/null
  row=$("$nf" --db "$db" compare last --format csv | awk -F, 'NR == 1 || $3 == 1')
  verdict=$(echo "$row" | field verdict)
  delta=$(echo "$row" | field delta_pct)
  printf '  run %2d: %-12s delta %+.4f%%\n' "$i" "$verdict" "$delta"
  case $verdict in different | negligible) different=$((different + 1)) ;; esac
done
echo "  different or negligible (a difference found): $different of 20 (alpha 0.05: 1 expected; 2 or fewer in 92% of such series, 3 or fewer in 98%)"

echo
echo "== known 0.5% difference: spin --variant a:work=1000 --variant b:work=1005 --reps 5 --duration 1"
start=$(date +%s.%N)
"$nf" --db "$db" run spin --variant a:work=1000 --variant b:work=1005 --reps 5 --duration 1 --label half >/dev/null
end=$(date +%s.%N)
"$nf" --db "$db" compare last --format csv | awk -F, -v secs="$(echo "$end - $start" | bc)" '
  NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
  { printf "  %-11s %-7s delta %+.3f%% (95%% CI %+.3f..%+.3f%%) p=%.3g verdict %s\n",
           $h["design"], ($h["primary"] == 1 ? "primary" : "also"), $h["delta_pct"], $h["ci_low_pct"],
           $h["ci_high_pct"], $h["p_adjusted"], $h["verdict"] }
  END { printf "  wall time of the run: %.1f s\n", secs }'
