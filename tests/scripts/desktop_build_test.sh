#!/usr/bin/env bash
# A desktop build (-DNF_MEASURE=OFF) reads, imports and compares like any other, refuses to measure
# in one line with exit 2, neither links nor looked for the measuring libraries and tools, and its
# GUI starts.
# Usage: desktop_build_test.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
nf=$build/app/noisefloor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "desktop_build: $*" >&2; failures=$((failures + 1)); }

measuring='libbpf|libxdp|libnl-|libelf|libpfm'
for bin in "$nf" "$build/app/noisefloor-gui"; do
  [ -x "$bin" ] || continue
  if libs=$(ldd "$bin" | grep -E "$measuring"); then
    fail "$(basename "$bin") links measuring libraries: $libs"
  fi
done
if grep -E '^(LIBBPF|LIBXDP|LIBNL_ROUTE|LIBNL_GENL|LIBELF)_FOUND|^NF_CLANG:|^NF_BPFTOOL:|^PFM_LIBRARY:' \
     "$build/CMakeCache.txt"; then
  fail "the configure step looked for a measuring library or tool"
fi

for cmd in "run spin" "calibrate spin" "selftest" "check" "cleanup" "generate --help-me"; do
  set +e
  err=$("$nf" --db "$work/runs.db" $cmd 2>&1 >/dev/null)
  status=$?
  set -e
  word=${cmd%% *}
  [ $status = 2 ] || fail "'$cmd' exited $status, not 2"
  [ "$err" = "noisefloor: $word: built without measurement (NF_MEASURE=OFF): run it where noisefloor is built with the measuring parts, or from noisefloor-gui --host DEST" ] ||
    fail "'$cmd' said: $err"
done
[ ! -e "$work/runs.db" ] || fail "a refused command created the database"

# What a desktop is for: import what a device under test ran, and compare it.
real=$here/tests/data/import/real
"$nf" --db "$work/runs.db" import "$real/perf-stat_C20_mail-wrapped_bjorn.txt" --label before --kernel k >/dev/null ||
  fail "import failed"
"$nf" --db "$work/runs.db" import "$real/perf-stat_C20_no-header_bjorn.txt" --label after --kernel k >/dev/null ||
  fail "the second import failed"
out=$("$nf" --db "$work/runs.db" compare --label before --label after) || fail "compare failed"
grep -q 'inconclusive\|equivalent\|different' <<<"$out" || fail "compare gave no verdict: $out"

# The GUI starts and draws its Experiment tab (which says why Run stays disabled without --host).
gui=$build/app/noisefloor-gui
if [ -x "$gui" ]; then
  shot=$work/experiment.png
  if ! QT_QPA_PLATFORM=offscreen "$gui" --db "$work/runs.db" --tab experiment --screenshot "$shot" >/dev/null 2>&1; then
    fail "noisefloor-gui --screenshot failed"
  elif [ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' ')" != 89504e470d0a1a0a ] || [ "$(stat -c %s "$shot")" -lt 20000 ]; then
    fail "noisefloor-gui drew no window: $(stat -c %s "$shot") bytes in $shot"
  fi
fi

[ $failures = 0 ] && echo "desktop_build: reads, imports and compares; refuses to measure; no measuring library"
exit $((failures > 0))
