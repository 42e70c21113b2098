#!/usr/bin/env bash
# The random-kill loop: starts `noisefloor` N times (in-process workloads chunked and in one
# piece, a sweep, the command workload with and without processes of its own, an import blocked on
# a FIFO, an export of a stored run and, as root, the live udp-rx test with both generators and
# xdp-rx attached to an interface outside the tool's namespaces), kills each at a random moment
# with a random signal among SIGINT, SIGTERM and SIGKILL, and after every kill checks what the
# reliability promise says:
#   - the exit status is 130/143 (SIGINT/SIGTERM) with one summary line (after any warnings and
#     xdp-rx's notice of what it attaches), or 137 (SIGKILL), or 0 when
#     the run had finished before the signal;
#   - PRAGMA integrity_check says ok;
#   - `noisefloor list` shows no run as running (a SIGKILLed writer's run reads as aborted);
#   - every complete run has all its repetitions, every stored repetition has samples;
#   - no nf* link, network namespace or XDP program is left (after SIGINT/SIGTERM at once; after
#     SIGKILL once `noisefloor cleanup` ran, whose --dry-run output is recorded);
#   - no process the measured command started is left (its PID namespace dies with it), even
#     after SIGKILL;
#   - no temporary file (*.new-*, *.tmp-*) is left next to the database;
#   - an export's target is absent or the whole export, never a part of it.
#   - the process ends within 20 s of its signal; one that does not is a hang, reported with its
#     threads' stacks and then SIGKILLed.
# Prints one line per iteration and a summary; exits 1 if any check failed.
# Usage: bench/kill_loop.sh [-n ITERATIONS] [-b BUILD_DIR] [-s SEED] [--no-live]
set -uo pipefail

iterations=50
build=build
seed=$$
live=1
hang_deadline=20  # seconds a process may take to end after its signal (ASan builds included)
while [ $# -gt 0 ]; do
  case $1 in
    -n) iterations=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    -s) seed=$2; shift 2 ;;
    --no-live) live=0; shift ;;
    *) echo "usage: $0 [-n ITERATIONS] [-b BUILD_DIR] [-s SEED] [--no-live]" >&2; exit 2 ;;
  esac
done
nf=$(realpath "$build/app/noisefloor")
[ -x "$nf" ] || { echo "kill_loop: no $nf (build the noisefloor target first)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || live=0
RANDOM=$seed
work=$(mktemp -d "${TMPDIR:-/tmp}/kill-loop.XXXXXX")
trap 'rm -rf "$work"' EXIT
db=$work/runs.db
# A measured command that leaves a process of its own running, as `sh -c 'sleep & sleep'` does.
marker=31.$((RANDOM % 1000 + 1000))
printf '#!/bin/sh\nsleep %s &\nsleep %s\n' "$marker" "$marker" >"$work/spawn.sh"
chmod 755 "$work/spawn.sh"
mkfifo "$work/fifo"
iface=nfkl$$  # not a tool name: it stands for a real interface
cleanup_iface() { [ "$live" = 1 ] && ip link del "${iface}a" 2>/dev/null; }
trap 'cleanup_iface; rm -rf "$work"' EXIT

# name|max delay before the signal (ms)|arguments of `noisefloor`
scenarios=(
  "spin-ab|1500|run spin --variant a:work=200 --variant b:work=220 --reps 4 --duration 0.15 --warmup 0.05"
  "spin-blocked|1000|run spin --chunk 0 --interval 0.03 --reps 3 --duration 0.12 --warmup 0.02"
  "page-frag|1500|run page-frag --variant a --variant b --reps 3 --duration 0.1 --warmup 0.02"
  "sweep|2500|run spin --variant a --variant b --sweep work=100,200,300 --reps 2 --duration 0.1 --warmup 0.02"
  "command|800|run command -p cmd=true --variant a --variant b --reps 6 --warmup 0"
  "command-tree|1500|run command -p cmd=$work/spawn.sh -p timeout=0.3 --variant a --variant b --reps 2 --warmup 0"
  "import-fifo|1000|import perf-stat $work/fifo --label fifo"
  "export|250|export 1 --format csv -o $work/export.csv"
)
if [ "$live" = 1 ]; then
  ip link add "${iface}a" type veth peer name "${iface}b" && ip link set "${iface}a" up && ip link set "${iface}b" up
  scenarios+=(
    "udp-rx|2000|run udp-rx --reps 2 --duration 0.4 --interval 0.1 --warmup 0.1 -p counter_cpus=none"
    "udp-rx-xdp|2000|run udp-rx -p generator=xdp-live -p gro=0 --reps 2 --duration 0.4 --interval 0.1 --warmup 0.1 -p counter_cpus=none"
    "xdp-iface|2000|run xdp-rx -p iface=${iface}a -p xdp_mode=skb --reps 3 --duration 0.2 --warmup 0 -p counter_cpus=none"
  )
fi
# Run 1, exported over and over: export.csv is always absent or the whole export, never a part.
"$nf" --db "$db" run spin --variant a --variant b --chunk 0 --interval 0.0005 --reps 20 --duration 0.1 \
  --warmup 0 >/dev/null 2>&1 || { echo "kill_loop: cannot store the run to export" >&2; exit 2; }
"$nf" --db "$db" export 1 --format csv -o "$work/export.reference" || exit 2
signals=(INT TERM KILL)

leftovers() {  # nf* links and namespaces, XDP programs on any link; one per line
  ip -j link show 2>/dev/null | jq -r '.[] | select(.ifname | test("^nf[0-9]")) | "link " + .ifname'
  ip netns list 2>/dev/null | awk '$1 ~ /^nf[0-9]/ { print "netns " $1 }'
  bpftool -j net show 2>/dev/null | jq -r '.[]?.xdp[]? | "xdp " + .devname + " " + (.id | tostring)'
}

strays() {  # processes the measured command started, temporary files next to the database
  pgrep -f "^sleep $marker\$" | sed 's/^/process /'
  find "$work" -maxdepth 1 \( -name '*.new-*' -o -name '*.tmp-*' \) -printf 'file %f\n'
}

runs_count() {
  if [ -f "$db" ]; then sqlite3 "$db" 'SELECT count(*) FROM runs'; else echo 0; fi
}

stacks() {  # every thread of a process: gdb's backtraces, else its kernel wait channels
  if command -v gdb >/dev/null; then
    timeout 60 gdb -p "$1" -batch -nx -ex 'thread apply all bt 12' 2>/dev/null | grep -E '^(Thread|#)'
  else
    for t in /proc/"$1"/task/*; do echo "thread ${t##*/} $(cat "$t/comm") waits in $(cat "$t/wchan")"; done
  fi
}

