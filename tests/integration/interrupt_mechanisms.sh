#!/bin/bash
# Ctrl-C under every mechanism that can run here, in the middle of a sample that would otherwise
# run for an hour: the sample's processes and sandbox (container included) are gone afterwards, the
# results so far are written (valid, complete: false) and sbxbench exits 130. Then a second signal
# during the first one's handling: exit 130 at once, the previous results file untouched, no temp
# file, and still nothing left running. Each sample runs `sleep TOKEN`, TOKEN unique to this test,
# so that what is left over is found, and nobody else's sleep is mistaken for ours.
. "$(dirname "$0")/lib.sh"
token="3$((RANDOM % 1000)).$$$RANDOM"
printf 'summary sleeps for an hour, until interrupted\nrun sleep %s\n' "$token" >"$TMP/hang.wl"

ours() { pgrep -f "sleep $token" 2>/dev/null; }
# gone SECONDS: nothing of ours left within that long (a container's processes go when the
# engine has stopped it).
gone() {
    local waited=0
    while ours >/dev/null; do
        [ "$waited" -ge $(($1 * 10)) ] && return 1
        sleep 0.1
        waited=$((waited + 1))
    done
}
# started PID: waits (up to two minutes: containers build their image first) until the sample
# runs; fails if sbxbench exits first.
started() {
    local waited=0
    until ours >/dev/null; do
        kill -0 "$1" 2>/dev/null || return 1
        [ "$waited" -ge 1200 ] && return 1
        sleep 0.1
        waited=$((waited + 1))
    done
}
containers_named() { # containers whose name says sbxbench process PID made them
    command -v docker >/dev/null && timeout 10 docker ps -aq --filter "name=sbxbench-$1-" 2>/dev/null
    command -v podman >/dev/null && timeout 10 podman ps -aq --filter "name=sbxbench-$1-" 2>/dev/null
    return 0
}
check_nothing_left() { # MECH WHAT PID
    gone 20 || die "$1: $2: left running: $(ps -o pid,args -p "$(ours | tr '\n' ',' | sed 's/,$//')")"
    local left
    left=$(containers_named "$3")
    [ -z "$left" ] || die "$1: $2: containers left: $left"
}

mechanisms=$("$SBXBENCH" list --json | /usr/bin/python3 -c '
import json, sys
print(" ".join(m["name"] for m in json.load(sys.stdin)["mechanisms"] if m["available"]))')
[ -n "$mechanisms" ] || die "no mechanism available"
tested=""
for mech in $mechanisms; do
    for sig in INT TERM; do
        rm -f "$TMP/r.json"
        "$SBXBENCH" run -m "$mech" -w "$TMP/hang.wl" -n 3 --warmup 0 --timeout 0 --no-progress \
            -o "$TMP/r.json" >"$TMP/out" 2>"$TMP/err" &
        pid=$!
        started $pid || die "$mech: the sample never started: $(cat "$TMP/err")"
        kill -$sig $pid
        wait $pid
        rc=$?
        [ $rc -eq 130 ] || die "$mech: SIG$sig: exit $rc, expected 130: $(cat "$TMP/err")"
        "$CHECK" "$TMP/r.json" --incomplete || die "$mech: SIG$sig: results not valid"
        check_nothing_left "$mech" "SIG$sig" $pid
    done

    # Two different signals, so that they cannot merge into one: the second arrives while the
    # first is being handled.
    echo '{"old": true}' >"$TMP/r.json"
    "$SBXBENCH" run -m "$mech" -w "$TMP/hang.wl" -n 3 --warmup 0 --timeout 0 --no-progress \
        -o "$TMP/r.json" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    started $pid || die "$mech: the sample never started: $(cat "$TMP/err")"
    kill -TERM $pid
    kill -INT $pid
    wait $pid
    rc=$?
    [ $rc -eq 130 ] || die "$mech: second signal: exit $rc, expected 130: $(cat "$TMP/err")"
    grep -q '"old": true' "$TMP/r.json" || die "$mech: second signal: the previous file was replaced"
    ls "$TMP" | grep -q 'tmp\.' && die "$mech: second signal: temp file left: $(ls "$TMP")"
    check_nothing_left "$mech" "second signal" $pid
    tested="$tested $mech"
done
echo "interrupted under:$tested"
echo ok
