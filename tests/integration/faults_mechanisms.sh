#!/bin/bash
# The faults of run_faults.sh under every mechanism that can run here: a workload that segfaults,
# one that exits non-zero, one that floods its output and one that hangs past --timeout. Each is
# recorded as a failure with its reason, the run goes on and succeeds, and nothing the hung samples
# started is left running (their command is `sleep TOKEN`, TOKEN unique to this test, so that
# leftovers are ours to find).
. "$(dirname "$0")/lib.sh"
token="3$((RANDOM % 1000)).$$$RANDOM"
# A real fault, not `kill -SEGV $$`: in a pid namespace the shell would be pid 1, which ignores a
# signal sent to it.
cat >"$TMP/segv.wl" <<'WL'
run /usr/bin/python3 -c "import ctypes; ctypes.string_at(0)"
WL
# Hundreds of MB a second into the stderr capture, in memory: killed long before the timeout. (A
# mechanism that relays the output may be slower: docker's daemon passes on a few MB a second, and
# the sample times out before the capture fills. Without a mechanism between, it must fill.)
cat >"$TMP/flood.wl" <<'WL'
run sh -c 'yes >&2'
WL
cat >"$TMP/exit3.wl" <<'WL'
run sh -c 'echo "disk on fire" >&2; exit 3'
WL
printf 'run sh -c %s\n' "'sleep $token & sleep $token'" >"$TMP/hang.wl"

mechanisms=$("$SBXBENCH" list --json | /usr/bin/python3 -c '
import json, sys
print(",".join(m["name"] for m in json.load(sys.stdin)["mechanisms"] if m["available"]))')
[ -n "$mechanisms" ] || die "no mechanism available"

"$SBXBENCH" run -m "$mechanisms" -w "$TMP/segv.wl,$TMP/exit3.wl,$TMP/flood.wl" -n 2 --warmup 0 --timeout 10 \
    --no-progress -o "$TMP/f.json" >"$TMP/out" 2>&1 || die "fault run failed: $(cat "$TMP/out")"
"$SBXBENCH" run -m "$mechanisms" -w "$TMP/hang.wl" -n 1 --warmup 0 --timeout 2 \
    --no-progress -o "$TMP/h.json" >"$TMP/out" 2>&1 || die "hang run failed: $(cat "$TMP/out")"
for f in f h; do "$CHECK" "$TMP/$f.json" >/dev/null || exit 1; done
/usr/bin/python3 - "$TMP/f.json" "$TMP/h.json" <<'PY' || exit 1
import json, sys
want = {"segv": "SEGV", "exit3": "exit status 3", "hang": "timed out after 2 s",
        "flood": "flooded its output"}
direct = {"process", "process-path", "sh"}
seen = set()
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        where = (r["mechanism"], r["workload"])
        assert not r["skipped"], (where, r["reason"])
        assert r["n"] == 0 and r["failed"] == r["runs"] >= 1, (where, r["failures"])
        for f in r["failures"]:
            assert want[r["workload"]] in f["reason"] or (
                r["workload"] == "flood" and r["mechanism"] not in direct and "timed out" in f["reason"]
            ), (where, f["reason"])
        if r["workload"] in ("hang", "flood"):
            assert all(t < 30 for t in r["times"]), (where, r["times"])
        seen.add(r["mechanism"])
print("faults recorded under: " + " ".join(sorted(seen)))
PY
waited=0
while pgrep -f "sleep $token" >/dev/null; do
    [ $waited -ge 100 ] && die "a hung sample's processes outlived its timeout: $(pgrep -af "sleep $token")"
    sleep 0.1
    waited=$((waited + 1))
done
echo ok