declare -A count
failures=0
fail() {
  echo "  FAIL: $*"
  failures=$((failures + 1))
}

check_database() {
  local check
  check=$(sqlite3 "$db" 'PRAGMA integrity_check' 2>&1)
  [ "$check" = ok ] || fail "integrity_check: $check"
  local shown
  shown=$("$nf" --db "$db" list --format json | jq -r '[.[] | select(.status == "running")] | length')
  [ "$shown" = 0 ] || fail "$shown run(s) shown as running"
  local short
  short=$(sqlite3 "$db" "SELECT r.id FROM runs r WHERE r.status = 'complete' AND
      (SELECT count(*) FROM repetitions p WHERE p.run_id = r.id) !=
      json_extract(r.spec_json, '$.repetitions') * json_array_length(r.spec_json, '$.variants')")
  [ -z "$short" ] || fail "complete run(s) missing repetitions: $short"
  local empty
  empty=$(sqlite3 "$db" 'SELECT count(*) FROM repetitions WHERE id NOT IN (SELECT repetition_id FROM samples)')
  [ "$empty" = 0 ] || fail "$empty stored repetition(s) without samples"
}

start=$(date +%s)
for ((i = 1; i <= iterations; i++)); do
  [ -d "$work" ] || { echo "kill_loop: $work was removed from outside; stopping" >&2; exit 2; }
  IFS='|' read -r name max args <<<"${scenarios[RANDOM % ${#scenarios[@]}]}"
  sig=${signals[RANDOM % 3]}
  delay=$((RANDOM % max))
  runs_before=$(runs_count)
  # As from a terminal: a background job of this script would start with SIGINT ignored, and
  # noisefloor keeps a signal ignored from the start.
  # shellcheck disable=SC2086  # the arguments are words
  env --default-signal=INT "$nf" --db "$db" $args >"$work/out" 2>"$work/err" &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  if kill -0 "$pid" 2>/dev/null; then
    kill -s "$sig" "$pid"
    when=killed
  else
    when=finished
  fi
  # A process that does not end within the deadline after its signal is a hang: its threads'
  # stacks are printed (gdb, else each thread's kernel wait channel) before SIGKILL ends it.
  for ((tick = 0; tick < hang_deadline * 10; tick++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    hung=$(stacks "$pid")
    kill -s KILL "$pid"
  else
    hung=
  fi
  wait "$pid" 2>/dev/null
  status=$?
  if [ -n "$hung" ]; then
    fail "$name still running ${hang_deadline} s after SIG$sig; its threads:"
    printf '%s\n' "$hung" | sed 's/^/    /'
    count[hung]=$((${count[hung]:-0} + 1))
    status=hung
  fi
  count[$sig]=$((${count[$sig]:-0} + 1))
  expected=$([ "$sig" = INT ] && echo 130 || { [ "$sig" = TERM ] && echo 143 || echo 137; })
  line="[$i] $name SIG$sig after ${delay} ms: exit $status"
  echo "$line"
  if [ "$status" = hung ]; then
    echo "  its stderr: $(cat "$work/err")"
  elif [ "$status" = 0 ]; then
    count[finished]=$((${count[finished]:-0} + 1))
  elif [ "$status" = "$expected" ]; then
    count[interrupted]=$((${count[interrupted]:-0} + 1))
    if [ "$sig" != KILL ] && [ ! -s "$work/err" ] && [ "$(runs_count)" = "$runs_before" ]; then
      # Killed by the default action before main() blocked the signal (while being loaded):
      # nothing was touched.
      count[loading]=$((${count[loading]:-0} + 1))
    elif [ "$sig" != KILL ]; then
      # Warnings and xdp-rx's notice of what it attaches to a real interface come before the summary.
      summary=$(grep -v -e ': warning: ' -e '^xdp-rx: attaching XDP program ' "$work/err")
      if [ "$(printf '%s\n' "$summary" | grep -c .)" != 1 ] || ! grep -q "SIG$sig" <<<"$summary"; then
        fail "expected one summary line naming SIG$sig, stderr: $(cat "$work/err")"
      fi
      case $summary in  # when the signal came
        *"before the run"* | *"import interrupted"* | *"export interrupted"*) count[before]=$((${count[before]:-0} + 1)) ;;
        *" aborted: "*) count[during]=$((${count[during]:-0} + 1)) ;;
        *" complete; "*) count[after]=$((${count[after]:-0} + 1)) ;;
      esac
    fi
  else
    fail "exit status $status ($when), stderr: $(cat "$work/err")"
  fi
  [ -f "$db" ] && check_database
  if [ -e "$work/export.csv" ] && ! cmp -s "$work/export.csv" "$work/export.reference"; then
    fail "export.csv is not the whole export ($(wc -c <"$work/export.csv") bytes)"
  fi
  for _ in 1 2 3 4 5 6 7 8 9 10; do  # the kernel ends a dead init's namespace within moments
    stray=$(strays)
    [ -z "$stray" ] && break
    sleep 0.1
  done
  if [ -n "$stray" ]; then
    fail "left behind after SIG$sig: $stray"
    pkill -f "^sleep $marker\$"
  fi
  left=$(leftovers)
  if [ -n "$left" ]; then
    if [ "$sig" != KILL ]; then
      fail "left behind after SIG$sig: $left"
    fi
    count[leftover_runs]=$((${count[leftover_runs]:-0} + 1))
    echo "  cleanup --dry-run: $("$nf" cleanup --dry-run | tr '\n' ';')"
    "$nf" cleanup >/dev/null || fail "cleanup failed"
    left=$(leftovers)
    [ -z "$left" ] || fail "left behind after cleanup: $left"
  fi
