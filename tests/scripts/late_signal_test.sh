#!/bin/bash
# A SIGINT or SIGTERM that arrives just after a command's last output line (the work is stored,
# the command is tearing down) must still end it as interrupted: 130/143 and one line saying what
# was already stored, never 0 without a word. Sends each signal at delays from 0 to 150 ms after
# the last line of import, export, merge, run and a sweep.
# Usage: late_signal_test.sh NOISEFLOOR IMPORT_SAMPLE
set -u
nf=$1
sample=$2
dir=$(mktemp -d /tmp/nf-late-XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$nf" --db "$dir/src.db" run spin --reps 1 --duration 0.01 --warmup 0 --share-cpus >/dev/null 2>&1 || exit 1
failures=0
signalled=0
exiting=0
# try NAME SIG DELAY PATTERN ARGS...: runs `noisefloor ARGS`, sends SIG DELAY seconds after the
# first stdout line matching PATTERN (or, for PATTERN file:F, after F appears).
try() {
    local name=$1 sig=$2 delay=$3 pattern=$4
    shift 4
    rm -f "$dir/fifo" "$dir/err"
    mkfifo "$dir/fifo"
    env --default-signal=INT,TERM "$nf" "$@" >"$dir/fifo" 2>"$dir/err" &
    local pid=$!
    {
        if [[ $pattern == file:* ]]; then
            until [[ -e ${pattern#file:} ]]; do :; done
        else
            grep -m1 -q -- "$pattern"
        fi
        sleep "$delay"
        # A process in exit_group (PF_EXITING, 0x4 in the flags) has its exit status already; the
        # kernel drops a signal sent then, so it counts as gone. ASan's teardown makes this window
        # milliseconds long.
        # Read with builtins only (the command's name has no spaces), so that microseconds, not
        # a fork's milliseconds, pass between the look and the kill.
        local stat=() state='' flags=0
        read -r -a stat <"/proc/$pid/stat" 2>/dev/null && state=${stat[2]} flags=${stat[8]}
        if [[ $state =~ ^[RSD]$ ]] && ((flags & 4)); then
            echo exiting >"$dir/sent"
        elif [[ $state =~ ^[RSD]$ ]] && kill "-$sig" "$pid" 2>/dev/null; then
            echo sent >"$dir/sent"
        else
            echo gone >"$dir/sent"
        fi
        cat >/dev/null
    } <"$dir/fifo"
    wait "$pid"
    local status=$?
    local sent
    sent=$(cat "$dir/sent")
    local want=$((128 + $(kill -l "$sig")))
    local lines
    if [[ $sent == exiting ]]; then
        exiting=$((exiting + 1))
    fi
    if [[ $sent == gone || $sent == exiting ]]; then
        [[ $status == 0 ]] || { echo "FAIL $name $sig +${delay}s: exited $status before the signal: $(cat "$dir/err")"; failures=$((failures + 1)); }
        return
    fi
    signalled=$((signalled + 1))
    # Warnings (a CPU shared with another run: the test runs with --share-cpus) are not the answer.
    lines=$(grep -vc '^noisefloor: warning:' "$dir/err")
    if [[ $status != "$want" || $lines != 1 ]] || ! grep -q "SIG$sig" "$dir/err" ||
        ! grep -Eq "already (stored|written)|arrived after|interrupted" "$dir/err"; then
        echo "FAIL $name $sig +${delay}s: status $status (want $want), stderr: $(cat "$dir/err")"
        failures=$((failures + 1))
    fi
}
i=0
for delay in 0 0.005 0.01 0.02 0.04 0.06 0.08 0.1 0.13 0.15; do
    for sig in INT TERM; do
        i=$((i + 1))
        try import $sig $delay '^imported' --db "$dir/t$i.db" import perf-stat "$sample" --label late --kernel 6.1
        try export $sig $delay "file:$dir/e$i.csv" --db "$dir/src.db" export 1 --format csv -o "$dir/e$i.csv"
        try merge $sig $delay 'merged as run' --db "$dir/m$i.db" merge "$dir/src.db"
        try run $sig $delay 'stored as run' --db "$dir/r$i.db" run spin --variant a --variant b:work=200 --reps 1 \
            --duration 0.01 --warmup 0 --share-cpus
        try sweep $sig $delay 'shows this again' --db "$dir/s$i.db" run spin --sweep work=100,200 --reps 1 \
            --duration 0.01 --warmup 0 --share-cpus
    done
done
echo "late signals: $signalled delivered while the command ran, $failures failed" \
    "($exiting not sent: the process was already in exit_group)"
[[ $failures == 0 && $signalled -gt 0 ]]
