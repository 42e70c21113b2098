#!/usr/bin/env bash
# Peak RSS and wall time of `noisefloor compare` on a stored run of a million samples, against the
# bytes the samples take in the database (docs/benchmarks.md, "compare on a million-sample run").
# The run is data_store_bench's: 2 variants alternating chunk by chunk, the call loop's 7
# quantities (ops, tsc_ticks, elapsed_ns, cycles, instructions, branch-misses, cache-misses),
# 100 repetitions of 10,000 samples, recorded through RunRecorder.
# Run: bench/compare_million.sh [build] [tries] [database]
#   build defaults to build/, tries to 5; a database path that exists is reused (else made there).
set -euo pipefail
build=${1:-build}
tries=${2:-5}
db=${3:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ -z "$db" ]; then
    db="$dir/million.db"
fi
if [ ! -e "$db" ]; then
    "$build/tests/data/data_store_bench" 1000000 "$db" > /dev/null
fi
read -r stored index < <(sqlite3 -separator ' ' "$db" \
    "SELECT sum(CASE WHEN name = 'samples' THEN pgsize END), \
            sum(CASE WHEN name = 'sqlite_autoindex_samples_1' THEN pgsize END) FROM dbstat")
read -r samples quantities < <(sqlite3 -separator ' ' "$db" \
    "SELECT (SELECT count(*) FROM samples), (SELECT count(*) FROM quantities WHERE run_id = 1)")
raw=$((8 * samples * quantities))
printf 'samples %d x %d quantities: raw values %d bytes (%.1f MB)\n' "$samples" "$quantities" "$raw" \
    "$(echo "$raw / 1000000" | bc -l)"
printf 'stored samples table %d bytes (%.1f MB), its (repetition_id, idx) index %d bytes\n' "$stored" \
    "$(echo "$stored / 1000000" | bc -l)" "$index"
printf 'load average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
walls=()
cpus=()
rss=()
for ((i = 1; i <= tries; ++i)); do
    /usr/bin/time -v "$build/app/noisefloor" --db "$db" compare 1 > "$dir/out" 2> "$dir/time"
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time" | awk -F: '{print $(NF-1) * 60 + $NF}')
    cpu=$(sed -n 's/.*\(User\|System\) time (seconds): //p' "$dir/time" | awk '{s += $1} END {print s}')
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time")
    printf 'try %d: %s s wall, %s s CPU (user + system), %s KiB max RSS, load %s\n' "$i" "$wall" "$cpu" "$kb" \
        "$(cut -d' ' -f1 /proc/loadavg)"
    walls+=("$wall")
    cpus+=("$cpu")
    rss+=("$kb")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
mwall=$(median "${walls[@]}")
mcpu=$(median "${cpus[@]}")
mrss=$(median "${rss[@]}")
printf 'median of %d: %s s wall, %s s CPU, %s KiB max RSS (%.2f x the stored samples table, %.2f x the raw values)\n' \
    "$tries" "$mwall" "$mcpu" "$mrss" "$(echo "$mrss * 1024 / $stored" | bc -l)" "$(echo "$mrss * 1024 / $raw" | bc -l)"
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