done

echo
# SIGKILLed runs leave their owner records (the namespaces went with them): forgotten here, so the
# loop leaves the machine as it found it.
echo "cleanup at the end: $("$nf" cleanup | tr '\n' ' ')"
runs=$(sqlite3 "$db" 'SELECT status || " " || count(*) FROM runs GROUP BY status' | tr '\n' ',')
shown=$("$nf" --db "$db" list --format json | jq -r 'group_by(.status) | map(.[0].status + " " + (length | tostring)) | join(",")')
echo "iterations $iterations in $(($(date +%s) - start)) s (seed $seed, live $live):" \
  "SIGINT ${count[INT]:-0}, SIGTERM ${count[TERM]:-0}, SIGKILL ${count[KILL]:-0};" \
  "interrupted ${count[interrupted]:-0}, finished before the signal ${count[finished]:-0};" \
  "iterations that left network state ${count[leftover_runs]:-0};" \
  "processes still running ${hang_deadline} s after their signal ${count[hung]:-0}"
echo "SIGINT/SIGTERM: while the program was loading ${count[loading]:-0}, before the run was stored" \
  "${count[before]:-0}, during it ${count[during]:-0}, after its last repetition ${count[after]:-0}"
echo "runs stored: $runs; as list shows them: $shown"
echo "integrity_check: $(sqlite3 "$db" 'PRAGMA integrity_check'); failed checks: $failures"
[ "$failures" = 0 ]
