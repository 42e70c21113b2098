#!/usr/bin/env bash
# scripts/clang-tidy-cached stores a clean result and reuses it for an identical file, also when the
# compile command is CI's (-Werror with a GCC-only warning option that clang does not know), and
# keeps the keys of clean files in a ledger that a fresh clone reads.
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

# A compile command with CMake's precompiled header, whose .gch is GCC's (here: not a PCH at all):
# the file is checked without it, cleanly.
printf 'int twice(int x) { return x * 2; }\n' > "$work/src/unit.cpp"
printf '#include <vector>\n' > "$work/build/cmake_pch.hxx"
printf 'not a precompiled header' > "$work/build/cmake_pch.hxx.gch"
cat > "$work/build/compile_commands.json" <<JSON
[{"directory": "$work/build",
  "command": "/usr/bin/c++ -Wall -Werror -std=c++20 -Winvalid-pch -include $work/build/cmake_pch.hxx -o unit.o -c $work/src/unit.cpp",
  "file": "$work/src/unit.cpp"}]
JSON
pch=$(run)
echo "pch:    $pch"
case $pch in *", 0 unchanged since"*", 0 failed") ;; *) echo "a file built with a PCH was not checked cleanly" >&2; exit 1 ;; esac

# The ledger: a clean file's key is written to it, and a fresh cache (a new clone) with the ledger
# does not check that file again; a changed file is checked, and the ledger then names only it.
ledger=$work/clean.txt
runLedger() { "$here/scripts/clang-tidy-cached" -p "$work/build" -j 1 --ledger "$ledger" "$work/src/unit.cpp" 2>&1 >/dev/null; }
export NF_TIDY_CACHE=$work/cache-ledger-1
first=$(runLedger)
grep -qE '^[0-9a-f]{64}$' "$ledger" || { echo "the ledger holds no key" >&2; exit 1; }
export NF_TIDY_CACHE=$work/cache-ledger-2
fresh=$(runLedger)
echo "ledger: $first / $fresh"
case $fresh in *", 1 unchanged since"*", 0 failed") ;; *) echo "the ledger's key was not reused" >&2; exit 1 ;; esac
before=$(grep -vc '^#' "$ledger")
printf 'int twice(int x) { return x << 1; }\n' > "$work/src/unit.cpp"
changed=$(runLedger)
case $changed in *", 0 unchanged since"*", 0 failed") ;; *) echo "a changed file was not checked" >&2; exit 1 ;; esac
[ "$(grep -vc '^#' "$ledger")" = "$before" ] || { echo "the ledger kept an old key" >&2; exit 1; }
# A file with a finding is not in the ledger.
printf 'int twice(int x) { int unused; return x; }\n' > "$work/src/unit.cpp"
runLedger >/dev/null || true
[ "$(grep -vc '^#' "$ledger")" = 0 ] || { echo "a file with a finding went into the ledger" >&2; exit 1; }

# A build folder inside the checkout gives the same keys named relative (scripts/lint by hand) or
# absolute (ctest's lint), so a ledger written one way is read the other.
inside=$here/build-tidy-cache-test.$$
trap 'rm -rf "$work" "$inside"' EXIT
mkdir -p "$inside"
printf 'int twice(int x) { return x * 2; }\n' > "$work/src/unit.cpp"
sed "s#$work/build#$inside#g" > "$inside/compile_commands.json" <<JSON
[{"directory": "$work/build",
  "command": "/usr/bin/c++ -Wall -Werror -std=c++20 -o unit.o -c $work/src/unit.cpp",
  "file": "$work/src/unit.cpp"}]
JSON
rm -f "$ledger"
export NF_TIDY_CACHE=$work/cache-inside-1
(cd "$here" && scripts/clang-tidy-cached -p "build-tidy-cache-test.$$" -j 1 --ledger "$ledger" "$work/src/unit.cpp" >/dev/null 2>&1)
export NF_TIDY_CACHE=$work/cache-inside-2
absolute=$("$here/scripts/clang-tidy-cached" -p "$inside" -j 1 --ledger "$ledger" "$work/src/unit.cpp" 2>&1 >/dev/null)
echo "inside: $absolute"
case $absolute in *", 1 unchanged since"*", 0 failed") ;; *) echo "a relative and an absolute build folder gave other keys" >&2; exit 1 ;; esac
