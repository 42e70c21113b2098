#!/usr/bin/env bash
# The cross-run acceptance runs of docs/benchmarks.md, on this machine. Every step is a
# separate run of spin (one variant, 4 repetitions of 0.3 s), so steps differ by the run-to-run drift:
#  1. 20 A/A series of 6 labels of the same code: how many report a change (alpha 0.05)?
#  2. 10 series of 6 labels with a known 3% step at s4 (work=1000 for s1..s3, work=1030 after):
#     how often is the one change found at s4?
#  3. a run-to-run calibration (calibrate --across-runs, 6 runs), then 20 A/A cross-run compares
#     of s1 against s2 of the A/A series (one run per side): how many say `different`?
# Usage: bench/series_across_runs.sh [path/to/noisefloor] [A/A series] [step series]
set -euo pipefail
nf=${1:-build/app/noisefloor}
aa=${2:-20}
steps=${3:-10}
db=$(mktemp -d)/across.db
trap 'rm -rf "$(dirname "$db")"' EXIT
run=(run spin --reps 4 --duration 0.3 --share-cpus)

series() {  # series PREFIX: the series' text output over PREFIX-s1..s6
  local args=()
  for k in 1 2 3 4 5 6; do args+=(--label "$1-s$k"); done
  "$nf" --db "$db" series "${args[@]}"
}

echo "== $aa A/A series: 6 separate runs of spin work=1000 each (4 x 0.3 s)"
changes=0
for i in $(seq 1 "$aa"); do
  for k in 1 2 3 4 5 6; do "$nf" --db "$db" "${run[@]}" --label "aa$i-s$k" >/dev/null; done
  out=$(series "aa$i")
  found=$(echo "$out" | grep -c '^change at' || true)
  cv=$(echo "$out" | sed -n 's/.*between-run CV \([0-9.]*%\).*/\1/p' | head -1)
  printf '  series %2d: %d change(s), between-run CV %s  %s\n' "$i" "$found" "$cv" \
    "$(echo "$out" | grep -m1 -E '^(no change|change at)' | cut -c1-60)"
  [ "$found" -gt 0 ] && changes=$((changes + 1))
done
echo "  series with a change: $changes of $aa (alpha 0.05)"

echo
echo "== $steps series with a known 3% step at s4: work=1000 for s1..s3, work=1030 for s4..s6"
right=0
for i in $(seq 1 "$steps"); do
  for k in 1 2 3 4 5 6; do
    work=1000
    [ "$k" -ge 4 ] && work=1030
    "$nf" --db "$db" "${run[@]}" -p work=$work --label "st$i-s$k" >/dev/null
  done
  out=$(series "st$i")
  changes_at=$(echo "$out" | sed -n 's/^change at \([^ ]*\) .*/\1/p' | tr '\n' ' ')
  printf '  series %2d: changes at [ %s]  %s\n' "$i" "$changes_at" \
    "$(echo "$out" | grep -m1 '^change at' | cut -c1-60)"
  [ "$changes_at" = "st$i-s4 " ] && right=$((right + 1))
done
echo "  the one change at s4: $right of $steps"

echo
echo "== run-to-run calibration: calibrate --across-runs spin --runs 6 (4 x 0.3 s each)"
"$nf" --db "$db" calibrate --across-runs spin --runs 6 --reps 4 --duration 0.3 --share-cpus | tail -4
echo "== $aa A/A cross-run compares (aaN-s1 against aaN-s2, one run per side, with the floor)"
different=0
for i in $(seq 1 "$aa"); do
  verdict=$("$nf" --db "$db" compare --label "aa$i-s1" --label "aa$i-s2" --metric tsc_per_op --format csv |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "verdict") c = i; next } NR == 2 { print $c }')
  printf '  compare %2d: %s\n' "$i" "$verdict"
  case $verdict in different | negligible) different=$((different + 1)) ;; esac
done
echo "  different or negligible (a difference found): $different of $aa (alpha 0.05)"
