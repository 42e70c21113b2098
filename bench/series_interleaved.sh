#!/usr/bin/env bash
# series --interleaved on this machine: the 6 steps of a series measured as the variants of one
# interleaved spin run (4 repetitions of 0.3 s, like bench/series_across_runs.sh's separate runs),
# then analysed paired by repetition.
#  1. A/A: 20 series of 6 steps of the same code (work=1000): how many report a change (alpha 0.05)?
#  2. 10 series with a known 3% step at s4 (work=1000 for s1..s3, work=1030 after): how often is the
#     one change found at s4?
# Usage: bench/series_interleaved.sh [path/to/noisefloor] [A/A series] [step series]
set -euo pipefail
nf=${1:-build/app/noisefloor}
aa=${2:-20}
steps=${3:-10}
db=$(mktemp -d)/interleaved.db
trap 'rm -rf "$(dirname "$db")"' EXIT

series() {  # series W1 .. W6: the text output of a series over steps of those spin works
  local args=()
  local k=1
  for w in "$@"; do
    args+=(--variant "s$k:work=$w")
    k=$((k + 1))
  done
  "$nf" --db "$db" series --interleaved -- spin "${args[@]}" --reps 4 --duration 0.3 --share-cpus 2>/dev/null
}

echo "== $aa A/A series: 6 steps of spin work=1000 as the variants of one run (4 x 0.3 s)"
changes=0
start=$(date +%s)
for i in $(seq 1 "$aa"); do
  out=$(series 1000 1000 1000 1000 1000 1000)
  found=$(echo "$out" | grep -c '^change at' || true)
  printf '  series %2d: %d change(s)  %s\n' "$i" "$found" "$(echo "$out" | grep -m1 -E '^(no change|change at)' | cut -c1-60)"
  [ "$found" -gt 0 ] && changes=$((changes + 1))
done
echo "  series with a change: $changes of $aa (alpha 0.05), $(( ($(date +%s) - start) / aa )) s per series"

echo
echo "== $steps series with a known 3% step at s4: work=1000 for s1..s3, work=1030 for s4..s6"
right=0
for i in $(seq 1 "$steps"); do
  out=$(series 1000 1000 1000 1030 1030 1030)
  changes_at=$(echo "$out" | sed -n 's/^change at \([^ ]*\) .*/\1/p' | tr '\n' ' ')
  printf '  series %2d: changes at [ %s]  %s\n' "$i" "$changes_at" "$(echo "$out" | grep -m1 '^change at' | cut -c1-60)"
  [ "$changes_at" = "s4 " ] && right=$((right + 1))
done
echo "  the one change at s4: $right of $steps"
