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
echo ok
