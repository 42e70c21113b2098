#!/usr/bin/env bash
# scripts/clang-tidy-cached stores a clean result and reuses it for an identical file, also when the
# compile command is CI's (-Werror with a GCC-only warning option that clang does not know).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/build"
printf 'int twice(int x) { return 2 * x; }\n' > "$work/src/unit.cpp"
cat > "$work/build/compile_commands.json" <<JSON
[{"directory": "$work/build",
  "command": "/usr/bin/c++ -Wall -Wno-restrict -Werror -std=c++20 -o unit.o -c $work/src/unit.cpp",
  "file": "$work/src/unit.cpp"}]
JSON
export NF_TIDY_CACHE=$work/cache
run() { "$here/scripts/clang-tidy-cached" -p "$work/build" -j 1 "$work/src/unit.cpp" 2>&1 >/dev/null; }
first=$(run)
second=$(run)
echo "first:  $first"
echo "second: $second"
case $first in *", 0 unchanged since"*", 0 failed") ;; *) echo "first check: expected a fresh, clean check" >&2; exit 1 ;; esac
case $second in *", 1 unchanged since"*", 0 failed") ;; *) echo "second check: the clean result was not reused" >&2; exit 1 ;; esac
printf 'int twice(int x) { return x + x; }\n' > "$work/src/unit.cpp"
third=$(run)
echo "third:  $third"
case $third in *", 0 unchanged since"*) ;; *) echo "a changed file was not checked again" >&2; exit 1 ;; esac
