#!/bin/bash
# sbxbench reproduce: every published row is measured (in CI, where docker and podman run, none may be
# skipped), the JSON is a valid results file with the comparison in it, and the ratios are the
# measured ones.
. "$(dirname "$0")/lib.sh"
published="process process-path sh bwrap bwrap-unshare unshare inproc-ns docker podman"
missing=""
for m in $published; do available "$m" || missing="$missing $m"; done
if [ -n "$missing" ] && [ -z "${SBXBENCH_CI:-}" ]; then
    echo "not available here:$missing (CI must have them all): skipping"
    exit 77
fi
"$SBXBENCH" reproduce -n 20 --container-runs 3 --warmup 1 --no-progress -o "$TMP/r.json" \
    >"$TMP/table" 2>"$TMP/err" || die "reproduce failed: $(cat "$TMP/err")"
"$CHECK" "$TMP/r.json" || exit 1
/usr/bin/python3 - "$TMP/r.json" <<'PY' || exit 1
import json, math, sys
d = json.load(open(sys.argv[1]))
rows = d["reproduce"]["rows"]
published = [r for r in rows if r["published"]]
assert len(published) == 9, [r["mechanism"] for r in published]
for r in published:
    assert r["skipped"] is None, (r["mechanism"], r["skipped"])
    assert r["ms"] > 0 and r["ratio"] > 0, r
    assert math.isclose(r["ratio_difference"], r["ratio"] - r["published_ratio"], abs_tol=1e-6), r
    assert math.isclose(r["published_ratio"], r["published_ms"] / 0.653, rel_tol=1e-9), r
by = {(x["mechanism"], x["family"]): x for x in d["results"]}
assert by[("process", "process")]["ratio"] == 1.0
docker = [x for x in d["results"] if x["mechanism"] == "docker"][0]
assert docker["n"] == 3, docker["n"]
assert d["meta"]["config"]["path_dirs"] == 100
PY
for m in $published; do grep -q "^  $m " "$TMP/table" || die "no row for $m in the table"; done
grep -q "^Containers" "$TMP/table" || die "containers are not a block of their own"
grep -q "Not in the published table" "$TMP/table" || die "no block for the extra mechanisms"
expect_exit 2 "$SBXBENCH" reproduce --runs 0
expect_exit 2 "$SBXBENCH" reproduce -o /nonexistent/x.json
echo ok
