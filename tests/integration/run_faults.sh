#!/bin/bash
# A sample that outlives --timeout is killed and recorded as a failure with its reason; the run goes
# on. (A 0.1 ms timeout is shorter than any bwrap start-up, so every bwrap sample times out.)
. "$(dirname "$0")/lib.sh"
available bwrap || { echo "bwrap not available: skipping"; exit 77; }
"$SBXBENCH" run -m process,bwrap -n 3 --warmup 0 --timeout 0.0001 --no-progress \
    -o "$TMP/r.json" >"$TMP/out" 2>&1 || die "run failed: $(cat "$TMP/out")"
"$CHECK" "$TMP/r.json" || exit 1
/usr/bin/python3 - "$TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
b = [r for r in d["results"] if r["mechanism"] == "bwrap"][0]
assert b["failed"] == 3, b
assert all("timed out" in f["reason"] for f in b["failures"]), b["failures"]
assert b["median"] is None and b["n"] == 0
PY
grep -q "timed out" "$TMP/out" || die "table does not report the timeouts"

# Workloads that fail in each way a build action can: recorded with the reason, flagged, never a
# crash, and the run goes on to the next mechanism.
cat > "$TMP/segv.wl" <<'WL'
run sh -c 'kill -SEGV $$'
WL
cat > "$TMP/exit3.wl" <<'WL'
run sh -c 'echo "disk on fire" >&2; exit 3'
WL
# A duration of its own, so that the check below finds this test's sleeps and nobody else's.
nap=$((300000 + $$))
cat > "$TMP/hang.wl" <<WL
run sh -c 'sleep $nap & sleep $nap'
WL
"$SBXBENCH" run -m process,bwrap -w "$TMP/segv.wl,$TMP/exit3.wl,$TMP/hang.wl" -n 2 --warmup 0 \
    --timeout 0.5 --no-progress -o "$TMP/f.json" >"$TMP/out" 2>&1 || die "fault run failed: $(cat "$TMP/out")"
"$CHECK" "$TMP/f.json" || exit 1
/usr/bin/python3 - "$TMP/f.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
want = {"segv": "SIGSEGV", "exit3": "exit status 3: disk on fire",
        "hang": "timed out after 0.5 s"}
for r in d["results"]:
    if r["skipped"]:
        continue
    expected = want[r["workload"]]
    assert r["failed"] == 2 and r["n"] == 0, (r["mechanism"], r["workload"], r["failures"])
    assert all(expected in f["reason"] for f in r["failures"]), (r["mechanism"], r["failures"])
    if r["workload"] == "segv" and r["mechanism"] == "process":
        assert r["exit_codes"] == [None, None], r["exit_codes"]
    if r["workload"] == "hang":
        assert all(t < 5 for t in r["times"]), r["times"]
PY
grep -q "disk on fire" "$TMP/out" || die "the table does not show the failure's reason"
# The hung samples' children (the backgrounded sleep) are gone.
sleep 0.2
pgrep -f "sleep $nap" >/dev/null && die "a hung sample's child outlived the timeout"
echo ok
