#!/bin/bash
# SIGINT or SIGTERM during a run: the children are stopped, the results so far are written (valid
# JSON, complete: false) and sbxbench exits 130. A second SIGINT exits at once, leaving no temp file.
. "$(dirname "$0")/lib.sh"
for sig in INT TERM; do
    "$SBXBENCH" run -m process,bwrap -n 1000000 --warmup 0 --no-progress -o "$TMP/r.json" \
        >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    sleep 1
    kill -$sig $pid
    wait $pid
    rc=$?
    [ $rc -eq 130 ] || die "SIG$sig: exit $rc, expected 130: $(cat "$TMP/err")"
    "$CHECK" "$TMP/r.json" --incomplete || die "SIG$sig: results not valid"
    ls "$TMP" | grep -q 'tmp\.' && die "SIG$sig: temp file left: $(ls "$TMP")"
    rm -f "$TMP/r.json"
done
# A second signal while the first is being handled: gone at once, target never half-written.
echo '{"old": true}' >"$TMP/r.json"
"$SBXBENCH" run -m process -n 1000000 --warmup 0 --no-progress -o "$TMP/r.json" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT $pid; kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || die "double SIGINT: exit $rc"
/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/r.json" || die "target corrupted"
ls "$TMP" | grep -q 'tmp\.' && die "double SIGINT: temp file left"
# No child outlives the run.
pgrep -f "sbxbench-it.*true" >/dev/null && die "children left running"
echo ok
